import { defineGroup } from '../../lib/compose';
import { deals } from './deals.routes';
import { pipelineJobs } from './jobs';
import { pipelineList } from './pipelines.routes';
import { viewings } from './viewings.routes';

/**
 * Sales pipelines (server keys only): pipelines and stages (read-only here), deals and their moves, viewings; its
 * scheduled work marks viewings missed. Its admin routes (admin.ts: pipelines and stages) are composed into the
 * admin API by functions/app.ts.
 */
export const pipelines = defineGroup({
  name: 'pipelines',
  routes: [pipelineList, deals, viewings],
  jobs: pipelineJobs,
});
