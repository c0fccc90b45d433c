import { z } from '@hono/zod-openapi';
import Big from 'big.js';
import type { Context } from 'hono';
import type { AppEnv } from '../../lib/env';
import { createRouter } from '../../lib/app';
import type { Executor } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { pageOf, paginate } from '../../lib/pagination';
import { HomeTermsInput } from '../../schema/common/homes';
import { AdminBookingSchema, BlockInput, BlockSchema } from '../../schema/stay/bookings';
import type { BookingRow } from '../../schema/stay/db';
import { pageQuery } from '../../schema/common/api';
import { type BookingAction, applyBookingAction, findBooking } from './bookings';
import { minorDigits } from '../../lib/money';
import { setHomeTerms } from '../../lib/homes';
import { findCompany } from '../../lib/admin-route';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { jsonBody } from '../../schema/common/api';
import { json } from '../../schema/common/api';
import { iso } from '../../lib/dates';
import { lockHomeCalendar, staysHolding } from '../../lib/calendar';

/** A stored amount (numeric(14, 2)) with the currency's minor digits, as the guest's quote writes it. */
const amount = (value: string, currency: string) => new Big(value).toFixed(minorDigits(currency));
const bookingParams = companyParam.extend({ reference: z.string().min(1).max(40) });
const listingParams = companyParam.extend({ slug: z.string().min(1).max(200) });
const bookingSort = {
  name: 'bookings',
  columns: [
    { ref: 'b.created_at', direction: 'desc', type: 'timestamptz' },
    { ref: 'b.id', direction: 'desc', type: 'uuid' },
  ],
} as const;

async function present(db: Executor, booking: BookingRow) {
  const extra = await db
    .selectFrom('listings as l')
    .leftJoin('contacts as p', (j) => j.on('p.id', '=', booking.contact_id ?? '00000000-0000-0000-0000-000000000000'))
    .select(['l.slug_en', 'p.reference as person'])
    .where('l.id', '=', booking.listing_id)
    .executeTakeFirstOrThrow();
  return {
    reference: booking.reference,
    status: booking.status,
    listing: extra.slug_en,
    listing_id: booking.listing_id,
    person: extra.person ?? null,
    sent: { name: booking.sent_name, email: booking.sent_email, phone: booking.sent_phone },
    check_in: booking.check_in,
    check_out: booking.check_out,
    guests: booking.guests,
    language: booking.language,
    message: booking.message,
    quote: booking.quote,
    total: amount(booking.total, booking.currency),
    deposit: amount(booking.deposit, booking.currency),
    currency: booking.currency,
    hold_expires_at: iso(booking.hold_expires_at),
    confirmed_at: iso(booking.confirmed_at),
    payment_due_at: iso(booking.payment_due_at),
    paid_at: iso(booking.paid_at),
    cancelled_at: iso(booking.cancelled_at),
    cancel_reason: booking.cancel_reason,
    consent: { version: booking.consent_version, at: iso(booking.consent_at), address: booking.consent_address },
    caused_by: booking.caused_by,
    created_at: iso(booking.created_at),
    updated_at: iso(booking.updated_at),
  };
}

async function listingIdOf(db: Executor, companyId: string, slug: string): Promise<string> {
  const row = await db
    .selectFrom('listings')
    .select('id')
    .where('company_id', '=', companyId)
    .where((eb) => eb.or([eb('slug_en', '=', slug), eb('slug_ar', '=', slug)]))
    .where('listing_type', '=', 'holiday_home')
    .executeTakeFirst();
  if (!row) throw notFound(`The holiday home "${slug}"`);
  return row.id;
}

const list = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/bookings',
  summary: 'Booking requests, newest first',
  request: {
    params: companyParam,
    query: z.strictObject({
      ...pageQuery,
      status: z.enum(['held', 'confirmed', 'paid', 'cancelled']).optional(),
      listing: z.string().max(200).optional(),
    }),
  },
  responses: { 200: json(z.object({ results: z.array(AdminBookingSchema), next_cursor: z.string().nullable() })) },
});
const get = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/bookings/{reference}',
  summary: 'One booking',
  request: { params: bookingParams },
  responses: { 200: json(AdminBookingSchema) },
});
const step = (path: string, summary: string) =>
  adminRoute({
    method: 'post',
    path: `/companies/{company_id}/bookings/{reference}/${path}`,
    summary,
    request: { params: bookingParams },
    responses: { 200: json(AdminBookingSchema), 409: json(z.object({}), 'Not possible from the booking’s status') },
  });
const confirm = step('confirm', 'Confirm a held booking: the payment window starts');
const markPaid = step('mark-paid', 'Record the payment of a confirmed booking');
const cancel = step('cancel', 'Cancel a booking (its nights become free)');

