import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import { actorOf, auditRead, personalReadOf } from '../../lib/audit';
import { type Handler, serverRoutes } from '../../lib/routes';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import { WarningSchema } from '../../schema/common/warnings';
import {
  ChannelBookingInput,
  ReservationChange,
  ReservationListSchema,
  ReservationParams,
  ReservationSchema,
  ReservationsQuery,
} from '../../schema/stay/reservations';
import { cancelAndRefund, shownBooking, stepBooking } from './bookings';
import { presentReservation } from './bookings.present';
import { holidayHomeId } from './homes';
import { changeBooking, reservationsPage, reservationWrite, takeChannelBooking } from './reservations';

/**
 * Reservations for integrations (issue 37; docs/api-reference.md, "Reservations for integrations"): a channel manager or
 * PMS with a server key reads the company's bookings (`read:bookings`), confirms, cancels and changes them as staff do,
 * and records the bookings it took elsewhere (`write:bookings`). Every answer shows the guest's details: its read is
 * audited (lib/audit.ts).
 */
const bookingsRoute = serverRoutes('Bookings', ['read:bookings', 'write:bookings']);

const refused = { 409: problem('Not possible from the booking’s status (`invalid_transition`), or it lapsed.') };

const listRoute = bookingsRoute('read:bookings', {
  method: 'get',
  path: '/bookings',
  summary: 'Bookings, in (updated_at, reference) order for sync, by status, home and arrival',
  request: { query: ReservationsQuery },
  responses: { 200: json(ReservationListSchema, 'A page of bookings') },
});
const oneRoute = bookingsRoute('read:bookings', {
  method: 'get',
  path: '/bookings/{reference}',
  summary: 'One booking',
  request: { params: ReservationParams, query: noQuery },
  responses: { 200: json(ReservationSchema, 'The booking') },
});
const confirmRoute = bookingsRoute('write:bookings', {
  method: 'post',
  path: '/bookings/{reference}/confirm',
  summary: 'Confirm a held booking, as staff do: the payment window starts',
  request: { params: ReservationParams },
  responses: { 200: json(ReservationSchema.extend({ warnings: z.array(WarningSchema) }), 'Confirmed'), ...refused },
});
const cancelRoute = bookingsRoute('write:bookings', {
  method: 'post',
  path: '/bookings/{reference}/cancel',
  summary: 'Cancel a booking, as staff do: its nights become free; what the guest paid online is refunded by its policy',
  request: { params: ReservationParams },
  responses: { 200: json(ReservationSchema, 'Cancelled'), ...refused },
});
const changeRoute = bookingsRoute('write:bookings', {
  method: 'patch',
  path: '/bookings/{reference}',
  summary: 'Change a booking’s dates or guests: the calendar is checked again and the stay priced anew',
  request: { params: ReservationParams, body: jsonBody(ReservationChange, { check_out: '2027-03-12' }) },
  responses: {
    200: json(ReservationSchema, 'Changed'),
    409: problem('Not possible from the booking’s status, or its amounts would move after it was paid online.'),
  },
});
const channelRoute = bookingsRoute('write:bookings', {
  method: 'post',
  path: '/channel-bookings',
  summary: 'Record a booking taken on a channel (kept paid), idempotent by the channel’s own id',
  request: {
    body: jsonBody(ChannelBookingInput, {
      channel: 'airbnb',
      channel_reference: 'HMABCD1234',
      listing: 'palm-5br-villa-private-beach-holiday',
      check_in: '2027-03-08',
      check_out: '2027-03-12',
      guests: 2,
      name: 'Layla Guest',
      email: 'layla.guest@example.com',
    }),
  },
  responses: {
    201: json(ReservationSchema, 'Recorded'),
    200: json(ReservationSchema, 'Recorded before under the same channel id, by the same request'),
    409: problem('The channel id was recorded with another request (`conflict`).'),
  },
});

const listBookings: Handler<typeof listRoute> = async (c) => {
  const { listing, status, check_in_from, check_in_to, ...page } = c.req.valid('query');
  const { db } = c.var.services;
  const companyId = c.var.company.id;
  const listingId = listing === undefined ? undefined : await holidayHomeId(db, companyId, listing);
  const found = await reservationsPage(db, companyId, {
    ...page,
    status,
    listingId,
    checkInFrom: check_in_from,
    checkInTo: check_in_to,
  });
  const results = found.rows.map(presentReservation);
  await auditRead(
    c,
    results.map((booking) => booking.reference),
  );
  return c.json({ results, next_cursor: found.next_cursor }, 200);
};

const getBooking: Handler<typeof oneRoute> = async (c) => {
  const booking = presentReservation(await shownBooking(c.var.services.db, c.var.company.id, c.req.valid('param').reference));
  await auditRead(c, [booking.reference]);
  return c.json(booking, 200);
};

const confirmBooking: Handler<typeof confirmRoute> = async (c) => {
  const { reference } = c.req.valid('param');
  const { db, now } = c.var.services;
  const causedBy = actorOf(c.var.caller);
  const read = personalReadOf(c);
  const { booking, warnings } = await stepBooking(db, c.var.company.id, reference, 'confirm', causedBy, now(), 'staff', read);
  return c.json({ ...presentReservation(booking), warnings }, 200);
};

const cancelBooking: Handler<typeof cancelRoute> = async (c) => {
  const { reference } = c.req.valid('param');
  const services = c.var.services;
  const causedBy = actorOf(c.var.caller);
  const read = personalReadOf(c);
  const { booking } = await cancelAndRefund(services, c.var.company.id, reference, causedBy, services.now(), read);
  return c.json(presentReservation(booking), 200);
};

const changeOne: Handler<typeof changeRoute> = async (c) => {
  const { reference } = c.req.valid('param');
  const { db, now } = c.var.services;
  const change = c.req.valid('json');
  const causedBy = actorOf(c.var.caller);
  const read = personalReadOf(c);
  const at = now();
  const booking = await reservationWrite(db, (trx) => changeBooking(trx, c.var.company, reference, change, causedBy, at, read));
  return c.json(presentReservation(booking), 200);
};

const recordChannelBooking: Handler<typeof channelRoute> = async (c) => {
  const { db, now } = c.var.services;
  const read = personalReadOf(c);
  const input = c.req.valid('json');
  const causedBy = actorOf(c.var.caller);
  const at = now();
  const taken = await reservationWrite(db, (trx) => takeChannelBooking(trx, c.var.company, input, causedBy, at, read));
  // A new booking's answer was audited in its statement; a repeat's is audited here.
  if (!taken.created) await auditRead(c, [taken.booking.reference]);
  return c.json(presentReservation(taken.booking), taken.created ? 201 : 200);
};

export const reservations = createRouter()
  .openapi(listRoute, listBookings)
  .openapi(oneRoute, getBooking)
  .openapi(confirmRoute, confirmBooking)
  .openapi(cancelRoute, cancelBooking)
  .openapi(changeRoute, changeOne)
  .openapi(channelRoute, recordChannelBooking);
