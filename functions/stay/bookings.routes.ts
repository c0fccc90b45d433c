import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, problem } from '../../schema/common/api';
import { BookingAnswer, BookingInput } from '../../schema/stay/bookings';
import { requestBooking } from './booking-requests';

const route = defineRoute({
  method: 'post',
  path: '/bookings',
  tags: ['Bookings'],
  summary: 'Request a booking of a holiday home',
  description:
    "From the visitor's browser with a publishable key allowed to send `booking`, from one of the key's origins, with the spam check. Nothing is charged: the dates are held while staff confirm. Payment details and identity documents are refused.",
  access: { kind: 'form', scopes: [] },
  request: { body: jsonBody(BookingInput) },
  responses: {
    201: json(BookingAnswer, 'The dates are held. The answer gives the reference and the stay page (its address is shown once).'),
    403: problem(
      'Key unknown, revoked or of another company, a server key (`key_wrong_kind`), origin not on the key (`origin_not_allowed`), `booking` not on the key (`lead_type_not_allowed`), spam check failed (`challenge_failed`).',
    ),
    404: problem('Unknown home, or bookings are switched off.'),
    503: problem('The spam check could not be asked (`spam_check_unavailable`); nothing was recorded.'),
  },
});

const postBookingRequest: Handler<typeof route> = async (c) => c.json(await requestBooking(c, c.req.valid('json')), 201);

export const bookingRequests = createRouter().openapi(route, postBookingRequest);