const putTerms = adminRoute({
  method: 'put',
  path: '/companies/{company_id}/listings/{slug}/booking-terms',
  summary: "Replace a holiday home's booking terms and seasons",
  request: { params: listingParams, body: jsonBody(HomeTermsInput) },
  responses: { 200: json(z.object({ listing: z.string() })) },
});
const listBlocks = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/listings/{slug}/blocks',
  summary: "A holiday home's owner and maintenance blocks",
  request: { params: listingParams },
  responses: { 200: json(z.object({ results: z.array(BlockSchema), next_cursor: z.null() })) },
});
const addBlock = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/listings/{slug}/blocks',
  summary: 'Block nights for the owner or maintenance',
  request: { params: listingParams, body: jsonBody(BlockInput) },
  responses: { 201: json(BlockSchema, 'Blocked'), 409: json(z.object({}), 'A booking holds some of the nights') },
});
const deleteBlock = adminRoute({
  method: 'delete',
  path: '/companies/{company_id}/listings/{slug}/blocks/{block_id}',
  summary: 'Remove a block',
  request: { params: listingParams.extend({ block_id: z.string().uuid() }) },
  responses: { 204: { description: 'Removed' } },
});

export const bookingsAdmin = createRouter()
  .openapi(list, async (c) => {
    const { company_id } = c.req.valid('param');
    const query = c.req.valid('query');
    const db = c.var.services.db;
    await findCompany(db, company_id);
    const listingId = query.listing === undefined ? undefined : await listingIdOf(db, company_id, query.listing);
    const rows = await paginate(
      db
        .selectFrom('bookings as b')
        .selectAll('b')
        .where('b.company_id', '=', company_id)
        .$if(query.status !== undefined, (qb) => qb.where('b.status', '=', query.status as BookingRow['status']))
        .$if(listingId !== undefined, (qb) => qb.where('b.listing_id', '=', listingId as string)),
      bookingSort,
      query,
    ).execute();
    const page = pageOf(rows, bookingSort, query.page_size);
    return c.json({ results: await Promise.all(page.rows.map((b) => present(db, b))), next_cursor: page.next_cursor }, 200);
  })
  .openapi(get, async (c) => {
    const { company_id, reference } = c.req.valid('param');
    const db = c.var.services.db;
    return c.json(await present(db, await findBooking(db, company_id, reference)), 200);
  })
  .openapi(confirm, async (c) => c.json(await stepBooking(c, 'confirm'), 200))
  .openapi(markPaid, async (c) => c.json(await stepBooking(c, 'mark_paid'), 200))
  .openapi(cancel, async (c) => c.json(await stepBooking(c, 'cancel'), 200))
  .openapi(putTerms, async (c) => {
    const { company_id, slug } = c.req.valid('param');
    const terms = c.req.valid('json');
    await c.var.services.db.transaction().execute(async (trx) => {
      await setHomeTerms(trx, await listingIdOf(trx, company_id, slug), terms);
    });
    return c.json({ listing: slug }, 200);
  })
  .openapi(listBlocks, async (c) => {
    const { company_id, slug } = c.req.valid('param');
    const db = c.var.services.db;
    const rows = await db
      .selectFrom('calendar_blocks')
      .select(['id', 'reason', 'starts_on', 'ends_on', 'note'])
      .where('listing_id', '=', await listingIdOf(db, company_id, slug))
      .orderBy('starts_on')
      .execute();
    return c.json({ results: rows, next_cursor: null }, 200);
  })
  .openapi(addBlock, async (c) => {
    const { company_id, slug } = c.req.valid('param');
    const input = c.req.valid('json');
    const block = await c.var.services.db.transaction().execute(async (trx) => {
      const listingId = await listingIdOf(trx, company_id, slug);
      // The one calendar rule (lib/calendar.ts): the home's terms row locked (bare), then the stays holding nights.
      await lockHomeCalendar(trx, listingId);
      const taken = await staysHolding(trx, listingId, input.starts_on, input.ends_on, c.var.services.now());
      if (taken.length > 0) {
        throw new ApiError('conflict', `Bookings hold some of these nights: ${taken.map((t) => t.reference).join(', ')}.`);
      }
      return trx
        .insertInto('calendar_blocks')
        .values({ ...input, company_id, listing_id: listingId })
        .returning(['id', 'reason', 'starts_on', 'ends_on', 'note'])
        .executeTakeFirstOrThrow();
    });
    return c.json(block, 201);
  })
  .openapi(deleteBlock, async (c) => {
    const { company_id, slug, block_id } = c.req.valid('param');
    const db = c.var.services.db;
    const removed = await db
      .deleteFrom('calendar_blocks')
      .where('id', '=', block_id)
      .where('company_id', '=', company_id)
      .where('listing_id', '=', await listingIdOf(db, company_id, slug))
      .executeTakeFirst();
    if (removed.numDeletedRows === 0n) throw notFound(`The block ${block_id}`);
    return c.body(null, 204);
  });

/** Confirm, mark paid or cancel, as staff (`caused_by: admin`). */
async function stepBooking(c: Context<AppEnv>, action: BookingAction) {
  const { db } = c.var.services;
  const companyId = c.req.param('company_id') as string;
  const reference = c.req.param('reference') as string;
  const booking = await db
    .transaction()
    .execute((trx) => applyBookingAction(trx, companyId, reference, action, 'admin', c.var.services.now()));
  return present(db, booking);
}
