import { defineGroup } from '../../lib/compose';
import { contractors } from './contractors.routes';
import { jobs } from './jobs.routes';

/** Maintenance (server keys only): jobs from the helpdesk, their schedule and calendar blocks, contractors. */
export const maintenance = defineGroup({
  name: 'maintenance',
  routes: [jobs, contractors],
});
