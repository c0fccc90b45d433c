import { defineGroup } from '../../lib/compose';
import { paymentJobs } from './jobs';
import { paymentWebhooks } from './webhooks.routes';

/**
 * Payments online (issue 34): the providers' webhook receiver, and the scheduled work (jobs.ts: the poll of open
 * checkouts, the refunds cancelled bookings are owed). A company's provider accounts are the admin API's (admin.ts,
 * composed by functions/app.ts); the links for what is due live with what is due (the rent payment's in
 * functions/leases); the domain is lib/payments/.
 */
export const paymentsGroup = defineGroup({
  name: 'payments',
  routes: [paymentWebhooks],
  jobs: paymentJobs,
});
