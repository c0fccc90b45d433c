import { sql } from 'kysely';
import { writeAudit } from '../audit';
import { stamp } from '../clock';
import { todayIn } from '../dates';
import type { Db } from '../db/index';
import { ApiError, notFound } from '../errors';
import { type CausedBy, type EventData, eventCtes, newEventId } from '../events';
import { fromMinorUnits, minorUnits } from '../money';
import { receiptColumns, taxRatesJson } from '../rent-receipts';
import { type RentFacts, rentFactsJson, settledRentInvoice } from '../rent-invoices';
import type { TaxRate } from '../tax';
import type { TaxCategory } from '../../schema/common/tax';
import type { CompanySettings } from '../../schema/platform/db';
import { writeStatement } from '../write';
import { isUuid } from '../../schema/common/api';
import type { FeeKind } from '../../schema/leases/db';
import type { PaymentStatus } from '../../schema/platform/payments-db';
import { type PaymentsContext, providerOf } from './index';
import { type CheckoutState, ProviderRefused, ProviderUnavailable, type WebhookNotice, WebhookRefused } from './provider';
import { movableTo } from './status';
import { balanceDeadlineSql, bookingMoveSql, paidSql } from '../bookings';
import { lockedTermsCte } from '../calendar';
import { newRefundId, refundBooking, sendDueRefunds } from './refunds';
import { bookingInvoiceColumns, bookingInvoiceCtes, type BookingInvoiceRead } from './booking-invoices';

/**
 * A provider's webhook, settled (issue 34; docs/api-reference.md, "Payments"): verified with the account's secret, then
 * answered at once when its event was acted on before; else the checkout's state is read from the provider (never
 * taken from the body), checked against our payment (reference, amount, currency: a mismatch is refused, audited,
 * nothing changed), and written in ONE statement: the payment's outcome, the rent payment's receipt (lib/rent-receipts.ts,
 * as staff's PATCH writes it), the events (`payment.succeeded` and `rent_payment.received`, or `payment.failed`) and the
 * provider event's row; a rent payment no longer due (received by staff first, or cancelled) is no second receipt: its
 * payment's refund in full is decided in that statement and sent after it (lib/payments/refunds.ts). Concurrent
 * deliveries of one payment: the payment's row lock orders them, the later ones find it settled and the event's key
 * taken: one receipt, one of each event (and one refund).
 */

export type SettleContext = PaymentsContext & { timeZone: string };

export type SettleAnswer = { received: true; acted: boolean; payment: string | null; status: PaymentStatus | null };

const ignored = (payment: string | null = null, status: PaymentStatus | null = null): SettleAnswer => ({
  received: true,
  acted: false,
  payment,
  status,
});

export type Found = {
  id: string;
  status: PaymentStatus;
  amount: string;
  currency: string;
  checkout_id: string;
  purpose: string;
  rent_payment_id: string | null;
  lease_id: string | null;
  lease_reference: string | null;
  fee_kind: FeeKind | null;
  fee_value: string | null;
  /** The rent's own tax categories (its lease's, its listing's), the company's settings and the rate table (migration 0044). */
  lease_tax_category: TaxCategory | null;
  listing_tax_category: TaxCategory | null;
  company_settings: CompanySettings | null;
  tax_rates: TaxRate[];
  /** What the rent payment's tax invoice needs (lib/rent-invoices.ts), null for a booking's payment. */
  rent_facts: RentFacts | null;
  rent_amount: string | null;
  booking_id: string | null;
  booking_reference: string | null;
  listing_id: string | null;
  acted: boolean;
} & BookingInvoiceRead;

/** What a settlement reads of a payment `p` (all but `acted`), with the records {@link foundJoins} joins to it. */
export const foundColumns = sql`p.id, p.status, p.amount::text as amount, p.currency, p.checkout_id, p.purpose, p.rent_payment_id,
  r.lease_id, l.reference as lease_reference, l.fee_kind, l.fee_value::text as fee_value, r.amount::text as rent_amount,
  l.tax_category as lease_tax_category, rl.tax_category as listing_tax_category,
  (select c.settings from companies c where c.id = p.company_id) as company_settings, ${taxRatesJson} as tax_rates,
  ${rentFactsJson(sql`r.id`)} as rent_facts,
  p.booking_id, b.reference as booking_reference, b.listing_id, ${bookingInvoiceColumns}`;

