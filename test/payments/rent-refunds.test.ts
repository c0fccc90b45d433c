import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import { leasesOf, type World, world } from '../support/world';
import {
  connectStripe,
  deliver,
  deliverEvent,
  duePayment,
  eventsNaming,
  journalOf,
  paymentLink,
  paymentRow,
  refundsOf,
  scheduledWorkOf,
  usePaymentsWorld,
} from './support';

/**
 * Rent paid online after staff had recorded it received (issue 34): the payment is no second receipt, and the money is
 * returned, in full, through the provider, by the bookings' machinery (`payment_refunds`, reason `unapplied`, the
 * refund's id as Stripe's idempotency key, the scheduler's `payment_refunds` job after an outage, `payment.refunded`
 * with ids only). The journal's `online_refund` takes it out of refunds due, never out of rent income: refunds due back
 * to 0, clearing = gross − fees − refunds. Through the Stripe stand-in (test/support/stripe-standin.ts).
 */
const t = usePaymentsWorld();

/** A company of its own (the journal's balances are its alone) with a Stripe account: a link, staff's cheque, Stripe paid. */
async function paidTwice() {
  const w = await world({ api: t.w.api, settings: { team_module: true } });
  const account = await connectStripe(w);
  const due = await duePayment(w);
  const { data: link } = await paymentLink(w, due);
  if (!link) throw new Error('no link');
  // Staff record the tenant's cheque while the link is open; the tenant then pays the link too.
  const cheque = await leasesOf(w).changePayment(due, { status: 'received', cheque: { number: '000123', bank: 'Emirates NBD' } });
  expect(cheque.response.status, JSON.stringify(cheque.error)).toBe(200);
  const row = await paymentRow(w, link.payment);
  t.stripe.pay(row.checkout_id, { feeMinor: 2_900 });
  return { w, account, due, payment: link.payment, checkout: row.checkout_id };
}

/** Stripe's refund requests made for our refund `id` (its metadata names it). */
const refundRequests = (id: string) =>
  t.stripe.requests.filter((r) => r.path === '/v1/refunds' && r.params.metadata?.refund === id);

/** The payment refunded once, in full, at Stripe and in our records, with its one event; the cheque still the one receipt. */
async function expectRefunded(w: World, due: string, payment: string) {
  const [refund, ...more] = await refundsOf(w, payment);
  if (!refund) throw new Error('no refund');
  expect(more).toEqual([]);
  const paid = await paymentRow(w, payment);
  expect(refund).toMatchObject({ status: 'succeeded', reason: 'unapplied', booking_id: null, amount: paid.amount });
  expect(paid.status).toBe('refunded');
  const requests = refundRequests(refund.id);
  // Every attempt keyed by the refund's id: one refund at Stripe, of everything charged.
  expect(new Set(requests.map((r) => r.headers['idempotency-key']))).toEqual(new Set([refund.id]));
  expect(requests.at(-1)?.params).toMatchObject({
    payment_intent: paid.provider_payment_id,
    amount: String(new Big(paid.amount).times(100).toFixed(0)),
  });
  const events = await eventsNaming(w, 'payment.refunded', payment);
  expect(events.map((e) => e.data)).toEqual([{ payment_id: payment, refund_id: refund.id, rent_payment_id: due }]);
  expect(await eventsNaming(w, 'rent_payment.received', due)).toHaveLength(1);
  return { refund, paid };
}

describe('rent paid online after it was recorded received', () => {
  it('is refunded in full through Stripe at once; the journal empties refunds due and balances', async () => {
    const { w, account, due, payment, checkout } = await paidTwice();
    const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', checkout);
    expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
    const { refund, paid } = await expectRefunded(w, due, payment);
    expect(refund.booked_on).toBe(paid.booked_on);

    const { entries, balances } = await journalOf(w, paid.booked_on as string);
    expect(entries.filter((e) => e.kind === 'rent_received' && e.payment_id === due)).toHaveLength(1);
    const gross = new Big(paid.amount).toFixed(2);
    const online = entries.find((e) => e.online_payment === payment && e.kind === 'online_payment_unapplied');
    const back = entries.find((e) => e.online_payment === payment && e.kind === 'online_refund');
    expect(online?.lines.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ['payment_clearing', gross, '0.00'],
      ['refunds_due', '0.00', gross],
      ['payment_fees', '29.00', '0.00'],
      ['payment_clearing', '0.00', '29.00'],
    ]);
    expect(back?.number).toMatch(/^RF-\d+$/);
    expect(back?.lines.map((l) => [l.account, l.debit, l.credit])).toEqual([
      ['refunds_due', gross, '0.00'],
      ['payment_clearing', '0.00', gross],
    ]);
    // The month balances; refunds due back to 0; clearing = gross − the provider's fee − the refund (Stripe keeps its
    // fee); rent income holds the cheque's receipt alone (no refund reaches it).
    expect(
      Object.values(balances)
        .reduce((sum, b) => sum.plus(b), new Big(0))
        .toFixed(2),
    ).toBe('0.00');
    expect(balances.refunds_due).toBe('0.00');
    expect(balances.payment_clearing).toBe(
      new Big(paid.amount)
        .minus(paid.fee as string)
        .minus(refund.amount)
        .toFixed(2),
    );
    expect(balances.payment_clearing).toBe('-29.00');
    const { data: rent } = await leasesOf(w).payment(due);
    expect(balances.rent_income).toBe(new Big(rent?.amount as string).toFixed(2));
    await w.close();
  });

  it('Stripe down for the refund: the payment settled, the refund pending; the scheduler sends it once', async () => {
    const { w, account, due, payment, checkout } = await paidTwice();
    t.stripe.state.refundsDown = true;
    try {
      const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', checkout);
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
    } finally {
      t.stripe.state.refundsDown = false;
    }
    const [pending] = await refundsOf(w, payment);
    expect(pending).toMatchObject({ status: 'pending', attempts: 1, reason: 'unapplied', booked_on: null });
    expect((await paymentRow(w, payment)).status).toBe('succeeded');
    expect(await eventsNaming(w, 'payment.refunded', payment)).toEqual([]);

    // The scheduler's payment_refunds job, an hour on (past the back-off): sent; run again, nothing more is asked.
    w.api.clock.set(new Date(Date.now() + 3_600_000));
    try {
      await scheduledWorkOf(w);
      await scheduledWorkOf(w);
    } finally {
      w.api.clock.set(null);
    }
    const { refund } = await expectRefunded(w, due, payment);
    // The refused attempt and the scheduler's one retry: two asks with one key, one refund.
    expect(refundRequests(refund.id)).toHaveLength(2);
    expect(refund.attempts).toBe(2);
    await w.close();
  });

  it('thirty simultaneous webhooks of the payment: one settlement, one refund asked, one payment.refunded', async () => {
    const { w, account, due, payment, checkout } = await paidTwice();
    const at = w.api.clock.now();
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => {
        const event = t.stripe.event('checkout.session.completed', checkout, at);
        return deliver(w, account, event.body, t.stripe.sign(event.body, account.secret, at));
      }),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    expect(answers.filter((a) => a.json.acted === true)).toHaveLength(1);
    const { refund } = await expectRefunded(w, due, payment);
    expect(refundRequests(refund.id)).toHaveLength(1);
    expect(await eventsNaming(w, 'payment.succeeded', payment)).toHaveLength(1);
    await w.close();
  });
});
