import type { ScheduledJob } from '../../lib/scheduler';
import { announceOverdueRent } from './overdue';

/** Rent still due after the company's grace days (rent_payment.overdue, once per payment). */
export const leaseJobs: ScheduledJob[] = [{ name: 'rent_overdue', run: ({ db, now }) => announceOverdueRent(db, now()) }];
