import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import { bookingRow, type Ctx, step, stays } from '../stay/support';
import { accounts as statementAccounts } from '../statements/support';
import { world, type World } from '../support/world';
import { bookedHome, bookingPayments, connectStripe, payForm, stayCtx, useBookingPaymentsWorld } from './booking-support';
import { newRefundId } from '../../lib/payments/refunds';
import { type Account, deliverEvent, duePayment, paymentLink, paymentRow } from './support';

/**
 * A booking's payments and refunds in the books (issue 34; docs/api-reference.md, "The accounting journal"): a deposit
 * and a balance paid from the stay page each book the gross from the provider's clearing account to what the company
 * holds for its guests (`booking_receipts`) with the provider's fee out of clearing; a late cancellation's refund books
 * on the day the provider accepted it, from booking receipts back out of clearing. For a KWD company (three digits), the
 * journal's clearing balance is gross − fees − refunds to the fils; the CSVs carry the entries once the new account is
 * mapped and ask for it when it is not.
 */
const t = useBookingPaymentsWorld();
const nights = stays(45);
const accounts = {
  ...statementAccounts,
  payment_clearing: { code: '610', name: 'Payment provider clearing' },
  payment_fees: { code: '404', name: 'Payment provider fees' },
  refunds_due: { code: '830', name: 'Refunds due to payers' },
  booking_receipts: { code: '835', name: 'Guest booking receipts' },
};

type Entry = {
  number: string;
  day: string;
  kind: string;
  narration: string;
  owner: string | null;
  online_payment: string | null;
  lines: Array<{ account: string; code: string | null; debit: string; credit: string }>;
};
type Journal = {
  entries: Entry[];
  totals: Array<{ currency: string; accounts: Array<{ account: string; debit: string; credit: string }> }>;
};

/** A Kuwaiti company (KWD, three digits; Asia/Kuwait, UTC+3) on the test API, its journal accounts mapped as given. */
async function kuwait(mapped: Record<string, { code: string; name: string }>) {
  const w = await world({
    api: t.w.api,
    company: { currency: 'KWD', time_zone: 'Asia/Kuwait', environment: 'development' },
    settings: { accounting_accounts: mapped },
  });
  const ctx = await stayCtx(w);
  const account = await connectStripe(w, { currency: 'KWD' });
  return { w, ctx, account };
}

async function journal(w: World, month: string): Promise<Journal> {
  const { data, error } = await w.client.GET('/api/v1/exports/journal', { params: { query: { month } } });
  if (!data) throw new Error(JSON.stringify(error));
  return data as unknown as Journal;
}

function csv(w: World, month: string, format: 'xero' | 'quickbooks') {
  return w.client.GET('/api/v1/exports/journal', { params: { query: { month, format } }, parseAs: 'text' });
}

/** Pays what the booking owes now from its stay page, Stripe taking `feeMinor` fils; the payment's row once settled. */
async function pay(w: World, ctx: Ctx, account: Account, stayUrl: string, reference: string, feeMinor: number) {
  const form = await payForm(ctx, stayUrl);
  expect(form.status, form.text).toBe(303);
  const location = form.headers.get('location') ?? '';
  const open = (await bookingPayments(ctx, reference)).find((p) => location.endsWith(p.checkout_id));
  if (!open) throw new Error('no payment for the checkout');
  t.stripe.pay(open.checkout_id, { at: w.api.clock.now(), feeMinor });
  const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', open.checkout_id);
  expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
  return (await bookingPayments(ctx, reference)).find((p) => p.id === open.id) as NonNullable<typeof open>;
}

/** Today's month in Kuwait (UTC+3), computed apart from lib/dates. */
const kuwaitDay = (at: Date) => new Date(at.getTime() + 3 * 3_600_000).toISOString().slice(0, 10);

/** Debits less credits of one account over entries. */
const balanceOf = (entries: Entry[], account: string) =>
  entries
    .flatMap((e) => e.lines)
    .filter((l) => l.account === account)
    .reduce((sum, l) => sum.plus(l.debit).minus(l.credit), new Big(0));

