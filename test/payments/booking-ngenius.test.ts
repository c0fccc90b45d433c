import { beforeAll, describe, expect, it } from 'vitest';
import { approvedCard } from '../support/ngenius-standin';
import { bookingRow, type Ctx, stays } from '../stay/support';
import { bookedHome, bookingPayments, eventTypes, openStay, payForm, stayCtx } from './booking-support';
import { eventsNaming, payOnHostedPage, pollAt, refusals, useNgeniusWorld } from './support';

/**
 * A booking paid through Network International's N-Genius (issue 34, bookings part), as a guest, N-Genius and the
 * scheduler would: the stay page's form makes the order on the stand-in (test/support/ngenius-standin.ts), the guest
 * pays on its hosted page; N-Genius never retries a webhook, so a deposit whose webhook never came is settled by the
 * poll of open checkouts (lib/payments/poll.ts), as a webhook would settle it, and run again it writes nothing more;
 * the balance's webhook, delivered several times, settles it once.
 */
const { w, standin, deliver } = useNgeniusWorld({ environment: 'development' });
let ctx: Ctx;
const nights = stays(50);

beforeAll(async () => {
  ctx = await stayCtx(w);
});

/** The stay page's pay button, then the guest's card on N-Genius's page (no webhook delivered): the payment row. */
async function payOnPage(stayUrl: string, reference: string) {
  const res = await payForm(ctx, stayUrl);
  expect(res.status, res.text).toBe(303);
  const location = res.headers.get('location') ?? '';
  expect(location.startsWith(`${standin.url}/paypage/`)).toBe(true);
  const payment = (await bookingPayments(ctx, reference)).find((p) => p.status === 'open');
  if (!payment) throw new Error('no open payment for the booking');
  const order = standin.order(payment.checkout_id);
  expect(order?._links.payment.href).toBe(location);
  await payOnHostedPage(location, approvedCard);
  return { payment, order };
}

/** The stand-in's reads of an order since `from` (its log's length then). */
const readsOf = (order: string, from: number) => standin.log.slice(from).filter((line) => line.includes(order));

describe('a booking paid through N-Genius', () => {
  it('a deposit whose webhook never came is settled by the poll: one confirmation, one of each event, run twice', async () => {
    const { booking } = await bookedHome(
      ctx,
      { booking_deposit_percent: 30, deposit_confirms: true, balance_due_days: 14, payment_window_hours: 48 },
      nights(),
    );
    const { payment, order } = await payOnPage(booking.stay_url, booking.reference);
    expect(payment).toMatchObject({ provider: 'ngenius', purpose: 'booking_deposit', amount: '900.0000', currency: 'AED' });
    // 3 nights at 1000, 30%: 900 AED, asked in fils.
    expect(order?.amount).toEqual({ currencyCode: 'AED', value: 90_000 });
    expect(order?.emailAddress).toBe((await bookingRow(ctx, booking.reference)).sent_email);
    expect((await bookingRow(ctx, booking.reference)).status).toBe('held');

    const first = await pollAt(w, 10);
    expect(first.settled).toBeGreaterThanOrEqual(1);
    expect((await bookingPayments(ctx, booking.reference))[0]).toMatchObject({ status: 'succeeded', method: 'card' });
    expect((await bookingRow(ctx, booking.reference)).status).toBe('confirmed');

    // Run again, and later: the payment is no longer open, the provider is not asked, nothing more is written.
    const reads = standin.log.length;
    await pollAt(w, 11);
    await pollAt(w, 30);
    expect(readsOf(payment.checkout_id, reads)).toEqual([]);
    expect(await eventTypes(ctx, booking.reference)).toEqual(['booking.requested', 'booking.balance_due', 'booking.confirmed']);
    expect(await eventsNaming(w, 'payment.succeeded', payment.id)).toHaveLength(1);
    const page = await openStay(ctx, booking.stay_url);
    expect(page.text).toContain('data-due-now="booking_balance">AED\u00a02,100.00</strong>');

    // The balance: its webhook comes, five times over; one settles it, the booking is paid once.
    const balance = await payOnPage(booking.stay_url, booking.reference);
    expect(balance.payment).toMatchObject({ purpose: 'booking_balance', amount: '2100.0000' });
    const answers = await Promise.all(Array.from({ length: 5 }, () => deliver(balance.payment.checkout_id, 'PURCHASED')));
    expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200));
    expect(answers.filter((a) => a.json.acted === true)).toHaveLength(1);
    expect((await bookingRow(ctx, booking.reference)).status).toBe('paid');
    // The poll finds nothing open to settle.
    await pollAt(w, 40);
    expect(await eventTypes(ctx, booking.reference)).toEqual([
      'booking.requested',
      'booking.balance_due',
      'booking.confirmed',
      'booking.paid',
    ]);
    expect(await eventsNaming(w, 'payment.succeeded', balance.payment.id)).toHaveLength(1);
    expect((await payForm(ctx, booking.stay_url)).status).toBe(409);
    expect(standin.refusals).toEqual([]);
  });

  it('a provider answering another amount: refused and audited, by the poll and by the webhook; nothing changed', async () => {
    const { booking } = await bookedHome(ctx, { booking_deposit_percent: 10, deposit_confirms: true }, nights());
    const { payment, order } = await payOnPage(booking.stay_url, booking.reference);
    if (!order) throw new Error('no order');
    const events = await w.allEvents();
    // N-Genius's state of the order says another amount than ours (300.00 AED asked).
    order.amount.value -= 100;
    try {
      const polled = await pollAt(w, 10);
      expect(polled.settled).toBe(0);
      const res = await deliver(payment.checkout_id, 'PURCHASED');
      expect(res.status).toBe(409);
      expect(res.json.code).toBe('payment_mismatch');
    } finally {
      order.amount.value += 100;
    }
    expect((await bookingRow(ctx, booking.reference)).status).toBe('held');
    // Only the poll's claim of the payment moved (its time asked).
    expect(await bookingPayments(ctx, booking.reference)).toEqual([
      { ...payment, polled_at: expect.any(Date), updated_at: expect.any(Date) },
    ]);
    expect(await w.allEvents()).toEqual(events);
    const audit = await refusals(w, payment.id);
    expect(audit).toHaveLength(2);
    expect(audit.map((a) => a.details)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ reason: 'amount_mismatch', polled: true }),
        expect.objectContaining({ reason: 'amount_mismatch', event_id: expect.any(String) }),
      ]),
    );
  });
});
