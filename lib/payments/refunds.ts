import { sql } from 'kysely';
import { stamp } from '../clock';
import { todayIn } from '../dates';
import { randomToken } from '../crypto';
import type { Db } from '../db/index';
import { type EventData, eventCtes, newEventId } from '../events';
import { minorUnits } from '../money';
import { writeStatement } from '../write';
import { type CancelledBooking, type PaidPayment, refundsOf } from '../bookings';
import type { PaymentAccountRow, PaymentRefundRow } from '../../schema/platform/payments-db';
import type { StoredQuote } from '../../schema/stay/db';
import { type PaymentsContext, providerOf } from './index';
import { ProviderRefused, ProviderUnavailable } from './provider';
import { movableTo } from './status';
import { bookingCreditNote, bookingRefundColumns, type BookingRefundRead } from './booking-invoices';
import { issueCtes } from '../invoices';

/**
 * Refunds of a cancelled booking's payments (issue 34; docs/api-reference.md, "Booking payments"), in two steps that
 * each may run again without harm:
 * 1. decided: the refund of each succeeded payment of a cancelled booking without one, by the booking's policy at its
 *    cancellation's time (lib/bookings.ts refundsOf), written as a `pending` row with the Tourism Dirham's part of it
 *    (migration 0064: decided once, read by the owner's line and the credit note): one per payment (the unique key), so
 *    deciding twice decides once;
 * 2. sent: each pending refund due is asked of the payment's provider with the refund's id as the idempotency key (a
 *    retry after a timeout is the same refund at the provider, never a second); the provider's acceptance is written
 *    in one statement with `payment.refunded` and `booking.refunded` (ids only); a provider that does not answer
 *    leaves it pending for a later attempt (the scheduler's `payment_refunds` job, backing off), one that refuses
 *    marks it `failed` (staff see it on the booking).
 * A staff or guest cancellation, and a payment settled for a booking that no longer holds its dates, run both at once
 * for their booking; the scheduled job catches the rest (holds lapsed by the scheduler, outages).
 * A rent payment's online payment that came when the rent payment was no longer due (staff recorded it received first)
 * is refunded in full by the same step 2: its settlement decides the refund in its own statement (reason `unapplied`,
 * lib/payments/settle.ts writeSuccess) and sends it after; `payment.refunded` then names the rent payment.
 */

export const newRefundId = () => `rfd_${randomToken(24)}`;

type Candidate = Omit<CancelledBooking, 'cancelled_at' | 'arrival'> & {
  id: string;
  company_id: string;
  cancelled_at: Date | string;
  arrival: Date | string;
  payments: Array<{ id: string; charged: string; base: string; paid_at: string; refunded: boolean }>;
};

/**
 * Which refunds a run takes: one booking's (a cancellation's own run), or only some companies' (the scheduler's job
 * serving a set of companies; the tests, whose files share one PostgreSQL database and each talk to their own
 * provider stand-in); all of them when empty.
 */
export type RefundScope = { bookingId?: string; paymentId?: string; companyIds?: readonly string[] };

/** Decides the refunds of cancelled bookings' payments that have none (one booking, or all due); the count written. */
export async function decideBookingRefunds(db: Db, now: Date, scope: RefundScope = {}): Promise<number> {
  const { rows } = await sql<Candidate>`
    select b.id, b.company_id, b.quote, b.check_in::text as check_in, b.cancelled_at, b.cancel_reason,
      b.free_cancellation_days, b.late_cancellation_refund_percent,
      (b.check_in::timestamp at time zone c.time_zone) as arrival,
      (select count(*) from generate_series(b.check_in::timestamp,
          (least(b.check_out, b.check_in + (b.quote -> 'tourism_dirham' ->> 'nights')::int) - 1)::timestamp,
          interval '1 day') as n(night)
        where exists (select from tourism_dirham_months t where t.company_id = b.company_id
          and t.month = date_trunc('month', n.night)::date
          and t.recorded_at >= b.confirmed_at and t.recorded_at <= b.cancelled_at))::int as recorded_nights,
      (select json_agg(json_build_object('id', p.id, 'charged', p.amount::text,
          'base', (p.amount - p.card_fee - p.rounding)::text, 'paid_at', p.paid_at,
          'refunded', exists (select from payment_refunds r where r.payment_id = p.id)) order by p.paid_at)
        from payments p where p.booking_id = b.id and p.status in ('succeeded', 'refunded')) as payments
    from bookings b join companies c on c.id = b.company_id
    where b.status = 'cancelled'
      and exists (select from payments p where p.booking_id = b.id and p.status = 'succeeded'
        and not exists (select from payment_refunds r where r.payment_id = p.id))
      ${scope.bookingId ? sql`and b.id = ${scope.bookingId}::uuid` : sql``}
      ${scope.companyIds ? sql`and b.company_id in (${sql.join(scope.companyIds.map((id) => sql`${id}::uuid`))})` : sql``}
    limit 100
  `.execute(db);
  const values: Array<Record<string, unknown>> = [];
  for (const row of rows) {
    const quote = row.quote as unknown as StoredQuote;
    const payments: PaidPayment[] = row.payments.map((p) => ({ ...p, paid_at: new Date(p.paid_at) }));
    const decisions = refundsOf(
      { ...row, quote, cancelled_at: new Date(row.cancelled_at), arrival: new Date(row.arrival) },
      payments,
    );
    for (const d of decisions) {
      values.push({
        id: newRefundId(),
        company_id: row.company_id,
        payment_id: d.payment_id,
        booking_id: row.id,
        amount: d.amount,
        currency: quote.currency,
        reason: d.reason,
        tourism_dirham: d.tourism_dirham,
        next_attempt_at: now,
      });
    }
  }
  if (values.length === 0) return 0;
  const added = await db
    .insertInto('payment_refunds')
    .values(values as never)
    .onConflict((oc) => oc.column('payment_id').doNothing())
    .returning('id')
    .execute();
  return added.length;
}

