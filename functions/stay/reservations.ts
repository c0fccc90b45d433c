import Big from 'big.js';
import { type RawBuilder, sql } from 'kysely';
import { type PersonalRead, readAuditCte } from '../../lib/audit';
import { bookingMachine, bookingPaymentTerms, lapsedAt, paidSql } from '../../lib/bookings';
import { lockedTermsCte, lockHomeCalendar, type Range } from '../../lib/calendar';
import { stamp } from '../../lib/clock';
import { randomToken, sha256 } from '../../lib/crypto';
import type { Db, Executor, Trx } from '../../lib/db/index';
import type { Slots } from '../../lib/db/prepared';
import { ApiError } from '../../lib/errors';
import { type CausedBy, eventCtes, newEventId } from '../../lib/events';
import { personCtes, personValues, sentDetails, wantedPerson } from '../../lib/people';
import { newReference } from '../../lib/references';
import { homeNotFound, requireBookings } from '../../lib/stay/homes';
import { quoteOf, stayFactsWith } from '../../lib/stay/quote';
import { syncSort, syncPage } from '../../lib/sync';
import { checkTakes } from '../../lib/transitions';
import { transactionRetryingConflict } from '../../lib/external-ids';
import { writeStatement } from '../../lib/write';
import type { Company } from '../../schema/platform/db';
import type { BookingRow } from '../../schema/stay/db';
import type { ChannelBookingValue, ReservationChangeValue } from '../../schema/stay/reservations';
import { isOverlap, lapsedBy, shownBookings } from './bookings';
import type { ShownBookingRow } from './bookings.present';
import { releasedCtes } from './hold';
import { holidayHomeId, holidayHomeQuery } from './homes';

/**
 * Reservations for integrations (issue 37; docs/api-reference.md, "Reservations for integrations"): a channel manager's
 * or PMS's reads of the company's bookings, the bookings it took elsewhere, and its changes of a booking's dates or
 * guests. Confirming and cancelling are staff's own step (bookings.ts stepBooking), caused by the key.
 */

/** The bookings in (updated_at, id) order, as every sync list pages them (lib/sync.ts). */
const reservationSort = syncSort('b', 'uuid');

export type ReservationFilters = {
  status?: BookingRow['status'];
  listingId?: string;
  checkInFrom?: string;
  checkInTo?: string;
  updated_since?: string;
  page_size: number;
  cursor?: string;
};

/** A page of the company's bookings, oldest change first, by status, home and arrival. */
export function reservationsPage(executor: Executor, companyId: string, query: ReservationFilters) {
  const { status, listingId, checkInFrom, checkInTo } = query;
  const select = shownBookings(executor, companyId)
    .$if(status !== undefined, (qb) => qb.where('b.status', '=', status as BookingRow['status']))
    .$if(listingId !== undefined, (qb) => qb.where('b.listing_id', '=', listingId as string))
    .$if(checkInFrom !== undefined, (qb) => qb.where('b.check_in', '>=', checkInFrom as string))
    .$if(checkInTo !== undefined, (qb) => qb.where('b.check_in', '<', checkInTo as string));
  return syncPage(select, reservationSort, query);
}

/**
 * An integration's write of a home's nights, in a transaction retried once on a unique violation (the same channel id
 * recorded meanwhile). Nights another stay, a block or a closed date takes are a conflict with what the calendar holds:
 * 409 `conflict` (its `errors` say `unavailable` at `check_in`), whether found by the check or, losing a race, by the
 * exclusion constraint; the home's other rules stay 400 as for a visitor's request.
 */
export async function reservationWrite<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  try {
    return await transactionRetryingConflict(db, work);
  } catch (error) {
    if (isOverlap(error)) throw nightsTaken409();
    throw error;
  }
}

const nightsTaken409 = () =>
  new ApiError('conflict', 'Some of these nights are already taken by another stay, a block or a closed date.', {
    errors: [{ path: 'check_in', code: 'unavailable', message: 'Some of these nights are already taken.' }],
  });

