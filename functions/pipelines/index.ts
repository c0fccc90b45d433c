import { defineGroup } from '../../lib/compose';
import { deals } from './deals.routes';
import { pipelineJobs } from './jobs';
import { pipelines } from './pipelines.routes';
import { viewings } from './viewings.routes';

/**
 * Sales pipelines (server keys only): pipelines and stages (read-only here), deals and their moves, viewings; its
 * scheduled work marks viewings missed. Its admin routes (admin.ts: pipelines and stages) are composed into the
 * admin API by functions/app.ts.
 */
export const pipelinesGroup = defineGroup({
  name: 'pipelines',
  routes: [pipelines, deals, viewings],
  jobs: pipelineJobs,
});
