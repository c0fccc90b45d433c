import { type ExpressionBuilder, type RawBuilder, sql } from 'kysely';
import type { Database } from '../../schema/db';
import type { Db, Executor, Trx } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';
import { lockHomeCalendar } from '../../lib/calendar';
import { pageOf, paginate } from '../../lib/pagination';
import { checkMove, statusMachine } from '../../lib/transitions';
import type { ShownBookingRow } from './bookings.present';
import { type CausedBy, recordEvent } from '../../lib/events';
import type { BookingRow } from '../../schema/stay/db';
import { transactionRetryingConflict } from '../../lib/external-ids';
import type { Stay } from './rules';

/** Booking events carry the booking's id and reference and the listing's id, never the guest. */
const bookingEventData = (booking: Pick<BookingRow, 'id' | 'reference' | 'listing_id'>) => ({
  booking_id: booking.id,
  reference: booking.reference,
  listing_id: booking.listing_id,
});

async function bookingEvent(trx: Trx, booking: BookingRow, type: `booking.${string}`, causedBy: CausedBy) {
  await recordEvent(trx, { companyId: booking.company_id, type, causedBy, data: bookingEventData(booking) });
}

export const defaultHoldHours = 24;

export type NewBooking = Stay & {
  name: string;
  email?: string;
  phone?: string;
  message?: string;
  language?: string;
  consentVersion: string;
  consentAddress: string | null;
};

/** PostgreSQL's exclusion_violation: another booking took some of the nights first. */
export function isOverlap(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23P01';
}

/**
 * Runs a booking write; losing the race for the nights is the `unavailable` problem, not a 500. A new guest's
 * concurrent requests (for other homes) meet on the contacts' unique index: the write then runs once more and
 * matches the contact the other request added, as enquiries do.
 */
export async function transactionForNights<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  try {
    return await transactionRetryingConflict(db, work);
  } catch (error) {
    if (isOverlap(error)) throw new ApiError('unavailable', 'Some of these nights were just taken by another request.');
    throw error;
  }
}

/** The booking's status machine (lib/transitions.ts): staff confirm a held one, mark a confirmed one paid, cancel. */
export const bookingStatus = statusMachine<BookingRow['status']>('booking', {
  held: ['confirmed', 'cancelled'],
  confirmed: ['paid', 'cancelled'],
  paid: ['cancelled'],
  cancelled: [],
});

/** What staff may do with a booking: the status each action moves it to. */
export const bookingActions = { confirm: 'confirmed', mark_paid: 'paid', cancel: 'cancelled' } as const;
export type BookingAction = keyof typeof bookingActions;

/** A company's bookings with what staff see joined (the home's slug, the guest's reference). */
export function shownBookings(executor: Executor, companyId: string) {
  return executor
    .selectFrom('bookings as b')
    .innerJoin('listings as l', 'l.id', 'b.listing_id')
    .leftJoin('contacts as p', 'p.id', 'b.contact_id')
    .selectAll('b')
    .select(['l.slug_en as listing_slug', 'p.reference as person_reference'])
    .where('b.company_id', '=', companyId);
}

const bookingSort = {
  name: 'bookings',
  columns: [
    { ref: 'b.created_at', direction: 'desc', type: 'timestamptz' },
    { ref: 'b.id', direction: 'desc', type: 'uuid' },
  ],
} as const;

/** A page of a company's bookings, newest first, by status and home (a holiday home's id). */
export async function bookingsPage(
  executor: Executor,
  companyId: string,
  query: { status?: BookingRow['status']; listingId?: string; page_size: number; cursor?: string },
): Promise<{ rows: ShownBookingRow[]; next_cursor: string | null }> {
  const rows = await paginate(
    shownBookings(executor, companyId)
      .$if(query.status !== undefined, (qb) => qb.where('b.status', '=', query.status as BookingRow['status']))
      .$if(query.listingId !== undefined, (qb) => qb.where('b.listing_id', '=', query.listingId as string)),
    bookingSort,
    query,
  ).execute();
  return pageOf(rows, bookingSort, query.page_size);
}

/** One booking as staff see it (404 when the company has none by that reference). */
export async function shownBooking(executor: Executor, companyId: string, reference: string): Promise<ShownBookingRow> {
  const booking = await shownBookings(executor, companyId).where('b.reference', '=', reference).executeTakeFirst();
  if (!booking) throw new ApiError('not_found', `The booking ${reference} was not found.`);
  return booking;
}

export async function findBooking(executor: Executor, companyId: string, reference: string): Promise<BookingRow> {
  const booking = await executor
    .selectFrom('bookings')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('reference', '=', reference)
    .executeTakeFirst();
  if (!booking) throw new ApiError('not_found', `The booking ${reference} was not found.`);
  return booking;
}