/** Refuses (409) a stay any of whose nights is taken. */
function refuseTaken(taken: readonly Range[], stay: { checkIn: string; checkOut: string }): void {
  if (stay.checkIn < stay.checkOut && taken.some((r) => r.start < stay.checkOut && stay.checkIn < r.end)) throw nightsTaken409();
}

/** The values as slots of a statement written once (lib/db/prepared.ts's shape, for personCtes). */
function slotsOf<V extends Record<string, unknown>>(values: V): Slots<V> {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, sql`${value}`])) as unknown as Slots<V>;
}

/** The text a channel booking's request is compared by: its fields in the order of their names. */
function requestText(input: ChannelBookingValue): string {
  const fields = input as Record<string, unknown>;
  return JSON.stringify(
    Object.keys(fields)
      .sort()
      .map((key) => [key, fields[key]]),
  );
}

const sameBytes = (a: Uint8Array | null, b: Uint8Array) =>
  a !== null && a.length === b.length && a.every((byte, i) => byte === b[i]);

/** The row of a change's or a creation's answer: the booking as staff see it. */
const shownChanged = (source: string, person: RawBuilder<unknown>) =>
  sql`select c.*, l.slug_en as listing_slug, ${person} as person_reference
    from ${sql.table(source)} c join listings l on l.id = c.listing_id`;

/** Booking events carry the booking's id and reference and the listing's id, never the guest. */
const eventData = (booking: { id: string; reference: string; listing_id: string }) => ({
  booking_id: booking.id,
  reference: booking.reference,
  listing_id: booking.listing_id,
});

/** The booking of a channel's id, as staff see it; a request other than the one recorded is refused (409). */
async function keptChannelBooking(trx: Trx, company: Company, input: ChannelBookingValue, hash: Uint8Array) {
  const kept = await shownBookings(trx, company.id)
    .where('b.channel', '=', input.channel)
    .where('b.channel_reference', '=', input.channel_reference)
    .executeTakeFirst();
  if (kept && !sameBytes(kept.channel_request_hash, hash)) {
    throw new ApiError(
      'conflict',
      `The ${input.channel} booking ${input.channel_reference} was recorded with another request (${kept.reference}).`,
    );
  }
  return kept;
}

/**
 * Records a booking a channel took (kept `paid`: the channel collected the guest's money), idempotent by the channel's
 * own id: the same id again answers the booking made first (`created: false`) when the request is the same, and 409
 * when it differs (looked up once the home's calendar is locked, lib/calendar.ts, so a concurrent request of the same
 * id is answered, not refused for its nights; the same id for another home meets the unique index, and the transaction
 * runs again and finds it). In the caller's transaction (see {@link reservationWrite}), three statements: the home's
 * calendar locked (its terms row, the home found by its slug); the stay's facts read with the channel id's booking
 * (lib/stay/quote.ts stayFactsWith), the stay checked by the one calendar rule and priced; then one statement that
 * releases the home's lapsed holds (as a booking request does, hold.ts releasedCtes), matches or adds the guest (as a
 * visitor's booking does), inserts the booking with `booking.confirmed` and `booking.paid` (what staff's confirmation
 * of a booking paid in full sends) and the audit row of the answer's guest data.
 */
