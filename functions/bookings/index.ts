import { createRouter } from '../../lib/app';
import { formsCors } from '../../lib/forms-cors';
import { publicReadCors } from '../../lib/public-cors';
import { availability } from './availability';
import { quote } from './quote';
import { bookingRequests } from './request';

/** Holiday-home bookings: availability and quotes (public reads) and booking requests (a browser form). */
export function bookingsGroup() {
  return createRouter()
    .use('/listings/:slug/availability', publicReadCors())
    .use('/listings/:slug/quote', publicReadCors())
    .use('/bookings', formsCors())
    .route('/', availability)
    .route('/', quote)
    .route('/', bookingRequests);
}
