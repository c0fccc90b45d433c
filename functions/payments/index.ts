import { defineGroup } from '../../lib/compose';
import { keyringOf } from '../../lib/crypto-jwe';
import { platformProviderFetch } from '../../lib/payments/index';
import { refundDue } from '../../lib/payments/refunds';
import type { ScheduledJob } from '../../lib/scheduler';
import { paymentWebhooks } from './webhooks.routes';

/**
 * Refunds (lib/payments/refunds.ts): cancelled bookings' payments refunded by their policy, and refunds a provider's
 * outage left pending sent again. Reaches the providers: held while outbound work is paused.
 */
const paymentJobs: ScheduledJob[] = [
  {
    name: 'payment_refunds',
    outbound: true,
    run: ({ db, config, now }) => refundDue({ db, config, keyring: keyringOf(config), send: platformProviderFetch, now: now() }),
  },
];

/**
 * Payments online (issue 34): the providers' webhook receiver. A company's provider accounts are the admin API's
 * (admin.ts, composed by functions/app.ts); the links for what is due live with what is due (the rent payment's in
 * functions/leases); the domain is lib/payments/.
 */
export const paymentsGroup = defineGroup({
  name: 'payments',
  routes: [paymentWebhooks],
  jobs: paymentJobs,
});
