import { defineGroup } from '../../lib/compose';
import { availability } from './availability.routes';
import { bookingRequests } from './bookings.routes';
import { calendarFeed } from './calendar-feed.routes';
import { bookingJobs } from './jobs';
import { stayPages } from './page.routes';
import { quote } from './quote.routes';
import { rates } from './rates.routes';
import { reservations } from './reservations.routes';
import { tourismDirham } from './tourism-dirham.routes';

/**
 * Holiday-home bookings: availability, its iCalendar feed and quotes (public reads), booking requests (a browser form, whose CORS is
 * the root app's: `formPaths`) and the guest's stay page (HTML at /stay/{token}); its scheduled work: expiring
 * holds and unpaid bookings. Daily rates (rates.routes.ts): a server key reads and writes a home's own rules by night,
 * a pricing tool pushes its prices to a signed receiver. Reservations (reservations.routes.ts): a channel manager's or
 * PMS's server key reads, confirms, cancels and changes bookings and records those it took elsewhere. The Tourism
 * Dirham's monthly report (tourism-dirham.routes.ts, issue 37): a server key with `read:leases` reads it; the admin API
 * reads it and records its payment over to DET. Its admin routes (admin.ts: bookings, booking terms, calendar blocks)
 * are composed into the admin API by functions/app.ts.
 */
export const stay = defineGroup({
  name: 'stay',
  routes: [availability, calendarFeed, quote, bookingRequests, rates, reservations, tourismDirham],
  publicReadPaths: ['/listings/:slug/availability', '/listings/:slug/calendar.ics', '/listings/:slug/quote'],
  formPaths: ['/bookings'],
  pages: stayPages,
  jobs: bookingJobs,
});