export async function takeChannelBooking(
  trx: Trx,
  company: Company,
  input: ChannelBookingValue,
  causedBy: CausedBy,
  now: Date,
  read: PersonalRead | undefined,
): Promise<{ booking: ShownBookingRow; created: boolean }> {
  const hash = await sha256(requestText(input));
  const stay = { checkIn: input.check_in, checkOut: input.check_out, guests: input.guests };
  const home = holidayHomeQuery(trx, company.id, input.listing).select('l.id').limit(1);
  if (!(await lockHomeCalendar(trx, sql<string>`(${home})`))) {
    // No terms row: not a holiday home of the company (404), or one without terms, which takes no bookings (404 too).
    await holidayHomeId(trx, company.id, input.listing);
    requireBookings(company);
    throw homeNotFound(input.listing);
  }
  // Read under the home's lock: a concurrent request of the same id has committed by then, and is answered.
  const keptId = sql`(select id from bookings where company_id = ${company.id}::uuid and channel = ${input.channel}
    and channel_reference = ${input.channel_reference})`;
  // A company that no longer takes bookings still answers a channel id recorded before (its facts are not read).
  const found =
    company.settings.bookings_enabled === true
      ? await stayFactsWith(trx, company, { slug: input.listing }, stay, now, { columns: { kept: keptId } })
      : undefined;
  if (!found || found.columns.kept !== null) {
    const kept = await keptChannelBooking(trx, company, input, hash);
    if (kept) return { booking: kept, created: false };
    requireBookings(company);
    throw homeNotFound(input.listing);
  }
  const { facts } = found;
  refuseTaken(facts.taken, stay);
  const quote = quoteOf(company, facts, stay, now);
  const person = slotsOf(personValues(company, wantedPerson(company, input), causedBy, { rule: 'visitor', touch: 'on_change' }));
  const booking = { id: crypto.randomUUID(), reference: newReference('B'), listing_id: facts.home.id };
  const terms = bookingPaymentTerms(facts.home.terms, quote);
  const sent = sentDetails(input);
  const at = now.toISOString();
  const lapsed = { company_id: company.id, lapsed_ids: facts.lapsed.map((b) => b.id), now: at };
  const insert = sql`booking as (
    insert into bookings (id, company_id, reference, listing_id, contact_id, status, check_in, check_out, guests,
      language, message, quote, currency, total, deposit, stay_token_hash, consent_version, consent_at, hold_expires_at,
      confirmed_at, paid_at, caused_by, sent_name, sent_email, sent_phone, booking_deposit, balance_due_days,
      deposit_confirms, free_cancellation_days, late_cancellation_refund_percent, channel, channel_reference,
      channel_request_hash)
    select ${booking.id}::uuid, ${company.id}::uuid, ${booking.reference}, ${booking.listing_id}::uuid, person.id, 'paid',
      ${input.check_in}::date, ${input.check_out}::date, ${input.guests}::integer, ${input.language ?? null}::text,
      ${input.message ?? null}::text, ${JSON.stringify(quote)}::jsonb, ${quote.currency}, ${quote.total}::numeric,
      ${quote.deposit}::numeric, ${await sha256(randomToken(32))}::bytea, ${`channel:${input.channel}`},
      ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz, ${causedBy}, ${sent.sent_name}::text,
      ${sent.sent_email}::text, ${sent.sent_phone}::text, ${terms.booking_deposit}::numeric,
      ${terms.balance_due_days}::integer, ${terms.deposit_confirms}, ${terms.free_cancellation_days}::integer,
      ${terms.late_cancellation_refund_percent}::integer, ${input.channel}, ${input.channel_reference}, ${hash}::bytea
    -- The lapsed holds are released first (their nights are then free for the exclusion constraint).
    from person, (select count(*) from released) as first
    returning *
  )`;
  const event = { companyId: company.id, causedBy, data: eventData(booking) };
  const { rows } = await writeStatement(
    [
      releasedCtes(slotsOf({ ...lapsed, lapsed_events: facts.lapsed.map(() => newEventId()) }), sql<boolean>`true`),
      personCtes(person),
      insert,
      eventCtes('confirmed', newEventId(), { ...event, type: 'booking.confirmed' }, 'booking'),
      eventCtes('paid', newEventId(), { ...event, type: 'booking.paid' }, 'booking'),
      readAuditCte('answer_read', read, [booking.reference], 'booking'),
    ],
    shownChanged('booking', sql`(select reference from person)`),
  ).execute(trx);
  return { booking: rows[0] as ShownBookingRow, created: true };
}

/** The arrival's rules a change keeping the booking's check-in does not apply again (it met them when booked). */
const arrivalRules = ['notice', 'advance', 'arrival_day'] as const;

