import { sql } from 'kysely';
import type { Db, Executor, Trx } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';
import { lockedTermsCte, lockHomeCalendars } from '../../lib/calendar';
import { pageOf, paginate } from '../../lib/pagination';
import { checkMove, checkTakes } from '../../lib/transitions';
import { balanceDeadlineSql, bookingMachine, lapsedAt, paidSql } from '../../lib/bookings';
import type { ShownBookingRow } from './bookings.present';
import { type CausedBy, eventCtes, type EventType, newEventId, recordEvent } from '../../lib/events';
import type { BookingRow } from '../../schema/stay/db';
import { transactionRetryingConflict } from '../../lib/external-ids';
import { type Stale, stale, writeOnce, writeStatement } from '../../lib/write';
import { importStaleWarnings, type StaleImport, staleImportsColumn, type Warning } from './import-health';
import { registeredGuestsSql, registrationRequiredSql, registrationWarnings } from './guests';
import type { Stay } from '../../lib/stay/rules';
import { stamp } from '../../lib/clock';
import { type PersonalRead, readAuditCte } from '../../lib/audit';
import { keyringOf } from '../../lib/crypto-jwe';
import type { Services } from '../../lib/env';
import { platformProviderFetch } from '../../lib/payments/index';
import { refundQuietly } from '../../lib/payments/settle';
import {
  type OfflineBookingRead,
  offlineBookingColumns,
  offlineBookingInvoiceCtes,
} from '../../lib/payments/offline-booking-invoice';

type OfflineBooking = Parameters<typeof offlineBookingInvoiceCtes>[1];

/** Booking events carry the booking's id and reference and the listing's id, never the guest. */
const bookingEventData = (booking: Pick<BookingRow, 'id' | 'reference' | 'listing_id'>) => ({
  booking_id: booking.id,
  reference: booking.reference,
  listing_id: booking.listing_id,
});

