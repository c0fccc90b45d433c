import { createRouter } from '../../lib/app';
import { htmlAnswer, tokenPageAction, tokenPageRoute } from '../../lib/pages';
import type { Handler } from '../../lib/routes';
import { cancelStay, payStay, stayPage } from './page';
import { registerStayGuests } from './guests.page';

/** The guest's stay page: HTML at /stay/{token}, the booking request's `stay_url` (lib/pages.ts; page.ts answers). */
const stayPageRoute = tokenPageRoute({
  path: '/stay/{token}',
  operationId: 'getStayPage',
  tags: ['Bookings'],
  summary: 'The guest’s stay page (HTML), at the `stay_url` a booking request answered with',
  description:
    'The booking’s status, its quote and what is due by when, in the guest’s language (English or Arabic, right to left); no script.',
});

const showStayPage: Handler<typeof stayPageRoute> = stayPage();

/** The stay page's pay button: what is due now, at the provider's page (issue 34; page.ts payStay). */
const payRoute = tokenPageAction({
  path: '/stay/{token}/payment',
  operationId: 'payStayPage',
  tags: ['Bookings'],
  summary: 'Pay what a booking owes now (the stay page’s form): 303 to the provider’s payment page',
  description:
    'The deposit while the dates are held (when the home’s terms take one), then the balance: a checkout at the company’s provider for the booking’s currency, its return address the stay page. 409 (an HTML page naming the problem: `nothing_due`, `payment_account_missing`) or 503 (`provider_unavailable`) when it cannot be paid now; nothing is recorded then.',
  responses: {
    409: htmlAnswer('Nothing is due now, or the company has no payment account for the currency.'),
    503: htmlAnswer('The provider did not answer; nothing was recorded.'),
  },
});

const payStayPage: Handler<typeof payRoute> = payStay();

/** The stay page's cancel button: the guest cancels, refunded by the booking's policy (issue 34; page.ts cancelStay). */
const cancelRoute = tokenPageAction({
  path: '/stay/{token}/cancellation',
  operationId: 'cancelStayPage',
  tags: ['Bookings'],
  summary: 'Cancel a booking as its guest (the stay page’s form): 303 back to the stay page, which shows the refund',
  description:
    'While the booking holds its dates (held, confirmed or paid) and before its check-in day begins in the company’s time zone: the booking is cancelled (`booking.cancelled`, `cancel_reason` `guest`) and what the guest paid online is refunded by the booking’s policy at this moment, as a staff cancellation does. 409 (an HTML page naming the problem: `invalid_transition` when already cancelled or lapsed, `cancellation_closed` once the check-in day began) or 403 (`origin_not_allowed`: sent from another site); nothing changes then.',
  responses: {
    403: htmlAnswer('The form was sent from another site; nothing changed.'),
    409: htmlAnswer('The booking is cancelled or lapsed already, or its check-in day began; nothing changed.'),
  },
});

const cancelStayPage: Handler<typeof cancelRoute> = cancelStay();

/** The stay page's guest registration form (issue 37; guests.page.ts registerStayGuests). */
const guestsRoute = tokenPageAction({
  path: '/stay/{token}/guests',
  operationId: 'confirmStayGuestsPage',
  tags: ['Bookings'],
  summary: 'Register the booking’s guests (the stay page’s form): 303 back to the stay page',
  description:
    'Every guest of the stay as Dubai’s DET asks (name, nationality, passport, Emirates ID or GCC ID and its number, date of birth) and the guest’s consent, while the booking holds its dates and before its check-out day; sending it again replaces the list. Kept encrypted, shown only to staff (audited), erased five years after check-out; `booking.guests_registered` (ids only). 400: the form again, each problem at its field (a document number of another kind of document, a date of birth in the future, more guests than the booking’s), nothing written; 409 (`registration_closed`), 403 (`origin_not_allowed`) or 503 (`encryption_unavailable`), nothing written.',
  responses: {
    400: htmlAnswer('The form again with what was sent and each problem at its field; nothing was written.'),
    403: htmlAnswer('The form was sent from another site; nothing was written.'),
    409: htmlAnswer('The booking no longer takes a registration (cancelled, lapsed, or its check-out day came).'),
    503: htmlAnswer('No encryption key is configured; nothing was written.'),
  },
});

const registerGuestsPage: Handler<typeof guestsRoute> = registerStayGuests();

export const stayPages = () =>
  createRouter()
    .openapi(stayPageRoute, showStayPage)
    .openapi(payRoute, payStayPage)
    .openapi(cancelRoute, cancelStayPage)
    .openapi(guestsRoute, registerGuestsPage);