/**
 * An integration's change of a booking's dates or guests (held, confirmed or paid, not lapsed), in the caller's
 * transaction (see {@link reservationWrite}), three statements: the home's calendar and then the booking's bare row
 * locked (one statement: the booking's lock waits for the terms row's); the new stay's facts read with what the booking
 * was paid online (lib/stay/quote.ts stayFactsWith), the stay checked by the one calendar rule without the booking's
 * own nights and priced anew (its quote, total and deposit replaced; its payment terms kept). A booking paid online
 * (lib/bookings.ts paidSql) keeps its amounts: a change that would move them is refused (409), nothing changed. One
 * statement then writes it with `booking.changed` and the audit row of the answer's guest data.
 */
export async function changeBooking(
  trx: Trx,
  company: Company,
  reference: string,
  change: ReservationChangeValue,
  causedBy: CausedBy,
  now: Date,
  read: PersonalRead | undefined,
): Promise<ShownBookingRow> {
  // The home's calendar first (the CTE runs before the booking's row is read), then the booking's bare row.
  const home = sql<string>`(select listing_id from bookings where company_id = ${company.id}::uuid and reference = ${reference})`;
  const locked = await sql<BookingRow>`with ${lockedTermsCte('terms', home)}
    select b.* from bookings b where b.company_id = ${company.id}::uuid and b.reference = ${reference}
      and exists (select from terms)
    for update of b`.execute(trx);
  const booking = locked.rows[0];
  if (!booking) throw new ApiError('not_found', `The booking ${reference} was not found.`);
  const from = lapsedBy(booking, now) ? 'cancelled' : booking.status;
  checkTakes(bookingMachine, reference, from, 'change of dates or guests', ['held', 'confirmed', 'paid']);
  const stay = {
    checkIn: change.check_in ?? booking.check_in,
    checkOut: change.check_out ?? booking.check_out,
    guests: change.guests ?? booking.guests,
  };
  const columns = { paid_online: paidSql(booking.id) };
  const found = await stayFactsWith(trx, company, { id: booking.listing_id }, stay, now, { except: reference, columns });
  if (!found) throw homeNotFound(await listingSlug(trx, booking.listing_id));
  const { facts } = found;
  refuseTaken(facts.taken, stay);
  const waived = stay.checkIn === booking.check_in ? arrivalRules : [];
  const quote = quoteOf(company, facts, stay, now, waived);
  const moved = !new Big(quote.total).eq(booking.total) || !new Big(quote.deposit).eq(booking.deposit);
  if (moved && new Big(String(found.columns.paid_online)).gt(0)) {
    throw new ApiError(
      'conflict',
      `The booking ${reference} was paid online: a change that moves its amounts is refused (cancel it, or keep its price).`,
    );
  }
  const update = trx
    .updateTable('bookings')
    .set({
      check_in: stay.checkIn,
      check_out: stay.checkOut,
      guests: stay.guests,
      quote: JSON.stringify(quote),
      currency: quote.currency,
      total: quote.total,
      deposit: quote.deposit,
      updated_at: stamp,
    })
    .where('id', '=', booking.id)
    .where((eb) => eb.not(eb.fn.coalesce(lapsedAt(now)(eb), sql<boolean>`false`)))
    .returningAll();
  const event = { companyId: company.id, causedBy, type: 'booking.changed', data: eventData(booking) } as const;
  const { rows } = await writeStatement(
    [
      sql`changed as (${update})`,
      eventCtes('changed', newEventId(), event, 'changed'),
      readAuditCte('answer_read', read, [reference], 'changed'),
    ],
    shownChanged('changed', sql`(select reference from contacts where id = c.contact_id)`),
  ).execute(trx);
  return rows[0] as ShownBookingRow;
}

/** A home's English slug (the 404 of a booking's home that no longer takes bookings names it). */
async function listingSlug(trx: Trx, listingId: string): Promise<string> {
  const row = await trx.selectFrom('listings').select('slug_en').where('id', '=', listingId).executeTakeFirst();
  return row?.slug_en ?? listingId;
}