async function bookingEvent(trx: Trx, booking: BookingRow, type: Extract<EventType, `booking.${string}`>, causedBy: CausedBy) {
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

/** A booking as staff see it, read for a step: with its home's out-of-date calendar imports when confirming. */
type StepRead = ShownBookingRow & {
  stale_imports?: StaleImport[];
  paid_online?: boolean;
  registered_guests?: number | null;
  registration_required?: boolean;
} & Partial<OfflineBookingRead>;

/** What a staff step answers: the booking as staff see it, and its warnings (a confirm's `import_stale`). */
export type BookingStep = {
  booking: ShownBookingRow;
  warnings: Warning[];
  /** A cancellation's: whether the guest paid online (its refunds are then due, lib/payments/refunds.ts). */
  paidOnline: boolean;
};

/**
 * Staff's step on a booking, in two round trips (lib/write.ts): the booking read as shown (with its home's stale
 * calendar imports when confirming), the move checked by the booking's status machine, then one statement that locks
 * the home's terms row first (lib/calendar.ts, the order of every booking write), moves the booking if its status is
 * still the one read and it still holds its nights by `now`, records its event and answers it as shown. A booking
 * whose hold or payment window ran out by `now` holds nothing (the one calendar rule): it is as good as cancelled, so
 * every step is refused (409, nothing changed; the scheduler releases it). The guest's cancellation from the stay page
 * (page.ts) is this same step, `cancelReason` `guest`. When the status moved meanwhile, the step
 * is read and checked again (at most three moves ever happen to a booking).
 */
export function stepBooking(
  db: Db,
  companyId: string,
  reference: string,
  action: BookingAction,
  causedBy: CausedBy,
  now: Date,
  /** A cancellation's reason (migration 0037): `staff` from the admin API, `guest` from the stay page. */
  cancelReason: 'staff' | 'guest' = 'staff',
  /** An integration's read of the answer's guest data (lib/audit.ts), audited in the step's statement (issue 37). */
  answerRead?: PersonalRead,
): Promise<BookingStep> {
  const to = bookingActions[action];
  const at = sql<Date>`${now.toISOString()}::timestamptz`;
  return writeOnce(async (): Promise<BookingStep | Stale> => {
    const booking = (await shownBookings(db, companyId)
      .$if(action === 'confirm', (qb) =>
        qb.select([
          staleImportsColumn(companyId, sql`b.listing_id`, now).as('stale_imports'),
          // Guest registration (issue 37, guests.ts): a confirmed booking whose guests are not all registered is warned of.
          registeredGuestsSql.as('registered_guests'),
          registrationRequiredSql.as('registration_required'),
        ]),
      )
      .$if(action === 'cancel', (qb) =>
        qb.select(
          sql<boolean>`exists (select from payments p where p.booking_id = b.id and p.status = 'succeeded')`.as('paid_online'),
        ),
      )
      .$if(action === 'mark_paid', (qb) => qb.select(offlineBookingColumns))
      .where('b.reference', '=', reference)
      .executeTakeFirst()) as StepRead | undefined;
    if (!booking) throw new ApiError('not_found', `The booking ${reference} was not found.`);
    const from = lapsedBy(booking, now) ? 'cancelled' : booking.status;
    checkMove(bookingMachine, reference, from, to);
    // Staff record the payment of a confirmed booking only (a held one becomes paid by its own deposit, lib/bookings.ts).
    if (action === 'mark_paid') checkTakes(bookingMachine, reference, from, 'payment recorded by staff', ['confirmed']);
    const set: Record<string, unknown> = { status: to, updated_at: stamp };
    if (action === 'confirm') {
      // What the guest paid while held (lib/bookings.ts): everything (the booking is paid), the deposit (the balance is
      // due by its deadline), or nothing (everything, or the deposit, within the payment window of the terms as locked).
      const paid = paidSql(sql.ref('bookings.id'));
      const window = sql<number>`(select payment_window_hours from terms)`;
      const all = sql<boolean>`${paid} >= bookings.total + bookings.deposit`;
      const depositPaid = sql<boolean>`bookings.booking_deposit > 0 and ${paid} >= bookings.booking_deposit`;
      set.status = sql`case when ${all} then 'paid' else 'confirmed' end`;
      set.confirmed_at = at;
      set.paid_at = sql`case when ${all} then ${at} end`;
      set.payment_due_at = sql`case when ${all} then null when ${depositPaid} then ${balanceDeadlineSql('bookings', at, window)}
        else ${at} + make_interval(hours => ${window}) end`;
      set.balance_due_at = sql`case when not ${all} and ${depositPaid} then ${at} end`;
    } else if (action === 'mark_paid') {
      set.paid_at = at;
    } else {
      set.cancelled_at = at;
      set.cancel_reason = cancelReason;
    }
    const update = db
      .updateTable('bookings')
      .set(set)
      .where(sql<boolean>`exists (select from terms)`)
      .where('id', '=', booking.id)
      .where('status', '=', booking.status)
      .where((eb) => eb.not(eb.fn.coalesce(lapsedAt(at)(eb), sql<boolean>`false`)))
      .returningAll();
    const event = { confirm: 'booking.confirmed', mark_paid: 'booking.paid', cancel: 'booking.cancelled' } as const;
    const { rows } = await writeStatement(
      [
        lockedTermsCte('terms', booking.listing_id),
        sql`changed as (${update})`,
        eventCtes(
          'booking',
          newEventId(),
          { companyId, type: event[action], causedBy, data: bookingEventData(booking) },
          'changed',
        ),
        // A confirmation of a booking its deposit paid: the balance is due (or, all paid, the booking is paid).
        action === 'confirm' && sql`now_paid as (select id from changed where status = 'paid')`,
        action === 'confirm' &&
          eventCtes(
            'paid',
            newEventId(),
            { companyId, type: 'booking.paid', causedBy, data: bookingEventData(booking) },
            'now_paid',
          ),
        action === 'confirm' && sql`balance as (select id from changed where balance_due_at is not null)`,
        action === 'confirm' &&
          eventCtes(
            'balance',
            newEventId(),
            { companyId, type: 'booking.balance_due', causedBy, data: bookingEventData(booking) },
            'balance',
          ),
        // Staff record the guest's payment: the tax invoice of what was left to pay (lib/payments/offline-booking-invoice.ts).
        ...(action === 'mark_paid' ? offlineBookingInvoiceCtes(companyId, booking as OfflineBooking, now, causedBy) : []),
        readAuditCte('answer_read', answerRead, [reference], 'changed'),
      ],
      sql`select c.*, l.slug_en as listing_slug, p.reference as person_reference
        from changed c join listings l on l.id = c.listing_id left join contacts p on p.id = c.contact_id`,
    ).execute(db);
    const changed = rows[0] as ShownBookingRow | undefined;
    if (!changed) return stale;
    return {
      booking: changed,
      warnings: [
        ...importStaleWarnings(booking.stale_imports ?? []),
        ...(booking.registration_required
          ? registrationWarnings(reference, booking.guests, booking.registered_guests ?? null)
          : []),
      ],
      paidOnline: booking.paid_online === true,
    };
  });
}

/**
 * A cancellation by staff or an integration (`causedBy`): staff's step, then the refund of what the guest paid online by
 * the booking's policy at this moment (lib/payments/refunds.ts).
 */
export async function cancelAndRefund(
  services: Pick<Services, 'db' | 'config'>,
  companyId: string,
  reference: string,
  causedBy: CausedBy,
  at: Date,
  answerRead?: PersonalRead,
): Promise<BookingStep> {
  const { db, config } = services;
  const step = await stepBooking(db, companyId, reference, 'cancel', causedBy, at, 'staff', answerRead);
  if (step.paidOnline)
    await refundQuietly({ db, config, keyring: keyringOf(config), send: platformProviderFetch, now: at }, step.booking.id);
  return step;
}

/** Whether a booking's hold (held) or payment window (confirmed) has run out at `now`, as {@link lapsedAt} says it. */
export function lapsedBy(booking: Pick<BookingRow, 'status' | 'hold_expires_at' | 'payment_due_at'>, now: Date): boolean {
  const due = { held: booking.hold_expires_at, confirmed: booking.payment_due_at, paid: null, cancelled: null }[booking.status];
  return due !== null && new Date(due).getTime() <= now.getTime();
}

/**
 * Scheduled work (a booking request releases the lapsed holds of its home in its own statement, hold.ts; a staff step
 * refuses a lapsed booking): cancels holds staff did not confirm in time and confirmed bookings not paid within the
 * payment window, each with `booking.cancelled` from `system`. Locks in the order every booking write uses, the homes'
 * terms rows first (in listing order), then their bookings: cancelling bumps the terms' calendar_version (a trigger),
 * so taking the booking rows first would deadlock with a booking request that holds a home's terms and releases the
 * same lapsed hold.
 */
export async function expireBookings(
  trx: Trx,
  now: Date,
  scope: { listingId?: string; bookingId?: string } = {},
): Promise<BookingRow[]> {
  let due = trx.selectFrom('bookings').select('listing_id').where(lapsedAt(now));
  if (scope.listingId) due = due.where('listing_id', '=', scope.listingId);
  if (scope.bookingId) due = due.where('id', '=', scope.bookingId);
  const homes = await lockHomeCalendars(trx, due);
  if (homes.length === 0) return [];
  let query = trx
    .updateTable('bookings')
    .set({
      status: 'cancelled',
      cancelled_at: now,
      cancel_reason: sql`case status when 'held' then 'hold_expired' else 'payment_overdue' end`,
      updated_at: stamp,
    })
    .where('listing_id', 'in', homes)
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
