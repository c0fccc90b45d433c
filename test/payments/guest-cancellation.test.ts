import { beforeAll, describe, expect, it } from 'vitest';
import { bookingEvents, bookingRow, type Ctx, stays } from '../stay/support';
import {
  bookedHome,
  bookingPayments,
  cancelForm,
  connectStripe,
  openStay,
  payNow,
  stayCtx,
  useBookingPaymentsWorld,
} from './booking-support';
import { type Account, scheduledWorkOf, eventsNaming, otherWorld } from './support';

/**
 * The guest cancels from the stay page (issue 34): `POST /stay/{token}/cancellation` is the staff's cancellation step
 * (the booking's status machine, `booking.cancelled`) with `cancel_reason` `guest`, and the refund by the booking's
 * policy through the provider as a staff cancellation starts it; the stay page then shows the refund. Refusals
 * (cancelled already, check-in day begun, another site's form, another company's or an unknown token) change nothing.
 */
const t = useBookingPaymentsWorld();
const { w } = t;
let ctx: Ctx;
let account: Account;
const nights = stays(120);
const policy = {
  booking_deposit_percent: 20,
  deposit_confirms: true,
  free_cancellation_days: 7,
  late_cancellation_refund_percent: 50,
};

beforeAll(async () => {
  ctx = await stayCtx(w);
  account = await connectStripe(w);
});

/** Everything a refusal must leave as it was: the booking, its events, its refunds, Stripe's requests. */
async function snapshot(reference: string) {
  const row = await bookingRow(ctx, reference);
  return {
    row: { status: row.status, cancelled_at: row.cancelled_at, cancel_reason: row.cancel_reason, updated_at: row.updated_at },
    events: (await bookingEvents(ctx, reference)).map((e) => e.id),
    refunds: await w.api.db.selectFrom('payment_refunds').select(['id', 'status']).where('booking_id', '=', row.id).execute(),
    stripe: t.stripe.requests.length,
  };
}

describe('the guest cancels a paid booking within the free period', () => {
  it('cancels it as the guest, refunds everything through Stripe and shows the refund on the stay page', async () => {
    const { booking } = await bookedHome(ctx, policy, nights());
    const deposit = await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    const balance = await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    expect((await bookingRow(ctx, booking.reference)).status).toBe('paid');
    const page = await openStay(ctx, booking.stay_url);
    expect(page.text).toContain('data-cancel>Cancel my booking</button>');
    expect(page.text).toContain(`action="${new URL(booking.stay_url).pathname}/cancellation"`);
    expect(page.text).toContain('data-free-until');
    // A home without a DET class: no Tourism Dirham to name.
    expect(page.text).toContain('After that, 50% of the stay’s total paid is refunded (the refundable deposit in full).');

    const res = await cancelForm(ctx, booking.stay_url);
    expect(res.status, res.text).toBe(303);
    expect(res.headers.get('location')).toBe(new URL(booking.stay_url).pathname);
    const row = await bookingRow(ctx, booking.reference);
    expect(row).toMatchObject({ status: 'cancelled', cancel_reason: 'guest' });
    const cancelled = (await bookingEvents(ctx, booking.reference)).filter((e) => e.type === 'booking.cancelled');
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]).toMatchObject({ caused_by: 'website' });

    const refunds = await w.api.db
      .selectFrom('payment_refunds')
      .selectAll()
      .where('booking_id', '=', row.id)
      .orderBy('amount')
      .execute();
    expect(refunds.map((r) => [r.payment_id, r.amount, r.status, r.reason])).toEqual([
      [deposit.id, '600.0000', 'succeeded', 'policy'],
      [balance.id, '2400.0000', 'succeeded', 'policy'],
    ]);
    for (const refund of refunds) {
      const sent = t.stripe.requests.filter((r) => r.path === '/v1/refunds' && r.params.metadata?.refund === refund.id);
      expect(sent.map((r) => r.headers['idempotency-key'])).toEqual([refund.id]);
      expect(await eventsNaming(w, 'booking.refunded', refund.id)).toHaveLength(1);
    }
    expect((await bookingPayments(ctx, booking.reference)).map((p) => p.status)).toEqual(['refunded', 'refunded']);

    const after = await openStay(ctx, booking.stay_url);
    expect(after.text).toContain('data-status="cancelled"');
    expect(after.text).toContain('<span data-refunded>AED\u00a03,000.00</span>');
    expect(after.text).not.toContain('data-cancel');
    expect(t.stripe.problems).toEqual([]);

    // Again: refused, nothing changed (no second refund).
    const before = await snapshot(booking.reference);
    const again = await cancelForm(ctx, booking.stay_url);
    expect(again.status).toBe(409);
    expect(again.text).toContain('data-problem="invalid_transition"');
    expect(await snapshot(booking.reference)).toEqual(before);
  });

  it('refunds the policy’s percentage when cancelled within the last days, by the services’ clock', async () => {
    const { booking } = await bookedHome(ctx, policy, nights());
    const deposit = await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    // The balance an hour later (Stripe's times are in seconds: the order the policy keeps from is the payments' order).
    w.api.clock.set(new Date(Date.now() + 3_600_000));
    try {
      await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    } finally {
      w.api.clock.set(null);
    }
    const row = await bookingRow(ctx, booking.reference);
    // Three days before arrival: within the 7 days, so half of the stay's total paid (3,000) is kept, from the deposit first.
    w.api.clock.set(new Date(new Date(`${row.check_in}T00:00:00+04:00`).getTime() - 3 * 86_400_000));
    try {
      const page = await openStay(ctx, booking.stay_url);
      expect(page.text).toContain('data-cancel');
      expect(page.text).not.toContain('data-free-until');
      const res = await cancelForm(ctx, booking.stay_url);
      expect(res.status, res.text).toBe(303);
    } finally {
      w.api.clock.set(null);
    }
    const refunds = await w.api.db.selectFrom('payment_refunds').selectAll().where('booking_id', '=', row.id).execute();
    // 3,000 paid toward the stay's total of 3,000: 1,500 kept (the deposit payment's 600, then 900 of the balance's 2,400).
    expect(refunds.map((r) => [r.payment_id === deposit.id ? 'deposit' : 'balance', r.amount])).toEqual([
      ['balance', '1500.0000'],
    ]);
    const after = await openStay(ctx, booking.stay_url);
    expect(after.text).toContain('<span data-refunded>AED\u00a01,500.00</span>');
  });

  it('cancels a held booking nothing was paid for: no refund, no provider call', async () => {
    const { booking } = await bookedHome(ctx, {}, nights());
    const before = t.stripe.requests.length;
    const res = await cancelForm(ctx, booking.stay_url);
    expect(res.status, res.text).toBe(303);
    expect(await bookingRow(ctx, booking.reference)).toMatchObject({ status: 'cancelled', cancel_reason: 'guest' });
    expect(t.stripe.requests.length).toBe(before);
    const page = await openStay(ctx, booking.stay_url);
    expect(page.text).not.toContain('data-refunded');
  });

  it('keeps the refund pending when Stripe does not answer, and the page says it is on its way', async () => {
    const { booking } = await bookedHome(ctx, policy, nights());
    await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    t.stripe.state.down = true;
    try {
      const res = await cancelForm(ctx, booking.stay_url);
      expect(res.status, res.text).toBe(303);
    } finally {
      t.stripe.state.down = false;
    }
    expect((await bookingRow(ctx, booking.reference)).status).toBe('cancelled');
    const page = await openStay(ctx, booking.stay_url);
    expect(page.text).toContain('<span data-refund-pending>AED\u00a0600.00</span>');
    expect(page.text).not.toContain('data-refunded');
    // Stripe answers again: the scheduler sends it (leaving no pending refund behind), and the page shows it made.
    w.api.clock.set(new Date(Date.now() + 3_600_000));
    try {
      await scheduledWorkOf(w);
    } finally {
      w.api.clock.set(null);
    }
    const sent = await openStay(ctx, booking.stay_url);
    expect(sent.text).toContain('<span data-refunded>AED\u00a0600.00</span>');
    expect(sent.text).not.toContain('data-refund-pending');
  });
});