/** The rent payment (`r`), its lease (`l`) and the booking (`b`) a payment `p` is for, of its own company. */
export const foundJoins = sql`left join rent_payments r on r.id = p.rent_payment_id and r.company_id = p.company_id
  left join leases l on l.id = r.lease_id
  left join listings rl on rl.id = l.listing_id
  left join bookings b on b.id = p.booking_id and b.company_id = p.company_id`;

/** The account of the path (the company's), or 404: another company's account is not found. */
async function accountOf(db: Db, companyId: string, accountId: string) {
  if (!isUuid(accountId)) throw notFound('This payment webhook address');
  const account = await db
    .selectFrom('payment_accounts')
    .selectAll()
    .where('id', '=', accountId)
    .where('company_id', '=', companyId)
    .executeTakeFirst();
  if (!account) throw notFound('This payment webhook address');
  return account;
}

/** The payment the notice names (by the account's checkout id) with its rent payment's lease fee, and whether the event was acted on. */
async function findPayment(db: Db, companyId: string, accountId: string, provider: string, notice: WebhookNotice) {
  const { rows } = await sql<Found>`
    select ${foundColumns},
      exists (select from payment_provider_events e where e.provider = ${provider} and e.event_id = ${notice.eventId}) as acted
    from (select 1) as one
    left join payments p on p.company_id = ${companyId}::uuid and p.account_id = ${accountId}::uuid
      and p.provider = ${provider} and p.checkout_id = ${notice.checkoutId}
    ${foundJoins}
  `.execute(db);
  return rows[0] as Found | (Omit<Found, 'id'> & { id: null }) | undefined;
}

/** Why the provider's state does not match our payment (null when it does). */
export function mismatch(payment: Found, state: CheckoutState): string | null {
  if (state.checkoutId !== payment.checkout_id) return 'checkout';
  if (state.reference !== payment.id) return 'reference';
  if (state.currency !== payment.currency) return 'currency';
  if (state.amountMinor !== minorUnits(payment.amount, payment.currency)) return 'amount';
  return null;
}

/** A payment's events: its id and its subject's (the rent payment's or the booking's). */
const eventData = (payment: Found): EventData =>
  payment.booking_id !== null
    ? { payment_id: payment.id, booking_id: payment.booking_id }
    : { payment_id: payment.id, rent_payment_id: payment.rent_payment_id ?? '' };

/**
 * A booking's part of a success (lib/bookings.ts), in the success's statement: the home's terms row locked first (the
 * order of every booking write), then, if the booking still holds its dates, its move by what is now paid: a held
 * booking whose terms say a paid deposit confirms it becomes confirmed (paid, when that was everything); a confirmed
 * one paid in full becomes paid; a deposit paid makes the balance due (`booking.balance_due`, its deadline the new
 * `payment_due_at`). A booking that lapsed or was cancelled is not touched: its payment is refunded (lib/payments/refunds.ts).
 */