/** A deposit, the balance and a late cancellation refunded by the policy; the entries of the booking's payments. */
async function depositBalanceLateCancel(k: Awaited<ReturnType<typeof kuwait>>) {
  const { w, ctx, account } = k;
  const { booking } = await bookedHome(
    ctx,
    { booking_deposit_percent: 30, deposit_confirms: true, free_cancellation_days: 7, late_cancellation_refund_percent: 50 },
    nights(2),
    '120.125',
  );
  const deposit = await pay(w, ctx, account, booking.stay_url, booking.reference, 2_137);
  // The balance an hour later (so the policy keeps from the deposit first, as they were paid).
  w.api.clock.set(new Date(w.api.clock.now().getTime() + 3_600_000));
  let balance: Awaited<ReturnType<typeof pay>>;
  try {
    balance = await pay(w, ctx, account, booking.stay_url, booking.reference, 4_561);
  } finally {
    w.api.clock.set(null);
  }
  expect([deposit.purpose, balance.purpose]).toEqual(['booking_deposit', 'booking_balance']);
  const row = await bookingRow(ctx, booking.reference);
  const paidMonth = (deposit.booked_on as string).slice(0, 7);
  const { entries: before } = await journal(w, paidMonth);
  // Three days before arrival (Kuwait's midnight), within the 7 free days' limit: half of the stay's total is kept.
  const cancelledAt = new Date(new Date(`${row.check_in}T00:00:00+03:00`).getTime() - 3 * 86_400_000);
  w.api.clock.set(cancelledAt);
  try {
    const cancelled = await step(ctx, booking.reference, 'cancel');
    expect(cancelled.status, cancelled.text).toBe(200);
  } finally {
    w.api.clock.set(null);
  }
  const refunds = await w.api.db
    .selectFrom('payment_refunds')
    .selectAll()
    .where('booking_id', '=', row.id)
    .orderBy('entry_number')
    .execute();
  expect(refunds.length).toBeGreaterThan(0);
  // The refund books on its own day, weeks later: the month of the payments does not change.
  expect((await journal(w, paidMonth)).entries).toEqual(before);
  for (const refund of refunds) expect(refund).toMatchObject({ status: 'succeeded', reason: 'policy', currency: 'KWD' });
  return { booking, deposit, balance, refunds, cancelledAt };
}

