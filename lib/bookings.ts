import Big from 'big.js';
import { type ExpressionBuilder, type RawBuilder, sql } from 'kysely';
import type { Database } from '../schema/db';
import { ApiError } from './errors';
import { formatAmount, fromMinorUnits, minorUnits, percentOf, sumAmounts } from './money';
import { dirhamOfNights, paymentsDirham } from './tourism-dirham';
import { statusMachine } from './transitions';
import type { BookingStatus, HolidayHomeTerms, StoredQuote } from '../schema/stay/db';

/**
 * A holiday-home booking's status and its money (issue 34): the status machine every booking write moves through (the
 * stay group's steps, the payments' settlement and refunds), the booking's payment terms taken from its home's terms
 * when requested, what is due on the stay page now, and the refund a cancellation's policy gives.
 *
 * The spec's rule 1 (a request charges nothing) and the issue's "deposit at request" meet this way: the request takes
 * no card; the stay page offers the deposit at once, while the dates are held.
 */

/**
 * The booking's status machine: staff (or a paid deposit, when the terms say so) confirm a held one; a confirmed one is
 * paid (staff mark it, or the guest pays the balance); a held one whose deposit was the whole amount becomes paid when
 * it confirms itself; any is cancelled.
 */
export const bookingMachine = statusMachine<BookingStatus>('booking', {
  held: ['confirmed', 'paid', 'cancelled'],
  confirmed: ['paid', 'cancelled'],
  paid: ['cancelled'],
  cancelled: [],
});

/** The statuses a booking may move to `to` from, as SQL's `status in (…)` takes them. */
export function bookingMovableTo(to: BookingStatus): BookingStatus[] {
  const moves = bookingMachine.moves;
  return (Object.keys(moves) as BookingStatus[]).filter((from) => moves[from].includes(to));
}

/** The payment terms a booking keeps from its home's terms when requested (migration 0037). */
export type BookingPaymentTerms = {
  booking_deposit: string;
  balance_due_days: number | null;
  deposit_confirms: boolean;
  free_cancellation_days: number;
  late_cancellation_refund_percent: number;
};

type HomePaymentTerms = Pick<
  HolidayHomeTerms,
  | 'booking_deposit_percent'
  | 'booking_deposit_amount'
  | 'balance_due_days'
  | 'deposit_confirms'
  | 'free_cancellation_days'
  | 'late_cancellation_refund_percent'
>;

/** Everything the guest pays: the stay's total and the refundable deposit (the stay page's "Due"). */
export const amountDue = (quote: Pick<StoredQuote, 'total' | 'deposit' | 'currency'>) =>
  sumAmounts([quote.total, quote.deposit], quote.currency);

/**
 * A booking's payment terms from its home's: the deposit's amount is a percent of the stay's total (half up to the
 * currency's digits) or the home's amount, never more than everything due; 0 when there is none.
 */
export function bookingPaymentTerms(terms: HomePaymentTerms, quote: StoredQuote): BookingPaymentTerms {
  const due = amountDue(quote);
  let deposit = formatAmount(0, quote.currency);
  if (terms.booking_deposit_percent !== null) {
    deposit = percentOf(quote.total, terms.booking_deposit_percent, quote.currency, 'half_up');
  } else if (terms.booking_deposit_amount !== null) {
    deposit = formatAmount(terms.booking_deposit_amount, quote.currency);
  }
  if (new Big(deposit).gt(due)) deposit = due;
  return {
    booking_deposit: deposit,
    balance_due_days: terms.balance_due_days,
    deposit_confirms: terms.deposit_confirms,
    free_cancellation_days: terms.free_cancellation_days,
    late_cancellation_refund_percent: terms.late_cancellation_refund_percent,
  };
}

/** A booking as its money is read: its status, quote, terms and what its succeeded payments paid (their amounts due). */
export type BookingMoney = {
  status: BookingStatus;
  quote: Pick<StoredQuote, 'total' | 'deposit' | 'currency'>;
  booking_deposit: string;
  /** What the booking's succeeded payments paid toward what is due (card fees and rounding apart). */
  paid: string;
  /** Whether the booking's hold or payment window ran out (it holds nothing, whether or not cancelled yet). */
  lapsed: boolean;
};

export type DueNow = { purpose: 'booking_deposit' | 'booking_balance'; amount: string } | null;

/**
 * What the stay page offers now: while held, the deposit (if the terms have one and it is not paid); once confirmed,
 * the deposit if still unpaid, else the balance (everything still due). Nothing for a paid, cancelled or lapsed booking.
 */