function bookingCtes(ctx: SettleContext, payment: Found, causedBy: CausedBy) {
  const at = sql<Date>`${ctx.now.toISOString()}::timestamptz`;
  const base = sql`(select amount - card_fee - rounding from payments where id = ${payment.id})`;
  const data = {
    booking_id: payment.booking_id ?? '',
    reference: payment.booking_reference ?? '',
    listing_id: payment.listing_id ?? '',
  };
  const event = (name: string, type: 'booking.confirmed' | 'booking.paid' | 'booking.balance_due', source: string) =>
    eventCtes(name, newEventId(), { companyId: ctx.companyId, type, causedBy, data }, source);
  return [
    lockedTermsCte('terms', payment.listing_id ?? ''),
    sql`sums as (
      select b.id, b.status as was, b.deposit_confirms, b.balance_due_at,
        ${paidSql(sql`b.id`)} + ${base} >= b.total + b.deposit as all_paid,
        b.booking_deposit > 0 and ${paidSql(sql`b.id`)} + ${base} >= b.booking_deposit as deposit_paid
      from bookings b
      where b.id = ${payment.booking_id}::uuid and b.company_id = ${ctx.companyId}::uuid and exists (select from paid)
        and (b.status = 'held' and b.hold_expires_at > ${at} or b.status = 'confirmed' and b.payment_due_at > ${at})
    )`,
    sql`plan as (
      select id, was,
        case when all_paid and (was = 'confirmed' or deposit_confirms) then 'paid'
          when was = 'held' and deposit_confirms and deposit_paid then 'confirmed' else was end as becomes,
        not all_paid and deposit_paid and balance_due_at is null and (was = 'confirmed' or deposit_confirms) as balance_due
      from sums
    )`,
    sql`moved as (
      update bookings b set status = plan.becomes,
        confirmed_at = case when plan.was = 'held' and plan.becomes <> 'held' then ${at} else b.confirmed_at end,
        paid_at = case when plan.becomes = 'paid' then ${at} else b.paid_at end,
        payment_due_at = case when plan.balance_due
          then ${balanceDeadlineSql('b', at, sql<number>`(select payment_window_hours from terms)`)} else b.payment_due_at end,
        balance_due_at = case when plan.balance_due then ${at} else b.balance_due_at end,
        updated_at = ${stamp}
      from plan
      where b.id = plan.id and b.status = plan.was and ${bookingMoveSql(sql`plan.was`, sql`plan.becomes`)}
        and (plan.becomes <> plan.was or plan.balance_due) and exists (select from terms)
      returning b.id, plan.was, plan.becomes, plan.balance_due
    )`,
    sql`confirmed as (select id from moved where was = 'held')`,
    event('confirmed', 'booking.confirmed', 'confirmed'),
    sql`became_paid as (select id from moved where becomes = 'paid')`,
    event('paid_booking', 'booking.paid', 'became_paid'),
    sql`balance as (select id from moved where balance_due)`,
    event('balance', 'booking.balance_due', 'balance'),
    ...bookingInvoiceCtes(ctx.companyId, todayIn(ctx.timeZone, ctx.now), payment, causedBy),
  ];
}

/**
 * The one statement of a success: the payment, the rent payment's receipt, both events, the provider event's row. A
 * rent payment that was no longer `due` (staff recorded it received, or it was cancelled) takes no receipt: the money
 * is owed back, so the statement decides the payment's refund in full (`payment_refunds`, pending, reason `unapplied`,
 * no booking; one per payment, the unique key), which the caller sends (`owed`). `moved`: this delivery moved the payment.
 */