type Due = PaymentRefundRow & {
  checkout_id: string;
  provider_payment_id: string | null;
  /** The rent payment its payment paid (a rent payment's refund, reason `unapplied`), else null. */
  rent_payment_id: string | null;
  charged: string;
  booking_reference: string | null;
  listing_id: string | null;
  /** The company's time zone: the refund books on its day there. */
  time_zone: string;
  account: PaymentAccountRow;
} & BookingRefundRead;

/** Minutes to wait after the n-th failed attempt: 1, 2, 4 … at most 6 hours. */
const backoffMinutes = (attempts: number) => Math.min(2 ** Math.max(attempts - 1, 0), 360);

/** Sends the pending refunds due by `now` (one booking's, one payment's, or all the companies'); the count accepted. */
export async function sendDueRefunds(ctx: Omit<PaymentsContext, 'companyId'>, scope: RefundScope = {}): Promise<number> {
  const { rows } = await sql<Due>`
    select r.*, p.checkout_id, p.provider_payment_id, p.rent_payment_id, p.amount::text as charged,
      b.reference as booking_reference, b.listing_id, c.time_zone, to_jsonb(a) as account,
      ${bookingRefundColumns}
    from payment_refunds r join payments p on p.id = r.payment_id join payment_accounts a on a.id = p.account_id
      join companies c on c.id = r.company_id
      left join bookings b on b.id = r.booking_id
    where r.status = 'pending' and r.next_attempt_at <= ${ctx.now.toISOString()}::timestamptz
      ${scope.bookingId ? sql`and r.booking_id = ${scope.bookingId}::uuid` : sql``}
      ${scope.paymentId ? sql`and r.payment_id = ${scope.paymentId}` : sql``}
      ${scope.companyIds ? sql`and r.company_id in (${sql.join(scope.companyIds.map((id) => sql`${id}::uuid`))})` : sql``}
    order by r.next_attempt_at limit 50
  `.execute(ctx.db);
  let accepted = 0;
  for (const refund of rows) {
    if (await sendRefund(ctx, refund)) accepted += 1;
  }
  return accepted;
}

async function sendRefund(ctx: Omit<PaymentsContext, 'companyId'>, refund: Due): Promise<boolean> {
  const at = ctx.now.toISOString();
  try {
    if (refund.provider_payment_id === null) throw new ProviderRefused(refund.account.provider, null, 'no provider payment id');
    const provider = await providerOf(ctx, refund.account);
    const state = await provider.refund({
      checkoutId: refund.checkout_id,
      paymentId: refund.provider_payment_id,
      amountMinor: minorUnits(refund.amount, refund.currency),
      currency: refund.currency,
      reference: refund.id,
      idempotencyKey: refund.id,
    });
    if (state.status === 'failed') throw new ProviderRefused(refund.account.provider, null, 'the provider failed the refund');
    return await writeAccepted(ctx, refund, state.refundId);
  } catch (error) {
    const unavailable = error instanceof ProviderUnavailable;
    if (!unavailable && !(error instanceof ProviderRefused)) throw error;
    await ctx.db
      .updateTable('payment_refunds')
      .set({
        status: unavailable ? 'pending' : 'failed',
        attempts: sql`attempts + 1`,
        next_attempt_at: sql`${at}::timestamptz + make_interval(mins => ${backoffMinutes(refund.attempts + 1)})`,
        last_error: error.message.slice(0, 500),
        updated_at: stamp,
      })
      .where('id', '=', refund.id)
      .where('status', '=', 'pending')
      .execute();
    return false;
  }
}

