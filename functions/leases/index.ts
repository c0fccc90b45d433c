import { defineGroup } from '../../lib/compose';
import { leaseJobs } from './jobs';
import { leases as leaseRoutes } from './leases.routes';
import { rentPayments } from './payments.routes';

/** Leases and rent payments (server keys only): drafts, activation, notices, renewal, end, receipts and bounces. */
export const leases = defineGroup({
  name: 'leases',
  routes: [leaseRoutes, rentPayments],
  jobs: leaseJobs,
});