export async function writeSuccess(
  ctx: SettleContext,
  payment: Found,
  state: CheckoutState,
  provider: string,
  eventId: string,
  causedBy: CausedBy,
): Promise<{ moved: boolean; owed: boolean }> {
  const { currency } = payment;
  const paid = sql`paid as (
    update payments set status = 'succeeded', provider_payment_id = ${state.paymentId},
      fee = ${state.feeMinor === null ? null : fromMinorUnits(state.feeMinor, currency)}::numeric,
      net = ${state.netMinor === null ? null : fromMinorUnits(state.netMinor, currency)}::numeric,
      method = ${state.method}, paid_at = ${(state.paidAt ?? ctx.now).toISOString()}::timestamptz, updated_at = ${stamp},
      booked_on = ${todayIn(ctx.timeZone, ctx.now)}::date
    where id = ${payment.id} and company_id = ${ctx.companyId}::uuid and status in (${sql.join(movableTo('succeeded'))})
    returning id
  )`;
  const rent = payment.rent_payment_id !== null && payment.lease_id !== null && payment.rent_amount !== null;
  const tax = { timeZone: ctx.timeZone, settings: payment.company_settings, rates: payment.tax_rates };
  const receipt = rent ? receiptColumns(payment, payment.rent_amount as string, currency, tax, ctx.now) : undefined;
  // The lease first, as every write of its schedule (functions/leases/payments.ts): the two never deadlock.
  const touched = sql`touched as (
    update leases set updated_at = ${stamp}
    where id = ${payment.lease_id}::uuid and company_id = ${ctx.companyId}::uuid and exists (select from paid) returning id
  )`;
  const received =
    receipt &&
    sql`received as (
      update rent_payments set status = 'received', booked_on = ${receipt.booked_on}::date,
        fee_amount = ${receipt.fee_amount}::numeric, received_at = ${receipt.received_at.toISOString()}::timestamptz,
        tax_category = ${receipt.tax_category}, tax_rate = ${receipt.tax_rate}::numeric,
        net_amount = ${receipt.net_amount}::numeric, vat_amount = ${receipt.vat_amount}::numeric,
        fee_tax_category = ${receipt.fee_tax_category}, fee_tax_rate = ${receipt.fee_tax_rate}::numeric,
        fee_net_amount = ${receipt.fee_net_amount}::numeric, fee_vat_amount = ${receipt.fee_vat_amount}::numeric,
        rent_vat_accounted_by = ${receipt.rent_vat_accounted_by},
        updated_at = ${stamp}
      where id = ${payment.rent_payment_id}::uuid and company_id = ${ctx.companyId}::uuid and status = 'due'
        and exists (select from touched)
      returning id
    )`;
  // Paid by this delivery and no receipt made: the whole payment (its card fee and rounding too) is owed back.
  const owed =
    received &&
    sql`owed as (
      insert into payment_refunds (id, company_id, payment_id, amount, currency, reason, next_attempt_at)
      select ${newRefundId()}, p.company_id, p.id, p.amount, p.currency, 'unapplied', ${ctx.now.toISOString()}::timestamptz
      from payments p
      where p.id = ${payment.id} and exists (select from paid) and not exists (select from received)
      on conflict (payment_id) do nothing
      returning id
    )`;
  const acted = sql`acted as (
    insert into payment_provider_events (provider, event_id, company_id, payment_id)
    values (${provider}, ${eventId}, ${ctx.companyId}::uuid, ${payment.id})
    on conflict do nothing returning 1
  )`;
  // The receipt's tax invoice (lib/rent-invoices.ts, as staff's PATCH issues it), issued with the receipt or not at all.
  const invoice = receipt ? settledRentInvoice(payment, receipt, ctx.companyId, causedBy) : [];
  const succeeded = { companyId: ctx.companyId, type: 'payment.succeeded', causedBy, data: eventData(payment) } as const;
  const rentEvent = {
    companyId: ctx.companyId,
    type: 'rent_payment.received',
    causedBy,
    data: { payment_id: payment.rent_payment_id ?? '', lease_reference: payment.lease_reference ?? '' },
  } as const;
  const { rows } = await writeStatement(
    [
      paid,
      rent && touched,
      received,
      owed,
      acted,
      eventCtes('succeeded', newEventId(), succeeded, 'paid'),
      received && eventCtes('rent', newEventId(), rentEvent, 'received'),
      ...invoice,
      ...(payment.booking_id !== null && payment.listing_id !== null ? bookingCtes(ctx, payment, causedBy) : []),
    ],
    owed
      ? sql`select (select count(*) from paid)::int as paid, (select count(*) from owed)::int as owed`
      : sql`select (select count(*) from paid)::int as paid, 0 as owed`,
  ).execute(ctx.db);
  const row = rows[0] as { paid: number; owed: number } | undefined;
  return { moved: Number(row?.paid ?? 0) > 0, owed: Number(row?.owed ?? 0) > 0 };
}

/** The one statement of a failed or expired checkout: the payment closed, `payment.failed`, the provider event's row. */
export async function writeClosed(
  ctx: SettleContext,
  payment: Found,
  to: 'failed' | 'expired',
  provider: string,
  eventId: string,
  causedBy: CausedBy,
) {
  const closed = sql`closed as (
    update payments set status = ${to}, updated_at = ${stamp}
    where id = ${payment.id} and company_id = ${ctx.companyId}::uuid and status in (${sql.join(movableTo(to))})
    returning id
  )`;
  const acted = sql`acted as (
    insert into payment_provider_events (provider, event_id, company_id, payment_id)
    values (${provider}, ${eventId}, ${ctx.companyId}::uuid, ${payment.id}) on conflict do nothing returning 1
  )`;
  const failed = { companyId: ctx.companyId, type: 'payment.failed', causedBy, data: eventData(payment) } as const;
  const { rows } = await writeStatement(
    [closed, acted, eventCtes('failed', newEventId(), failed, 'closed')],
    sql`select (select count(*) from closed)::int as closed`,
  ).execute(ctx.db);
  return Number((rows[0] as { closed: number } | undefined)?.closed ?? 0) > 0;
}

