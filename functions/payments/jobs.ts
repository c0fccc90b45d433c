import { pollOpenCheckouts } from '../../lib/payments/poll';
import type { ScheduledJob } from '../../lib/scheduler';

/**
 * Open checkouts asked of their provider a few minutes on (N-Genius never retries its webhooks; a lost Stripe one too),
 * settled as a webhook would settle them. It reaches the providers: held while outbound work is paused.
 */
export const paymentJobs: ScheduledJob[] = [
  { name: 'payment_checkouts_poll', outbound: true, run: (services) => pollOpenCheckouts(services) },
];
