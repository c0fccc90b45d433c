import { defineGroup } from '../../lib/compose';
import { leaseJobs } from './jobs';
import { leases as leaseRoutes } from './leases.routes';
import { rentPaymentLinks } from './payment-link.routes';
import { rentMandates } from './mandates.routes';
import { rentPayments } from './payments.routes';

/** Leases and rent payments (server keys only): drafts, activation, notices, renewal, end, receipts and bounces, payment links, direct-debit mandates. */
export const leases = defineGroup({
  name: 'leases',
  routes: [leaseRoutes, rentPayments, rentPaymentLinks, rentMandates],
  jobs: leaseJobs,
});
