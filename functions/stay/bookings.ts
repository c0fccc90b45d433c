import { type ExpressionBuilder, type RawBuilder, sql } from 'kysely';
import type { Database } from '../../schema/db';
import type { Db, Executor, Trx } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';
import { lockHomeCalendar } from '../../lib/calendar';
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

/** What staff may do with a booking, by status. */
export const bookingTransitions = {
  confirm: { from: ['held'], to: 'confirmed' },
  mark_paid: { from: ['confirmed'], to: 'paid' },
  cancel: { from: ['held', 'confirmed', 'paid'], to: 'cancelled' },
} as const;

export type BookingAction = keyof typeof bookingTransitions;

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
 * cancel. A hold or payment window that has run out is released first, so it cannot be confirmed or paid.
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
  const rule = bookingTransitions[action];
  if (!(rule.from as readonly string[]).includes(booking.status)) {
    const allowed = Object.entries(bookingTransitions)
      .filter(([, r]) => (r.from as readonly string[]).includes(booking.status))
      .map(([name]) => name);
    throw new ApiError(
      'invalid_transition',
      `A ${booking.status} booking cannot be ${action.replace('_', ' ')}ed${booking.cancel_reason ? ` (${booking.cancel_reason.replace('_', ' ')})` : ''}. Allowed: ${allowed.join(', ') || 'nothing'}.`,
    );
  }
  const set: Record<string, unknown> = { status: rule.to, updated_at: sql`clock_timestamp()` };
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