export function dueNow(booking: BookingMoney): DueNow {
  if (booking.lapsed || (booking.status !== 'held' && booking.status !== 'confirmed')) return null;
  const { currency } = booking.quote;
  const paid = new Big(booking.paid);
  const deposit = new Big(booking.booking_deposit);
  const rest = new Big(amountDue(booking.quote)).minus(paid);
  if (deposit.gt(paid)) {
    return { purpose: 'booking_deposit', amount: formatAmount(deposit.minus(paid), currency) };
  }
  if (booking.status === 'held' || rest.lte(0)) return null;
  return { purpose: 'booking_balance', amount: formatAmount(rest, currency) };
}

/** 409 `nothing_due` unless something is due now (dueNow), with why in the message. */
export function requireDue(reference: string, booking: BookingMoney): NonNullable<DueNow> {
  const due = dueNow(booking);
  if (due) return due;
  const why = booking.lapsed
    ? 'its hold or payment window ran out'
    : booking.status === 'held'
      ? 'it is held while the company confirms, and its terms take no deposit'
      : `it is ${booking.status}`;
  throw new ApiError('nothing_due', `Nothing is due on the booking ${reference}: ${why}.`);
}

/** One succeeded payment of a cancelled booking, as the refund policy weighs it. */
export type PaidPayment = {
  id: string;
  /** What the payer was charged (the amount due, the card fee, the rounding). */
  charged: string;
  /** Of which toward what was due. */
  base: string;
  paid_at: Date;
  /** Whether a refund was already decided for it. */
  refunded: boolean;
};

export type CancelledBooking = {
  quote: Pick<StoredQuote, 'total' | 'deposit' | 'currency' | 'tourism_dirham'>;
  check_in: string;
  cancelled_at: Date;
  cancel_reason: 'staff' | 'guest' | 'hold_expired' | 'payment_overdue';
  free_cancellation_days: number;
  late_cancellation_refund_percent: number;
  /** The check-in day's midnight in the company's time zone. */
  arrival: Date;
  /**
   * Of the nights its Tourism Dirham charged, those in a month whose report was recorded while the booking counted in
   * it (confirmed at or before the record, cancelled at or after it): declared to DET, their fee stays DET's.
   */
  recorded_nights: number;
};

/** A refund: its amount, why, and the Tourism Dirham's part of it (null: the booking's quote has no Tourism Dirham). */
export type RefundDecision = {
  payment_id: string;
  amount: string;
  reason: 'policy' | 'lapsed';
  tourism_dirham: string | null;
};

