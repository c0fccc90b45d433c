import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import { approvedCard } from '../support/ngenius-standin';
import { leasesOf } from '../support/world';
import {
  duePayment,
  eventsNaming,
  journalOf,
  paymentLink,
  paymentRow,
  payOnHostedPage,
  pollAt,
  refundsOf,
  scheduledWorkOf,
  useNgeniusWorld,
} from './support';

/**
 * Rent paid online through N-Genius after staff had recorded it received (issue 34): refunded in full through
 * N-Genius (the order read, then its capture refunded: test/support/ngenius-standin.ts), by the machinery the bookings
 * use, whether its webhook or the poll of open checkouts settles it; an outage leaves it pending for the scheduler's `payment_refunds` job, which sends it once; thirty simultaneous
 * webhooks make one refund. N-Genius states no fee: the journal's clearing is gross − refunds, back to 0.
 */
const { w, standin, deliver } = useNgeniusWorld({ settings: { team_module: true } });

/** A link, staff's cheque, then the tenant pays the link on N-Genius's page (no webhook yet): the ids. */
async function paidTwice() {
  const due = await duePayment(w);
  const { data: link } = await paymentLink(w, due, { return_url: 'https://www.example.com/paid', email: 'tenant@example.com' });
  if (!link) throw new Error('no link');
  const cheque = await leasesOf(w).changePayment(due, { status: 'received', cheque: { number: '000456', bank: 'Mashreq' } });
  expect(cheque.response.status, JSON.stringify(cheque.error)).toBe(200);
  await payOnHostedPage(link.url, approvedCard);
  const row = await paymentRow(w, link.payment);
  return { due, payment: link.payment, order: row.checkout_id };
}

/** The refunds N-Genius made of the order's payment. */
const providerRefunds = (order: string): unknown[] => standin.order(order)?._embedded.payment[0]?._embedded?.['cnp:refund'] ?? [];

/** One refund, in full, at N-Genius and in our records, with its one event; the cheque still the one receipt. */
async function expectRefunded(due: string, payment: string, order: string) {
  const [refund, ...more] = await refundsOf(w, payment);
  if (!refund) throw new Error('no refund');
  expect(more).toEqual([]);
  const paid = await paymentRow(w, payment);
  expect(refund).toMatchObject({ status: 'succeeded', reason: 'unapplied', booking_id: null, amount: paid.amount });
  expect(paid.status).toBe('refunded');
  expect(providerRefunds(order)).toHaveLength(1);
  expect(standin.order(order)?._embedded.payment[0]?.state).toBe('REFUNDED');
  const events = await eventsNaming(w, 'payment.refunded', payment);
  expect(events.map((e) => e.data)).toEqual([{ payment_id: payment, refund_id: refund.id, rent_payment_id: due }]);
  expect(await eventsNaming(w, 'rent_payment.received', due)).toHaveLength(1);
  return { refund, paid };
}

describe('rent paid through N-Genius after it was recorded received', () => {
  it('is refunded in full at once; the journal empties refunds due and clearing', async () => {
    const { due, payment, order } = await paidTwice();
    const res = await deliver(order, 'PURCHASED');
    expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
    const { refund, paid } = await expectRefunded(due, payment, order);
    const { entries, balances } = await journalOf(w, refund.booked_on as string);
    const gross = new Big(paid.amount).toFixed(2);
    const mine = entries.filter((e) => e.online_payment === payment && e.kind !== 'rent_received');
    expect(mine.map((e) => [e.kind, e.lines.map((l) => [l.account, l.debit, l.credit])])).toEqual([
      [
        'online_payment_unapplied',
        [
          ['payment_clearing', gross, '0.00'],
          ['refunds_due', '0.00', gross],
        ],
      ],
      [
        'online_refund',
        [
          ['refunds_due', gross, '0.00'],
          ['payment_clearing', '0.00', gross],
        ],
      ],
    ]);
    // The company's month (this file's refunds are all returned): refunds due and clearing back to 0, balanced.
    expect(balances.refunds_due).toBe('0.00');
    expect(balances.payment_clearing).toBe('0.00');
    expect(
      Object.values(balances)
        .reduce((sum, b) => sum.plus(b), new Big(0))
        .toFixed(2),
    ).toBe('0.00');
  });

  it('N-Genius down for the refund: pending; the scheduler sends it once', async () => {
    const { due, payment, order } = await paidTwice();
    standin.failNextRefunds(503);
    const res = await deliver(order, 'PURCHASED');
    expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
    const [pending] = await refundsOf(w, payment);
    expect(pending).toMatchObject({ status: 'pending', attempts: 1, reason: 'unapplied' });
    expect(providerRefunds(order)).toEqual([]);
    w.api.clock.set(new Date(Date.now() + 3_600_000));
    try {
      await scheduledWorkOf(w);
      await scheduledWorkOf(w);
    } finally {
      w.api.clock.set(null);
    }
    const { refund } = await expectRefunded(due, payment, order);
    expect(refund.attempts).toBe(2);
  });

  it('a refund made at N-Genius whose answer was lost: the retry finds it, asks no second one, and records it', async () => {
    const { due, payment, order } = await paidTwice();
    standin.failNextRefunds('lost');
    const res = await deliver(order, 'PURCHASED');
    expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
    // N-Genius refunded the payment; we did not hear it: pending.
    expect(providerRefunds(order)).toHaveLength(1);
    expect((await refundsOf(w, payment))[0]).toMatchObject({ status: 'pending', attempts: 1 });
    const asked = standin.log.filter((line) => line.startsWith('POST') && line.endsWith('/refund')).length;
    w.api.clock.set(new Date(Date.now() + 3_600_000));
    try {
      await scheduledWorkOf(w);
    } finally {
      w.api.clock.set(null);
    }
    // The retry read the order, found the refund of this amount, and asked none.
    expect(standin.log.filter((line) => line.startsWith('POST') && line.endsWith('/refund')).length).toBe(asked);
    const { refund } = await expectRefunded(due, payment, order);
    expect(refund.attempts).toBe(2);
  });

  it('a payment whose webhook never came, settled by the poll: refunded in the same scheduled run', async () => {
    const { due, payment, order } = await paidTwice();
    const report = await pollAt(w, 10);
    expect(report.settled).toBeGreaterThanOrEqual(1);
    await expectRefunded(due, payment, order);
    await pollAt(w, 20);
    expect(providerRefunds(order)).toHaveLength(1);
  });

  it('thirty simultaneous webhooks of the payment: one refund at N-Genius', async () => {
    const { due, payment, order } = await paidTwice();
    const answers = await Promise.all(Array.from({ length: 30 }, () => deliver(order, 'PURCHASED')));
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    expect(answers.filter((a) => a.json.acted === true)).toHaveLength(1);
    await expectRefunded(due, payment, order);
    expect(await eventsNaming(w, 'payment.succeeded', payment)).toHaveLength(1);
    expect(standin.refusals).toEqual([]);
  });
});