describe('refusals change nothing', () => {
  it('after the check-in day began', async () => {
    const { booking } = await bookedHome(ctx, policy, nights());
    await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    const row = await bookingRow(ctx, booking.reference);
    // Keep the booking holding its dates on its check-in day (its balance deadline set from the real clock).
    await w.api.db
      .updateTable('bookings')
      .set({ payment_due_at: new Date('2999-01-01') })
      .where('id', '=', row.id)
      .execute();
    const before = await snapshot(booking.reference);
    w.api.clock.set(new Date(new Date(`${row.check_in}T00:00:00+04:00`).getTime() + 60_000));
    try {
      const page = await openStay(ctx, booking.stay_url);
      expect(page.text).not.toContain('data-cancel');
      const res = await cancelForm(ctx, booking.stay_url);
      expect(res.status).toBe(409);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.text).toContain('data-problem="cancellation_closed"');
    } finally {
      w.api.clock.set(null);
    }
    expect(await snapshot(booking.reference)).toEqual(before);
  });

  it('a form sent from another site', async () => {
    const { booking } = await bookedHome(ctx, policy, nights());
    await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    const before = await snapshot(booking.reference);
    for (const sent of [
      { origin: 'https://evil.example', fetchSite: 'cross-site' },
      { origin: 'null', fetchSite: 'cross-site' },
      { origin: 'https://evil.example', fetchSite: 'same-origin' },
      // An Origin that is not a URL is another site's, never a 500.
      { origin: 'not a url', fetchSite: 'same-origin' },
      { origin: '\u00ff://', fetchSite: 'same-origin' },
    ]) {
      const res = await cancelForm(ctx, booking.stay_url, sent);
      expect(res.status, JSON.stringify(sent)).toBe(403);
      expect(res.text).toContain('data-problem="origin_not_allowed"');
    }
    expect(await snapshot(booking.reference)).toEqual(before);
    // The page's own form with its own Origin (a page without the no-referrer policy) is taken.
    const own = await cancelForm(ctx, booking.stay_url, { origin: new URL(booking.stay_url).origin });
    expect(own.status, own.text).toBe(303);
    expect((await bookingRow(ctx, booking.reference)).status).toBe('cancelled');
  });

  it('an unknown or malformed token, and another company’s token on this host: the page’s 404', async () => {
    const { booking } = await bookedHome(ctx, policy, nights());
    const before = await snapshot(booking.reference);
    const url = new URL(booking.stay_url);
    for (const token of ['A'.repeat(32), 'short']) {
      const res = await cancelForm(ctx, `${url.origin}/stay/${token}`);
      expect(res.status, token).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    }
    const other = await otherWorld(w, { environment: 'development' });
    const otherCtx = await stayCtx(other);
    const { booking: theirs } = await bookedHome(otherCtx, {}, nights());
    const res = await cancelForm(ctx, theirs.stay_url, { host: w.company.host, origin: null });
    expect(res.status).toBe(404);
    expect((await bookingRow(otherCtx, theirs.reference)).status).toBe('held');
    await other.close();
    expect(await snapshot(booking.reference)).toEqual(before);
  });
});