/**
 * A booking's refunds decided and sent after the write that called for them: an error here never undoes that write or
 * fails its answer; what was not sent stays pending for the scheduler's `payment_refunds` job.
 */
export async function refundQuietly(ctx: Omit<PaymentsContext, 'companyId'>, bookingId: string): Promise<void> {
  try {
    await refundBooking(ctx, bookingId);
  } catch (error) {
    console.error(
      JSON.stringify({ message: 'booking refund deferred to the scheduler', booking_id: bookingId, error: String(error) }),
    );
  }
}

/**
 * The refund a settlement decided for a payment (a rent payment no longer due), sent after the write that decided it:
 * an error here never undoes that write or fails its answer; a provider that does not answer leaves it pending for the
 * scheduler's `payment_refunds` job.
 */
export async function refundPaymentQuietly(ctx: Omit<PaymentsContext, 'companyId'>, paymentId: string): Promise<void> {
  try {
    await sendDueRefunds(ctx, { paymentId });
  } catch (error) {
    console.error(
      JSON.stringify({ message: 'payment refund deferred to the scheduler', payment_id: paymentId, error: String(error) }),
    );
  }
}

/** Settles one webhook delivery to the account `accountId` of the company. */
export async function settleWebhook(
  ctx: SettleContext,
  accountId: string,
  rawBody: string,
  headers: Headers,
): Promise<SettleAnswer> {
  const row = await accountOf(ctx.db, ctx.companyId, accountId);
  const provider = await providerOf(ctx, row);
  const causedBy: CausedBy = `inbound:${row.provider}`;
  let notice: WebhookNotice;
  try {
    notice = await provider.verifyWebhook(rawBody, headers, ctx.now);
  } catch (error) {
    if (!(error instanceof WebhookRefused)) throw error;
    if (error.reason === 'body_invalid') {
      throw new ApiError('invalid_request', error.message, {
        errors: [{ path: 'body', code: error.reason, message: error.message }],
      });
    }
    throw new ApiError('signature_invalid', error.message);
  }
  if (notice.kind !== 'checkout' || notice.checkoutId === null) return ignored();
  const found = await findPayment(ctx.db, ctx.companyId, row.id, row.provider, notice);
  if (!found || found.id === null) return ignored();
  const payment = found as Found;
  if (payment.acted) return ignored(payment.id, payment.status);
  let state: CheckoutState;
  try {
    state = await provider.readCheckout(notice.checkoutId);
  } catch (error) {
    if (error instanceof ProviderUnavailable) throw new ApiError('provider_unavailable', error.message);
    if (error instanceof ProviderRefused) throw new ApiError('provider_refused', error.message);
    throw error;
  }
  const wrong = mismatch(payment, state);
  if (wrong !== null) {
    await writeAudit(ctx.db, {
      companyId: ctx.companyId,
      actor: causedBy,
      action: 'payment.refused',
      subject: payment.id,
      details: { reason: `${wrong}_mismatch`, event_id: notice.eventId, checkout_id: notice.checkoutId },
    });
    throw new ApiError('payment_mismatch', `The provider's checkout does not match the payment ${payment.id} (${wrong}).`);
  }
  if (state.status === 'open') return ignored(payment.id, payment.status);
  if (state.status === 'succeeded') {
    // The provider event's row is written whether or not this delivery moved the payment (another may have).
    const { moved: acted, owed } = await writeSuccess(ctx, payment, state, row.provider, notice.eventId, causedBy);
    // A booking cancelled before its payment came: refunded at once (lib/payments/refunds.ts; else by the scheduler).
    if (acted && payment.booking_id !== null) await refundQuietly(ctx, payment.booking_id);
    // A rent payment received before its online payment came: that payment refunded at once (else by the scheduler).
    if (owed) await refundPaymentQuietly(ctx, payment.id);
    return { received: true, acted, payment: payment.id, status: 'succeeded' };
  }
  const acted = await writeClosed(ctx, payment, state.status, row.provider, notice.eventId, causedBy);
  return { received: true, acted, payment: payment.id, status: acted ? state.status : payment.status };
}
