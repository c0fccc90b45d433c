import { defineGroup } from '../../lib/compose';
import { charges } from './charges.routes';
import { contractors } from './contractors.routes';
import { inspections } from './inspections.routes';
import { jobs } from './jobs.routes';

/** Maintenance (server keys only): jobs from the helpdesk, their schedule and calendar blocks, their charges, contractors, inspections. */
export const maintenance = defineGroup({
  name: 'maintenance',
  routes: [jobs, charges, contractors, inspections],
});