/**
 * Staff's step on a booking: confirm a held one (its payment window starts), mark a confirmed one paid, or
 * cancel. A hold or payment window that has run out by `now` is released first (the one calendar rule,
 * lib/calendar.ts), so it cannot be confirmed or paid. Locks the home's terms row, then the bare booking row.
 */
export async function applyBookingAction(
  trx: Trx,
  companyId: string,
  reference: string,
  action: BookingAction,
  causedBy: CausedBy,
  now: Date,
): Promise<BookingRow> {
  const found = await findBooking(trx, companyId, reference);
  // The home's terms first, then the booking: the order of every booking write (see expireBookings).
  await lockHomeCalendar(trx, found.listing_id);
  await expireBookings(trx, now, { bookingId: found.id });
  const booking = await trx.selectFrom('bookings').selectAll().where('id', '=', found.id).forUpdate().executeTakeFirstOrThrow();
  const to = bookingActions[action];
  checkMove(bookingStatus, reference, booking.status, to);
  const set: Record<string, unknown> = { status: to, updated_at: sql`clock_timestamp()` };
  if (action === 'confirm') {
    const { payment_window_hours } = await trx
      .selectFrom('holiday_home_terms')
      .select('payment_window_hours')
      .where('listing_id', '=', booking.listing_id)
      .executeTakeFirstOrThrow();
    set.confirmed_at = now;
    set.payment_due_at = new Date(now.getTime() + payment_window_hours * 3_600_000);
  } else if (action === 'mark_paid') {
    set.paid_at = now;
  } else {
    set.cancelled_at = now;
    set.cancel_reason = 'staff';
  }
  const updated = await trx
    .updateTable('bookings')
    .set(set)
    .where('id', '=', booking.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  const event = { confirm: 'booking.confirmed', mark_paid: 'booking.paid', cancel: 'booking.cancelled' } as const;
  await bookingEvent(trx, updated, event[action], causedBy);
  return updated;
}

/** Bookings whose hold (held) or payment window (confirmed) has run out at `now`: they no longer hold their nights. */
export const lapsedAt = (now: Date | RawBuilder<Date>) => (eb: ExpressionBuilder<Database, 'bookings'>) =>
  eb.or([
    eb.and([eb('status', '=', 'held'), eb('hold_expires_at', '<=', now)]),
    eb.and([eb('status', '=', 'confirmed'), eb('payment_due_at', '<=', now)]),
  ]);

/**
 * Scheduled work (and every booking write, for the rows it touches): cancels holds staff did not confirm in
 * time and confirmed bookings not paid within the payment window, each with `booking.cancelled` from `system`.
 * Locks in the order every booking write uses, the homes' terms rows first (in listing order), then their
 * bookings: cancelling bumps the terms' calendar_version (a trigger), so taking the booking rows first would
 * deadlock with a booking request that holds a home's terms and releases the same lapsed hold.
 */
export async function expireBookings(
  trx: Trx,
  now: Date,
  scope: { listingId?: string; bookingId?: string } = {},
): Promise<BookingRow[]> {
  let due = trx.selectFrom('bookings').select('listing_id').where(lapsedAt(now));
  if (scope.listingId) due = due.where('listing_id', '=', scope.listingId);
  if (scope.bookingId) due = due.where('id', '=', scope.bookingId);
  const homes = await trx
    .selectFrom('holiday_home_terms')
    .select('listing_id')
    .where('listing_id', 'in', due)
    .orderBy('listing_id')
    .forNoKeyUpdate()
    .execute();
  if (homes.length === 0) return [];
  let query = trx
    .updateTable('bookings')
    .set({
      status: 'cancelled',
      cancelled_at: now,
      cancel_reason: sql`case status when 'held' then 'hold_expired' else 'payment_overdue' end`,
      updated_at: sql`clock_timestamp()`,
    })
    .where(
      'listing_id',
      'in',
      homes.map((h) => h.listing_id),
    )
    .where(lapsedAt(now));
  if (scope.bookingId) query = query.where('id', '=', scope.bookingId);
  const expired = await query.returningAll().execute();
  for (const booking of expired) await bookingEvent(trx, booking, 'booking.cancelled', 'system');
  return expired;
}

/** The scheduler's job: one transaction per run; concurrent runs each cancel a row once (the update claims it). */
export function expireDueBookings(db: Db, now: Date): Promise<number> {
  return db
    .transaction()
    .execute((trx) => expireBookings(trx, now))
    .then((rows) => rows.length);
}
