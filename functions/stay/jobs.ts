import type { ScheduledJob } from '../../lib/scheduler';
import { expireDueBookings } from './bookings';

/** Holds not confirmed in time and confirmed bookings not paid within the payment window (booking.cancelled). */
export const bookingJobs: ScheduledJob[] = [{ name: 'booking_expiry', run: ({ db, now }) => expireDueBookings(db, now()) }];