/**
 * The provider accepted the refund: in one statement, the refund `succeeded` (if still pending: a concurrent sender's
 * write wins once) and booked today in the company's time zone (`booked_on`, its journal entry's day: a closed month
 * never changes), the payment `refunded` when the refund is all it charged, and the events.
 */
async function writeAccepted(ctx: Omit<PaymentsContext, 'companyId'>, refund: Due, providerRefundId: string) {
  const done = sql`done as (
    update payment_refunds set status = 'succeeded', provider_refund_id = ${providerRefundId},
      refunded_at = ${ctx.now.toISOString()}::timestamptz, booked_on = ${todayIn(refund.time_zone, ctx.now)}::date, attempts = attempts + 1, last_error = null, updated_at = ${stamp}
    where id = ${refund.id} and status = 'pending' returning id
  )`;
  const whole = sql`whole as (
    update payments set status = 'refunded', updated_at = ${stamp}
    where id = ${refund.payment_id} and amount = ${refund.amount}::numeric
      and status in (${sql.join(movableTo('refunded'))}) and exists (select from done)
    returning id
  )`;
  const payment = {
    companyId: refund.company_id,
    type: 'payment.refunded',
    causedBy: 'system',
    data: (refund.booking_id !== null
      ? { payment_id: refund.payment_id, refund_id: refund.id, booking_id: refund.booking_id }
      : refund.rent_payment_id !== null
        ? { payment_id: refund.payment_id, refund_id: refund.id, rent_payment_id: refund.rent_payment_id }
        : { payment_id: refund.payment_id, refund_id: refund.id }) as EventData,
  } as const;
  const booking =
    refund.booking_id !== null &&
    ({
      companyId: refund.company_id,
      type: 'booking.refunded',
      causedBy: 'system',
      data: {
        booking_id: refund.booking_id,
        reference: refund.booking_reference ?? '',
        listing_id: refund.listing_id ?? '',
        refund_id: refund.id,
      },
    } as const);
  const { rows } = await writeStatement(
    [
      done,
      whole,
      eventCtes('payment', newEventId(), payment, 'done'),
      booking && eventCtes('booking', newEventId(), booking, 'done'),
      creditNoteCte(ctx, refund),
    ],
    sql`select (select count(*) from done)::int as done`,
  ).execute(ctx.db);
  return Number((rows[0] as { done: number } | undefined)?.done ?? 0) > 0;
}

/**
 * The credit note of a booking's refund (lib/payments/booking-invoices.ts), issued in the refund's statement when it
 * moved (`done`), crediting the refunded payment's invoice; none when the payment has no invoice.
 */
function creditNoteCte(ctx: Omit<PaymentsContext, 'companyId'>, refund: Due) {
  if (refund.booking_id === null) return false;
  const prepared = bookingCreditNote(refund, refund.amount, todayIn(refund.time_zone, ctx.now), refund.tourism_dirham);
  if (!prepared?.issued || !refund.invoice) return false;
  return issueCtes('credit', 'done', {
    companyId: refund.company_id,
    kind: 'credit_note',
    prepared,
    source: { kind: 'booking_payment', key: refund.id },
    bookingId: refund.booking_id,
    credits: { id: refund.invoice.id, number: refund.invoice.number },
    causedBy: 'system',
  });
}

/** A booking's refunds decided and sent now (after its cancellation, or a payment for dates it no longer holds). */
export async function refundBooking(ctx: Omit<PaymentsContext, 'companyId'>, bookingId: string): Promise<void> {
  await decideBookingRefunds(ctx.db, ctx.now, { bookingId });
  await sendDueRefunds(ctx, { bookingId });
}

/** The scheduler's job: every cancelled booking's refunds decided, every pending refund due sent (of `scope`'s companies). */
export async function refundDue(ctx: Omit<PaymentsContext, 'companyId'>, scope: RefundScope = {}): Promise<number> {
  await decideBookingRefunds(ctx.db, ctx.now, scope);
  return sendDueRefunds(ctx, scope);
}
