import type { ScheduledJob } from '../../lib/scheduler';
import { expirePermits, remindExpiringPermits } from './permits';

/** Live listings' advertising permits: `listing.permit_expiring` ahead of their last day, `listing.permit_expired` after it. */
export const portalJobs: ScheduledJob[] = [
  { name: 'permit_expiring', run: ({ db, now }) => remindExpiringPermits(db, now()) },
  { name: 'permit_expired', run: ({ db, now }) => expirePermits(db, now()) },
];