describe('a booking paid online and refunded, in the books', () => {
  it('books the deposit, the balance and the late cancellation’s refund; clearing is gross − fees − refunds to the fils', async () => {
    const k = await kuwait(accounts);
    const { booking, deposit, balance, refunds, cancelledAt } = await depositBalanceLateCancel(k);
    const paidMonth = deposit.booked_on?.slice(0, 7) as string;
    expect(deposit.booked_on).toBe(kuwaitDay(k.w.api.clock.now()));
    const refundDay = kuwaitDay(cancelledAt);
    for (const refund of refunds) expect(refund.booked_on).toBe(refundDay);
    const months = [...new Set([paidMonth, balance.booked_on?.slice(0, 7) as string, refundDay.slice(0, 7)])];
    const all = (await Promise.all(months.map((m) => journal(k.w, m)))).flatMap((j) => j.entries);
    const ours = new Set([deposit.id, balance.id]);
    const entries = all.filter((e) => e.online_payment !== null && ours.has(e.online_payment));

    const three = (v: Big | string) => new Big(v).toFixed(3);
    for (const payment of [deposit, balance]) {
      const entry = entries.find((e) => e.kind === 'booking_payment' && e.online_payment === payment.id);
      if (!entry) throw new Error(`no entry of ${payment.id}: ${JSON.stringify(entries)}`);
      expect(entry).toMatchObject({ day: payment.booked_on, owner: null });
      expect(entry.number).toMatch(/^OP-\d+$/);
      expect(entry.narration).toContain(`booking ${booking.reference}`);
      expect(entry.narration).toContain(payment.purpose === 'booking_deposit' ? 'deposit' : 'balance');
      // Booking receipts hold the base (what the owner's line receives); Stripe's rounding to ten fils, as a card fee
      // passed on, goes to payment fees: the company bears the provider's fee.
      const base = new Big(payment.amount).minus(payment.card_fee).minus(payment.rounding);
      expect(three(payment.rounding)).toBe('0.005');
      expect(entry.lines.map((l) => [l.account, l.code, l.debit, l.credit])).toEqual([
        ['payment_clearing', '610', three(payment.amount), '0.000'],
        ['booking_receipts', '835', '0.000', three(base)],
        ['payment_fees', '404', '0.000', three(payment.rounding)],
        ['payment_fees', '404', three(payment.fee as string), '0.000'],
        ['payment_clearing', '610', '0.000', three(payment.fee as string)],
      ]);
    }
    expect([three(deposit.fee as string), three(balance.fee as string)]).toEqual(['2.137', '4.561']);
    for (const refund of refunds) {
      const entry = entries.find((e) => e.kind === 'online_refund' && e.number === `RF-${refund.entry_number}`);
      if (!entry) throw new Error(`no entry of ${refund.id}: ${JSON.stringify(entries)}`);
      expect(entry).toMatchObject({ day: refundDay, online_payment: refund.payment_id, owner: null });
      expect(entry.narration).toContain(`booking ${booking.reference}`);
      expect(entry.lines.map((l) => [l.account, l.code, l.debit, l.credit])).toEqual([
        ['booking_receipts', '835', three(refund.amount), '0.000'],
        ['payment_clearing', '610', '0.000', three(refund.amount)],
      ]);
    }
    expect(entries).toHaveLength(2 + refunds.length);

    // To the fils: the gross the guest paid, less Stripe's fees, less what was refunded, stays in clearing; what the
    // company still holds for the guest is the gross less the refunds.
    const sum = (values: Array<string | null>) => values.reduce((s, v) => s.plus(v as string), new Big(0));
    const gross = sum([deposit.amount, balance.amount]);
    const passedOn = sum([deposit.card_fee, deposit.rounding, balance.card_fee, balance.rounding]);
    const fees = sum([deposit.fee, balance.fee]);
    const refunded = sum(refunds.map((r) => r.amount));
    // 240.250 for two nights: the deposit 30% = 72.075, asked as 72.080 (Stripe's tens of fils), the balance 168.175
    // asked as 168.180; half of 240.250 kept (120.125): the deposit's base in full, 48.050 of the balance's; refunded
    // from the balance 168.175 − 48.050 (its rounding kept).
    expect([three(deposit.amount), three(balance.amount)]).toEqual(['72.080', '168.180']);
    expect(refunds.map((r) => [r.payment_id, three(r.amount)])).toEqual([[balance.id, '120.125']]);
    expect(three(balanceOf(entries, 'payment_clearing'))).toBe(three(gross.minus(fees).minus(refunded)));
    // A partial refund (less than the balance's base) returns base only: booking receipts hold the bases less it,
    // payment fees the provider's fees less the rounding the guest paid.
    expect(three(balanceOf(entries, 'booking_receipts'))).toBe(three(refunded.minus(gross.minus(passedOn))));
    expect(three(balanceOf(entries, 'payment_fees'))).toBe(three(fees.minus(passedOn)));
    for (const entry of entries)
      expect(three(entry.lines.reduce((s, l) => s.plus(l.debit).minus(l.credit), new Big(0)))).toBe('0.000');
    // Stripe's own record agrees: the payouts (net) less the refunds.
    expect(three(sum([deposit.net, balance.net]).minus(refunded))).toBe(three(gross.minus(fees).minus(refunded)));

    // The totals list booking receipts for the month that has a booking's entry.
    const { totals } = await journal(k.w, paidMonth);
    const kwd = totals.find((x) => x.currency === 'KWD');
    expect(kwd?.accounts.map((a) => a.account)).toContain('booking_receipts');

    // Xero's import (code, amount signed) and QuickBooks' (name, debit, credit): each entry's rows.
    for (const month of months) {
      const { data: xero, response } = await csv(k.w, month, 'xero');
      expect(response.status).toBe(200);
      const { data: quickbooks } = await csv(k.w, month, 'quickbooks');
      for (const entry of entries.filter((e) => e.day.slice(0, 7) === month)) {
        const xeroRows = String(xero)
          .split('\r\n')
          .filter((r) => r.startsWith(`${entry.number} `));
        expect(xeroRows.map((r) => r.split(',').slice(3, 6))).toEqual(
          entry.lines.map((l) => [l.code, 'Tax Exempt', new Big(l.debit).gt(0) ? l.debit : `-${l.credit}`]),
        );
        const qbRows = String(quickbooks)
          .split('\r\n')
          .filter((r) => r.startsWith(`${entry.number},`));
        const names = Object.fromEntries(Object.entries(accounts).map(([role, a]) => [role, a.name]));
        expect(qbRows.map((r) => r.split(',').slice(2, 5))).toEqual(
          entry.lines.map((l) => [
            names[l.account],
            new Big(l.debit).gt(0) ? l.debit : '',
            new Big(l.credit).gt(0) ? l.credit : '',
          ]),
        );
      }
    }
    await k.w.close();
  });

  it('asks for booking_receipts before a CSV of a month with a booking’s entry, and not before one without', async () => {
    const { booking_receipts: _, ...withoutBookings } = accounts;
    const k = await kuwait(withoutBookings);
    const { deposit, cancelledAt } = await depositBalanceLateCancel(k);
    for (const month of [...new Set([deposit.booked_on?.slice(0, 7) as string, kuwaitDay(cancelledAt).slice(0, 7)])]) {
      const { error, response } = await csv(k.w, month, 'xero');
      expect(response.status).toBe(409);
      expect(error).toMatchObject({ code: 'accounts_not_mapped' });
      expect(JSON.stringify(error)).toContain('booking_receipts');
      // The JSON journal names the account by its role until it is mapped.
      const { entries } = await journal(k.w, month);
      const line = entries.flatMap((e) => e.lines).find((l) => l.account === 'booking_receipts');
      expect(line).toMatchObject({ code: null });
    }
    // A month with no booking's entry (a year before) needs no booking_receipts.
    const before = `${Number(deposit.booked_on?.slice(0, 4)) - 1}${deposit.booked_on?.slice(4, 7)}`;
    const { response } = await csv(k.w, before, 'quickbooks');
    expect(response.status).toBe(200);
    await k.w.close();
  });

  it('books a rent payment’s refund from refunds due, never rent income, and needs no booking_receipts for it', async () => {
    const { booking_receipts: _, ...withoutBookings } = accounts;
    const k = await kuwait(withoutBookings);
    const due = await duePayment(k.w);
    const { data: link } = await paymentLink(k.w, due);
    if (!link) throw new Error('no link');
    const open = await paymentRow(k.w, link.payment);
    t.stripe.pay(open.checkout_id, { at: k.w.api.clock.now(), feeMinor: 1_000 });
    const { res } = await deliverEvent(k.w, t.stripe, k.account, 'checkout.session.completed', open.checkout_id);
    expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
    const paid = await paymentRow(k.w, link.payment);
    // A partial refund of an applied payment (no route makes one): the refund the provider accepted is written as lib/payments/refunds.ts
    // writes one (succeeded, booked today in the company's zone).
    const day = kuwaitDay(k.w.api.clock.now());
    await k.w.api.db
      .insertInto('payment_refunds')
      .values({
        id: newRefundId(),
        company_id: k.w.company.id,
        payment_id: paid.id,
        amount: '12.345',
        currency: 'KWD',
        reason: 'policy',
        status: 'succeeded',
        refunded_at: k.w.api.clock.now(),
        booked_on: day,
      })
      .execute();
    const { entries } = await journal(k.w, day.slice(0, 7));
    const refund = entries.find((e) => e.kind === 'online_refund' && e.online_payment === paid.id);
    expect(refund?.lines.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ['refunds_due', '12.345', '0.000'],
      ['payment_clearing', '0.000', '12.345'],
    ]);
    expect(entries.find((e) => e.kind === 'online_payment' && e.online_payment === paid.id)).toBeDefined();
    const { response } = await csv(k.w, day.slice(0, 7), 'xero');
    expect(response.status).toBe(200);
    await k.w.close();
  });
});
