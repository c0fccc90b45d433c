import { keyringOf } from '../../lib/crypto-jwe';
import { platformProviderFetch } from '../../lib/payments/index';
import { pollOpenCheckouts } from '../../lib/payments/poll';
import { refundDue } from '../../lib/payments/refunds';
import type { ScheduledJob } from '../../lib/scheduler';

/**
 * The payments' scheduled work. Both reach the providers: held while outbound work is paused.
 * - Open checkouts asked of their provider a few minutes on (N-Genius never retries its webhooks; a lost Stripe one
 *   too), settled as a webhook would settle them.
 * - Refunds (lib/payments/refunds.ts): cancelled bookings' payments refunded by their policy, and refunds a provider's
 *   outage left pending sent again.
 * `paymentJobsFor(companyIds)`: the same jobs for some companies only (the tests run them so, on a shared database).
 */
export function paymentJobsFor(companyIds?: readonly string[]): ScheduledJob[] {
  return [
    {
      name: 'payment_checkouts_poll',
      outbound: true,
      run: (services) => pollOpenCheckouts(services, platformProviderFetch, companyIds),
    },
    {
      name: 'payment_refunds',
      outbound: true,
      run: ({ db, config, now }) =>
        refundDue({ db, config, keyring: keyringOf(config), send: platformProviderFetch, now: now() }, { companyIds }),
    },
  ];
}

/** The jobs as the scheduler runs them: every company's. */
export const paymentJobs = paymentJobsFor();
