import { createRouter } from '../../lib/app';
import { publicReadCors } from '../../lib/public-cors';
import { availability } from './availability.routes';
import { quote } from './quote.routes';
import { bookingRequests } from './bookings.routes';

/**
 * Holiday-home bookings: availability and quotes (public reads) and booking requests (a browser form, whose CORS
 * is the root app's: `formPaths`).
 */
export function bookingsGroup() {
  return createRouter()
    .use('/listings/:slug/availability', publicReadCors())
    .use('/listings/:slug/quote', publicReadCors())
    .route('/', availability)
    .route('/', quote)
    .route('/', bookingRequests);
}
/** The group's browser forms, under /api/v1. */
bookingsGroup.formPaths = ['/bookings'];
