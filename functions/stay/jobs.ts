import { keyringOf } from '../../lib/crypto-jwe';
import type { ScheduledJob } from '../../lib/scheduler';
import { expireDueBookings } from './bookings';
import { syncDueImports } from './calendar-sync';
import { eraseDueRegistrations } from './guests';

/**
 * Holds not confirmed in time and confirmed bookings not paid within the payment window (booking.cancelled), and the
 * holiday homes' imported calendars that are due (issue 24), by the scheduler's clock.
 */
export const bookingJobs: ScheduledJob[] = [
  { name: 'booking_expiry', run: ({ db, now }) => expireDueBookings(db, now()) },
  // Guest registrations past their five years after check-out (issue 37, guests.ts): their lists erased.
  { name: 'guest_registration_erasure', run: ({ db, now }) => eraseDueRegistrations(db, now()) },
  // Fetches the channels' feeds: held while outbound work is paused (lib/outbound.ts).
  {
    name: 'calendar_imports',
    outbound: true,
    run: (services) => syncDueImports(services, keyringOf(services.config), services.now()),
  },
];