const byPaidAt = (a: PaidPayment, b: PaidPayment) => a.paid_at.getTime() - b.paid_at.getTime() || (a.id < b.id ? -1 : 1);
const least = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * The refunds of a cancelled booking's payments by its policy at the cancellation's time (issue 34):
 * - a payment made after the cancellation, or of a hold that lapsed (the company never confirmed in time): all of it,
 *   card fee and rounding included (`lapsed`: money is never taken for dates the guest does not have);
 * - else, cancelled at least `free_cancellation_days` before arrival: all of it (`policy`);
 * - else the company keeps (100 − late_cancellation_refund_percent)% of the stay's total paid without the Tourism
 *   Dirham (rounded down: the guest's favour), the refundable deposit never; the card fee and rounding of a payment
 *   partly kept are not refunded.
 * The Tourism Dirham (issue 37, migration 0064) is DET's per occupied room-night: a cancelled booking occupies none, so
 * the fee its payments carried ({@link paymentsDirham}) goes back to the guest, but the fee of its nights in months
 * already recorded (`recorded_nights`, at most what its payments carried before the cancellation), which stays DET's.
 * What is kept (of the stay, then of the fee) is taken from the payments in the order they were paid. A payment with a
 * refund decided before is left alone (one refund per payment); a refund of nothing is no refund.
 */
export function refundsOf(booking: CancelledBooking, payments: PaidPayment[]): RefundDecision[] {
  const { currency, tourism_dirham: quoted } = booking.quote;
  const minor = (amount: string | Big) => BigInt(minorUnits(amount, currency));
  const money = (value: bigint) => fromMinorUnits(Number(value), currency);
  const ordered = [...payments].sort(byPaidAt);
  const before = ordered.filter((p) => p.paid_at.getTime() <= booking.cancelled_at.getTime());
  const free =
    booking.cancel_reason === 'hold_expired' ||
    booking.cancelled_at.getTime() <= booking.arrival.getTime() - booking.free_cancellation_days * 86_400_000;
  // The fee each payment carried, and what those before the cancellation carried together (D).
  const fees = quoted
    ? paymentsDirham(
        minor(quoted.amount),
        minor(amountDue(booking.quote)),
        ordered.map((p) => minor(p.base)),
      )
    : [];
  const feeOf = new Map(ordered.map((p, i) => [p.id, fees[i] ?? 0n]));
  const carried = before.reduce((sum, p) => sum + (feeOf.get(p.id) ?? 0n), 0n);
  const paidBefore = before.reduce((sum, p) => sum + minor(p.base), 0n);
  // The stay's total paid (what was paid toward it first, the refundable deposit after), without the fee.
  const stayPaid = least(paidBefore, minor(booking.quote.total)) - carried;
  let keepStay =
    free || stayPaid <= 0n
      ? 0n
      : minor(percentOf(money(stayPaid), 100 - booking.late_cancellation_refund_percent, currency, 'down'));
  let keepFee = free || !quoted ? 0n : least(minor(dirhamOfNights(quoted, booking.recorded_nights, currency)), carried);
  const kept = new Map<string, { stay: bigint; fee: bigint }>();
  for (const p of before) {
    const fee = feeOf.get(p.id) ?? 0n;
    const stay = least(keepStay, minor(p.base) - fee);
    const ofFee = least(keepFee, fee);
    kept.set(p.id, { stay, fee: ofFee });
    keepStay -= stay;
    keepFee -= ofFee;
  }
  const decisions: RefundDecision[] = [];
  for (const p of payments) {
    if (p.refunded) continue;
    const late = !before.includes(p);
    const held = kept.get(p.id) ?? { stay: 0n, fee: 0n };
    const amount = held.stay + held.fee === 0n ? minor(p.charged) : minor(p.base) - held.stay - held.fee;
    if (amount <= 0n) continue;
    const reason = late || booking.cancel_reason === 'hold_expired' ? 'lapsed' : 'policy';
    const fee = quoted ? money((feeOf.get(p.id) ?? 0n) - held.fee) : null;
    decisions.push({ payment_id: p.id, amount: money(amount), reason, tourism_dirham: fee });
  }
  return decisions;
}

/** What a booking's succeeded payments paid toward what is due (card fees and rounding apart), as SQL over its id. */
export const paidSql = (bookingId: RawBuilder<string> | string) =>
  sql<string>`(select coalesce(sum(p.amount - p.card_fee - p.rounding), 0) from payments p
    where p.booking_id = ${typeof bookingId === 'string' ? sql`${bookingId}::uuid` : bookingId}
      and p.status in ('succeeded', 'refunded'))`;

/**
 * When a booking's balance, due from `at`, must be paid: `balance_due_days` before arrival (midnight of the check-in day
 * in the company's time zone), never sooner than the home's payment window after `at`; without balance_due_days,
 * within the payment window. `b` is the booking's alias, `windowHours` the home's payment window as SQL.
 */
export const balanceDeadlineSql = (b: string, at: RawBuilder<Date>, windowHours: RawBuilder<number>) => {
  const col = (name: string) => sql.ref(`${b}.${name}`);
  const window = sql<Date>`${at} + make_interval(hours => ${windowHours})`;
  return sql<Date>`case when ${col('balance_due_days')} is null then ${window}
    else greatest((${col('check_in')} - ${col('balance_due_days')})::timestamp
      at time zone (select c.time_zone from companies c where c.id = ${col('company_id')}), ${window}) end`;
};

/** Whether the booking's machine lets `from` move to `to` (or they are the same), as SQL over two text columns. */
export function bookingMoveSql(from: RawBuilder<unknown>, to: RawBuilder<unknown>): RawBuilder<boolean> {
  const pairs = (Object.entries(bookingMachine.moves) as Array<[BookingStatus, readonly BookingStatus[]]>).flatMap(([a, tos]) =>
    tos.map((b) => sql`(${a}, ${b})`),
  );
  return sql<boolean>`(${from} = ${to} or (${from}, ${to}) in (${sql.join(pairs)}))`;
}

/** Bookings whose hold (held) or payment window (confirmed) has run out at `now`: they no longer hold their nights. */
export const lapsedAt = (now: Date | RawBuilder<Date>) => (eb: ExpressionBuilder<Database, 'bookings'>) =>
  eb.or([
    eb.and([eb('status', '=', 'held'), eb('hold_expires_at', '<=', now)]),
    eb.and([eb('status', '=', 'confirmed'), eb('payment_due_at', '<=', now)]),
  ]);
