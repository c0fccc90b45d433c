import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import { leasesOf, world } from '../support/world';
import { accounts as statementAccounts } from '../statements/support';
import { connectStripe, deliverEvent, duePayment, eventsNaming, paymentLink, paymentRow, usePaymentsWorld } from './support';

/**
 * Online payments in the books (issue 34): the owner's statement shows rent paid online as received rent with its
 * method; the journal books the gross to the provider's clearing account, the card fee passed on as a recovery and the
 * provider's fee as an expense, leaving the payout (net) in clearing; the statement, the journal and the payment's
 * record agree to the fils. A payment taken online after staff recorded the rent by hand is not a second receipt: it
 * is booked as owed back to the payer (refunds due). A month closed before a late settlement never changes.
 */
const t = usePaymentsWorld();
const accounts = {
  ...statementAccounts,
  payment_clearing: { code: '610', name: 'Payment provider clearing' },
  payment_fees: { code: '404', name: 'Payment provider fees' },
  refunds_due: { code: '830', name: 'Refunds due to payers' },
};

type Entry = {
  number: string;
  day: string;
  kind: string;
  owner: string | null;
  payment_id: string | null;
  online_payment: string | null;
  lines: Array<{ account: string; code: string | null; debit: string; credit: string }>;
};

async function books(options: { cardFee?: { kind: 'percent'; value: string } } = {}) {
  const w = await world({ api: t.w.api, settings: { team_module: true, accounting_accounts: accounts } });
  const account = await connectStripe(w, { cardFee: options.cardFee ?? null });
  const journal = async (month: string) => {
    const { data, error } = await w.client.GET('/api/v1/exports/journal', { params: { query: { month } } });
    if (!data) throw new Error(JSON.stringify(error));
    return data as unknown as {
      entries: Entry[];
      totals: Array<{ accounts: Array<{ account: string; debit: string; credit: string }> }>;
    };
  };
  return { w, account, journal };
}

/** Today's month in Dubai (UTC+4), computed apart from lib/dates. */
const dubaiMonth = (at: Date) => new Date(at.getTime() + 4 * 3_600_000).toISOString().slice(0, 7);

describe('an online payment in the books', () => {
  it('books gross, card fee, provider fee and payout; the statement shows the receipt with its method; all agree to the fils', async () => {
    const { w, account, journal } = await books({ cardFee: { kind: 'percent', value: '2.5' } });
    const due = await duePayment(w);
    const { data: link } = await paymentLink(w, due);
    if (!link) throw new Error('no link');
    const row = await paymentRow(w, link.payment);
    t.stripe.pay(row.checkout_id, { feeMinor: 3_657 });
    const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', row.checkout_id);
    expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
    const paid = await paymentRow(w, link.payment);
    const { data: rent } = await leasesOf(w).payment(due);
    const month = dubaiMonth(w.api.clock.now());
    // Issue 35: the settlement keeps the receipt's tax as staff's receipt does (lib/rent-receipts.ts): the rent of a
    // residential home exempt; the fee out of scope, this world's company having no TRN (not registered for VAT).
    expect(rent?.tax).toEqual({ category: 'exempt', rate: null, net: rent?.amount, vat: '0.00' });
    expect(rent?.fee_tax).toEqual({ category: 'out_of_scope', rate: null, net: rent?.fee_amount, vat: '0.00' });

    const { entries } = await journal(month);
    const receipt = entries.find((e) => e.kind === 'rent_received' && e.payment_id === due);
    const online = entries.find((e) => e.kind === 'online_payment' && e.online_payment === link.payment);
    if (!receipt || !online) throw new Error(`entries missing: ${JSON.stringify(entries)}`);
    expect(online).toMatchObject({ kind: 'online_payment', day: paid.booked_on, owner: receipt.owner, payment_id: due });
    expect(online.number).toMatch(/^OP-\d+$/);
    const cardFee = new Big(paid.card_fee).plus(paid.rounding);
    expect(cardFee.gt(0)).toBe(true);
    const two = (v: Big | string) => new Big(v).toFixed(2);
    expect(online.lines.map((l) => [l.account, l.code, l.debit, l.credit])).toEqual([
      ['payment_clearing', '610', two(paid.amount), '0.00'],
      ['rent_income', '200', '0.00', rent?.amount],
      ['payment_fees', '404', '0.00', two(cardFee)],
      ['payment_fees', '404', '36.57', '0.00'],
      ['payment_clearing', '610', '0.00', '36.57'],
    ]);
    // The payment's record, the statement and the journal, to the fils: gross = rent + card fee + rounding; what stays
    // in clearing is the provider's payout.
    expect(two(paid.fee as string)).toBe('36.57');
    expect(new Big(paid.amount).minus(paid.fee as string).eq(paid.net as string)).toBe(true);
    const clearing = online.lines.filter((l) => l.account === 'payment_clearing');
    const left = clearing.reduce((sum, l) => sum.plus(l.debit).minus(l.credit), new Big(0));
    expect(two(left)).toBe(two(paid.net as string));
    const debits = online.lines.reduce((sum, l) => sum.plus(l.debit), new Big(0));
    const credits = online.lines.reduce((sum, l) => sum.plus(l.credit), new Big(0));
    expect(debits.eq(credits)).toBe(true);

    const { data: statement } = await w.client.GET('/api/v1/owner-statements', {
      params: { query: { owner: receipt.owner as string, month } },
    });
    const line = statement?.lines.find((l) => l.kind === 'rent_received' && l.payment_id === due);
    expect(line).toMatchObject({ amount: rent?.amount, method: 'card', online_payment: link.payment });
    expect(receipt).toMatchObject({ online_payment: link.payment });
    expect(receipt.lines[0]).toMatchObject({ account: 'rent_income', debit: rent?.amount });

    // Xero's import: the entry's rows, the clearing and fee accounts by code.
    const { data: csv } = await w.client.GET('/api/v1/exports/journal', {
      params: { query: { month, format: 'xero' } },
      parseAs: 'text',
    });
    const rows = String(csv)
      .split('\r\n')
      .filter((r) => r.startsWith(`${online.number} `));
    expect(rows.map((r) => r.split(',').slice(3, 6))).toEqual([
      ['610', 'Tax Exempt', two(paid.amount)],
      ['200', 'Tax Exempt', `-${rent?.amount}`],
      ['404', 'Tax Exempt', `-${two(cardFee)}`],
      ['404', 'Tax Exempt', '36.57'],
      ['610', 'Tax Exempt', '-36.57'],
    ]);
  });

  it('staff recorded the rent by hand while the link was open: the later payment is no second receipt, but refunds due', async () => {
    const { w, account, journal } = await books();
    const due = await duePayment(w);
    const { data: link } = await paymentLink(w, due);
    if (!link) throw new Error('no link');
    expect((await leasesOf(w).changePayment(due, { status: 'received' })).response.status).toBe(200);
    const row = await paymentRow(w, link.payment);
    t.stripe.pay(row.checkout_id, { feeMinor: 2_900 });
    const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', row.checkout_id);
    expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
    expect(await eventsNaming(w, 'rent_payment.received', due)).toHaveLength(1);
    const paid = await paymentRow(w, link.payment);
    const { entries } = await journal(dubaiMonth(w.api.clock.now()));
    expect(entries.filter((e) => e.kind === 'rent_received' && e.payment_id === due)).toHaveLength(1);
    const online = entries.find((e) => e.kind.startsWith('online_payment') && e.online_payment === link.payment);
    expect(online).toMatchObject({ kind: 'online_payment_unapplied', owner: null });
    expect(online?.lines.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ['payment_clearing', new Big(paid.amount).toFixed(2), '0.00'],
      ['refunds_due', '0.00', new Big(paid.amount).toFixed(2)],
      ['payment_fees', '29.00', '0.00'],
      ['payment_clearing', '0.00', '29.00'],
    ]);
  });

  it('a payment settled after its month closed books on the day it is settled: the closed month never changes', async () => {
    const { w, account, journal } = await books();
    const due = await duePayment(w);
    const { data: link } = await paymentLink(w, due);
    if (!link) throw new Error('no link');
    const row = await paymentRow(w, link.payment);
    const paidAt = w.api.clock.now();
    t.stripe.pay(row.checkout_id, { at: paidAt });
    const paidMonth = dubaiMonth(paidAt);
    const before = await journal(paidMonth);
    // Stripe's word arrives 40 days later (the month has closed): it books today.
    w.api.clock.set(new Date(paidAt.getTime() + 40 * 86_400_000));
    try {
      const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', row.checkout_id);
      expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
      const later = dubaiMonth(w.api.clock.now());
      expect(later).not.toBe(paidMonth);
      expect((await journal(paidMonth)).entries).toEqual(before.entries);
      const online = (await journal(later)).entries.find((e) => e.kind === 'online_payment' && e.online_payment === link.payment);
      expect(online?.day.slice(0, 7)).toBe(later);
    } finally {
      w.api.clock.set(null);
    }
  });
});
