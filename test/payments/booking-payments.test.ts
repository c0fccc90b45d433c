import { beforeAll, describe, expect, it } from 'vitest';
import { bookingRow, type Ctx, putTerms, step, stays } from '../stay/support';
import {
  bookedHome,
  bookingPayments,
  connectStripe,
  eventTypes,
  openStay,
  payForm,
  payNow,
  stayCtx,
  useBookingPaymentsWorld,
} from './booking-support';
import {
  type Account,
  scheduledWorkOf,
  deliver,
  deliverEvent,
  eventsNaming,
  forgedDeliveries,
  otherWorld,
  refusals,
} from './support';

/**
 * Bookings paid online from the stay page (issue 34, bookings part), as a guest, the company's staff and Stripe would:
 * the request charges nothing; the stay page offers the deposit at once while the dates are held; a paid deposit
 * confirms the booking (or waits for staff, as the terms say); the balance is paid by its deadline; a cancellation
 * refunds by the booking's policy through the provider.
 */
const t = useBookingPaymentsWorld();
const { w } = t;
let ctx: Ctx;
let account: Account;
const nights = stays(40);

beforeAll(async () => {
  ctx = await stayCtx(w);
  account = await connectStripe(w);
});

const types = (reference: string) => eventTypes(ctx, reference);

describe('the home’s payment terms', () => {
  it('default to today’s: no deposit, everything due after staff confirm within the payment window', async () => {
    const { booking } = await bookedHome(ctx, {}, nights());
    const row = await bookingRow(ctx, booking.reference);
    expect(row).toMatchObject({
      booking_deposit: '0.0000',
      balance_due_days: null,
      deposit_confirms: false,
      free_cancellation_days: 0,
      late_cancellation_refund_percent: 100,
    });
    const page = await openStay(ctx, booking.stay_url);
    expect(page.text).not.toContain('data-pay');
    const refused = await payForm(ctx, booking.stay_url);
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('data-problem="nothing_due"');
    expect(await bookingPayments(ctx, booking.reference)).toEqual([]);
  });

  it('are refused when wrong, at the field, nothing changed', async () => {
    const { home } = await bookedHome(ctx, {}, nights());
    for (const [body, path] of [
      [{ booking_deposit_percent: 101 }, 'booking_deposit_percent'],
      [{ booking_deposit_percent: 12.5 }, 'booking_deposit_percent'],
      [{ booking_deposit_percent: 10, booking_deposit_amount: '100' }, 'booking_deposit_amount'],
      [{ booking_deposit_amount: '10.123' }, 'booking_deposit_amount'],
      [{ late_cancellation_refund_percent: -1 }, 'late_cancellation_refund_percent'],
      [{ balance_due_days: 400 }, 'balance_due_days'],
    ] as const) {
      const res = await putTerms(ctx, home, body as Record<string, unknown>);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(
        res.json.errors.map((e: { path: string }) => e.path),
        JSON.stringify(body),
      ).toContain(path);
    }
  });
});

describe('a deposit that confirms the booking', () => {
  it('is offered at once while held; paid through Stripe, it confirms the booking and makes the balance due', async () => {
    const { booking } = await bookedHome(
      ctx,
      { booking_deposit_percent: 30, deposit_confirms: true, balance_due_days: 14, payment_window_hours: 48 },
      nights(),
    );
    // 3 nights at 1000: 3000; 30% deposit: 900.
    expect(booking.quote.total).toBe('3000.00');
    const page = await openStay(ctx, booking.stay_url);
    expect(page.text).toContain('data-due-now="booking_deposit">AED\u00a0900.00</strong>');
    expect(page.text).toContain('data-pay');

    const deposit = await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    expect(deposit).toMatchObject({ purpose: 'booking_deposit', amount: '900.0000', currency: 'AED' });
    expect(t.stripe.sessions.get(deposit.checkout_id)?.amount_total).toBe(90000);

    const row = await bookingRow(ctx, booking.reference);
    expect(row.status).toBe('confirmed');
    expect(row.balance_due_at).not.toBeNull();
    expect(row.payment_due_at).not.toBeNull();
    expect(await types(booking.reference)).toEqual(['booking.requested', 'booking.balance_due', 'booking.confirmed']);
    expect(await eventsNaming(w, 'payment.succeeded', deposit.id)).toHaveLength(1);

    const after = await openStay(ctx, booking.stay_url);
    expect(after.text).toContain('data-due-now="booking_balance">AED\u00a02,100.00</strong>');
    expect(after.text).toContain('<span data-paid>AED\u00a0900.00</span>');

    const balance = await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    expect(balance).toMatchObject({ purpose: 'booking_balance', amount: '2100.0000' });
    expect((await bookingRow(ctx, booking.reference)).status).toBe('paid');
    expect(await types(booking.reference)).toEqual([
      'booking.requested',
      'booking.balance_due',
      'booking.confirmed',
      'booking.paid',
    ]);
    const none = await payForm(ctx, booking.stay_url);
    expect(none.status).toBe(409);
    expect(t.stripe.problems).toEqual([]);
  });
});

describe('a deposit that waits for staff', () => {
  it('keeps the booking held once paid; staff confirm it and the balance is due', async () => {
    const { booking } = await bookedHome(ctx, { booking_deposit_amount: '500.00', deposit_confirms: false }, nights(2));
    await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    expect((await bookingRow(ctx, booking.reference)).status).toBe('held');
    const held = await openStay(ctx, booking.stay_url);
    expect(held.text).not.toContain('data-pay');
    expect((await payForm(ctx, booking.stay_url)).status).toBe(409);

    const confirmed = await step(ctx, booking.reference, 'confirm');
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.json).toMatchObject({ status: 'confirmed' });
    expect(confirmed.json.balance_due_at).not.toBeNull();
    expect(await types(booking.reference)).toEqual(['booking.requested', 'booking.balance_due', 'booking.confirmed']);
    const page = await openStay(ctx, booking.stay_url);
    expect(page.text).toContain('data-due-now="booking_balance">AED\u00a01,500.00</strong>');
  });
});

describe('cancellations refund by the policy', () => {
  it('refunds everything when cancelled within the free period', async () => {
    const { booking } = await bookedHome(
      ctx,
      { booking_deposit_percent: 20, deposit_confirms: true, free_cancellation_days: 7, late_cancellation_refund_percent: 50 },
      nights(),
    );
    const deposit = await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    const cancelled = await step(ctx, booking.reference, 'cancel');
    expect(cancelled.status, cancelled.text).toBe(200);
    const refunds = await w.api.db.selectFrom('payment_refunds').selectAll().where('payment_id', '=', deposit.id).execute();
    expect(refunds).toHaveLength(1);
    expect(refunds[0]).toMatchObject({ amount: '600.0000', status: 'succeeded', reason: 'policy' });
    const refund = t.stripe.requests.find((r) => r.path === '/v1/refunds' && r.params.metadata?.refund === refunds[0]?.id);
    expect(refund?.params.amount).toBe('60000');
    expect(refund?.headers['idempotency-key']).toBe(refunds[0]?.id);
    expect((await bookingPayments(ctx, booking.reference))[0]?.status).toBe('refunded');
    expect(await eventsNaming(w, 'payment.refunded', deposit.id)).toHaveLength(1);
    expect(await eventsNaming(w, 'booking.refunded', refunds[0]?.id as string)).toHaveLength(1);
    const page = await openStay(ctx, booking.stay_url);
    expect(page.text).toContain('<span data-refunded>AED\u00a0600.00</span>');
    expect(t.stripe.problems).toEqual([]);
  });

  it('refunds the policy’s percentage after it, by the services’ clock', async () => {
    const { booking } = await bookedHome(
      ctx,
      { booking_deposit_percent: 20, deposit_confirms: true, free_cancellation_days: 7, late_cancellation_refund_percent: 50 },
      nights(),
    );
    const deposit = await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    const row = await bookingRow(ctx, booking.reference);
    // Three days before arrival: within the 7 days, so half of the stay's total paid is kept.
    w.api.clock.set(new Date(new Date(`${row.check_in}T00:00:00+04:00`).getTime() - 3 * 86_400_000));
    try {
      // The payment window was set from the real clock: the booking still holds its dates three days before arrival
      // only if its deadline is later; keep it so by paying within it (balance_due_days unset: 48 hours).
      await w.api.db
        .updateTable('bookings')
        .set({ payment_due_at: new Date('2999-01-01') })
        .where('id', '=', row.id)
        .execute();
      const cancelled = await step(ctx, booking.reference, 'cancel');
      expect(cancelled.status, cancelled.text).toBe(200);
    } finally {
      w.api.clock.set(null);
    }
    const refunds = await w.api.db.selectFrom('payment_refunds').selectAll().where('payment_id', '=', deposit.id).execute();
    expect(refunds[0]).toMatchObject({ amount: '300.0000', status: 'succeeded', reason: 'policy' });
    expect((await bookingPayments(ctx, booking.reference))[0]?.status).toBe('succeeded');
  });

  it('refunds a deposit paid after the hold lapsed, in full, never taking it', async () => {
    const { booking } = await bookedHome(ctx, { booking_deposit_percent: 10, deposit_confirms: true }, nights());
    const form = await payForm(ctx, booking.stay_url);
    expect(form.status).toBe(303);
    const [payment] = await bookingPayments(ctx, booking.reference);
    const row = await bookingRow(ctx, booking.reference);
    // The hold lapses and the scheduler cancels it; the guest's payment comes late.
    w.api.clock.set(new Date(new Date(row.hold_expires_at).getTime() + 60_000));
    try {
      await scheduledWorkOf(w);
      expect((await bookingRow(ctx, booking.reference)).status).toBe('cancelled');
      t.stripe.pay(payment?.checkout_id as string, { at: w.api.clock.now() });
      const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', payment?.checkout_id as string);
      expect(res.status, res.text).toBe(200);
    } finally {
      w.api.clock.set(null);
    }
    expect((await bookingRow(ctx, booking.reference)).status).toBe('cancelled');
    const refunds = await w.api.db
      .selectFrom('payment_refunds')
      .selectAll()
      .where('payment_id', '=', payment?.id as string)
      .execute();
    expect(refunds[0]).toMatchObject({ amount: '300.0000', status: 'succeeded', reason: 'lapsed' });
    expect((await bookingPayments(ctx, booking.reference))[0]?.status).toBe('refunded');
  });

  it('keeps a refund the provider could not take pending, and sends it once when it answers again', async () => {
    const { booking } = await bookedHome(ctx, { booking_deposit_percent: 10, deposit_confirms: true }, nights());
    const deposit = await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    t.stripe.state.down = true;
    try {
      const cancelled = await step(ctx, booking.reference, 'cancel');
      expect(cancelled.status, cancelled.text).toBe(200);
    } finally {
      t.stripe.state.down = false;
    }
    const pending = await w.api.db
      .selectFrom('payment_refunds')
      .selectAll()
      .where('payment_id', '=', deposit.id)
      .executeTakeFirstOrThrow();
    expect(pending).toMatchObject({ status: 'pending', attempts: 1 });
    w.api.clock.set(new Date(Date.now() + 3_600_000));
    try {
      await scheduledWorkOf(w);
      await scheduledWorkOf(w);
    } finally {
      w.api.clock.set(null);
    }
    const done = await w.api.db
      .selectFrom('payment_refunds')
      .selectAll()
      .where('payment_id', '=', deposit.id)
      .executeTakeFirstOrThrow();
    expect(done).toMatchObject({ status: 'succeeded', amount: '300.0000' });
    const accepted = t.stripe.requests.filter((r) => r.path === '/v1/refunds' && r.params.metadata?.refund === done.id);
    // Every attempt carried the refund's id as its idempotency key: Stripe made one refund.
    expect(new Set(accepted.map((r) => r.headers['idempotency-key']))).toEqual(new Set([done.id]));
    expect(await eventsNaming(w, 'payment.refunded', deposit.id)).toHaveLength(1);
  });
});

describe('attacks', () => {
  it('30 simultaneous deliveries of one payment: one payment, one confirmation', async () => {
    const { booking } = await bookedHome(ctx, { booking_deposit_percent: 10, deposit_confirms: true }, nights());
    await payForm(ctx, booking.stay_url);
    const [payment] = await bookingPayments(ctx, booking.reference);
    t.stripe.pay(payment?.checkout_id as string);
    const answers = await Promise.all(
      Array.from({ length: 30 }, () =>
        deliverEvent(w, t.stripe, account, 'checkout.session.completed', payment?.checkout_id as string),
      ),
    );
    for (const { res } of answers) expect(res.status, res.text).toBe(200);
    expect(await eventsNaming(w, 'payment.succeeded', payment?.id as string)).toHaveLength(1);
    expect(await types(booking.reference)).toEqual(['booking.requested', 'booking.balance_due', 'booking.confirmed']);
  });

  /** What an attack must leave as it was: the booking, its payments and refunds, the company's events. */
  const stateOf = async (reference: string) => {
    const payments = await bookingPayments(ctx, reference);
    const refunds = payments.length
      ? await w.api.db
          .selectFrom('payment_refunds')
          .selectAll()
          .where(
            'payment_id',
            'in',
            payments.map((p) => p.id),
          )
          .execute()
      : [];
    return { booking: await bookingRow(ctx, reference), payments, refunds, events: await w.allEvents() };
  };

  /** A held booking's deposit, paid on Stripe's page, its webhook not yet delivered. */
  async function paidDeposit() {
    const { booking } = await bookedHome(ctx, { booking_deposit_percent: 10, deposit_confirms: true }, nights());
    expect((await payForm(ctx, booking.stay_url)).status).toBe(303);
    const [payment] = await bookingPayments(ctx, booking.reference);
    if (!payment) throw new Error('no payment');
    t.stripe.pay(payment.checkout_id, { at: w.api.clock.now() });
    return { booking, payment };
  }

  it('a forged, altered, stale or unsigned webhook is 403 and changes nothing; the genuine one then confirms', async () => {
    const { booking, payment } = await paidDeposit();
    const before = await stateOf(booking.reference);
    const now = w.api.clock.now();
    const event = t.stripe.event('checkout.session.completed', payment.checkout_id, now);
    for (const [name, body, header] of forgedDeliveries(t.stripe, account, event.body, now)) {
      const res = await deliver(w, account, body, header);
      expect(res.status, name).toBe(403);
      expect(res.json.code, name).toBe('signature_invalid');
      expect(() => t.stripe.construct(body, header, account.secret), name).toThrow();
    }
    expect(await stateOf(booking.reference)).toEqual(before);
    expect(before.booking.status).toBe('held');
    // The same event, signed as Stripe signs it: the attacks were refused for what they were, not for the event.
    const genuine = await deliver(w, account, event.body, t.stripe.sign(event.body, account.secret, now));
    expect(genuine.json).toMatchObject({ acted: true, payment: payment.id, status: 'succeeded' });
    expect((await bookingRow(ctx, booking.reference)).status).toBe('confirmed');
  });

  it('a replayed webhook (its event id acted on) changes nothing, even after the booking was cancelled and refunded', async () => {
    const { booking, payment } = await paidDeposit();
    const { event } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', payment.checkout_id);
    expect((await bookingRow(ctx, booking.reference)).status).toBe('confirmed');
    const cancelled = await step(ctx, booking.reference, 'cancel');
    expect(cancelled.status, cancelled.text).toBe(200);
    const before = await stateOf(booking.reference);
    expect(before.refunds).toHaveLength(1);
    const refundsAsked = t.stripe.requests.filter((r) => r.path === '/v1/refunds').length;
    // Stripe's own bytes again, re-signed now (within the tolerance), and the same event id sent anew.
    const replay = await deliver(w, account, event.body, t.stripe.sign(event.body, account.secret, w.api.clock.now()));
    expect(replay.status).toBe(200);
    expect(replay.json).toMatchObject({ acted: false, payment: payment.id });
    const again = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', payment.checkout_id, event.id);
    expect(again.res.json).toMatchObject({ acted: false, payment: payment.id });
    expect(await stateOf(booking.reference)).toEqual(before);
    expect(before.booking.status).toBe('cancelled');
    expect(t.stripe.requests.filter((r) => r.path === '/v1/refunds').length).toBe(refundsAsked);
  });

  it('a checkout whose amount, currency or reference at Stripe is not the payment’s: 409, audited, nothing changed', async () => {
    const { booking, payment } = await paidDeposit();
    const before = await stateOf(booking.reference);
    const stored = t.stripe.sessions.get(payment.checkout_id) as unknown as Record<string, unknown> & {
      metadata: Record<string, unknown>;
    };
    const genuine: typeof stored = { ...stored, metadata: { ...stored.metadata } };
    const other = 'pay_000000000000000000000000';
    const alterations: Array<[string, Record<string, unknown>]> = [
      ['amount', { amount_total: (genuine.amount_total as number) - 100 }],
      ['currency', { currency: 'usd' }],
      ['reference', { client_reference_id: other, metadata: { ...genuine.metadata, payment: other } }],
    ];
    for (const [what, changes] of alterations) {
      Object.assign(stored, changes);
      try {
        const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', payment.checkout_id);
        expect(res.status, what).toBe(409);
        expect(res.json.code, what).toBe('payment_mismatch');
      } finally {
        Object.assign(stored, genuine);
      }
    }
    const after = await stateOf(booking.reference);
    const audit = await refusals(w, payment.id);
    expect(audit.map((a) => (a.details as { reason: string }).reason).sort()).toEqual([
      'amount_mismatch',
      'currency_mismatch',
      'reference_mismatch',
    ]);
    expect(audit.every((a) => a.actor === 'inbound:stripe')).toBe(true);
    expect(after).toEqual(before);
    // Stripe's true state settles it.
    const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', payment.checkout_id);
    expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
    expect((await bookingRow(ctx, booking.reference)).status).toBe('confirmed');
  });

  it('another company’s stay token is this host’s 404, nothing made', async () => {
    const other = await otherWorld(w, { environment: 'development' });
    const otherCtx = await stayCtx(other);
    await connectStripe(other);
    const { booking } = await bookedHome(otherCtx, { booking_deposit_percent: 10 }, nights());
    const before = t.stripe.requests.length;
    const res = await payForm(ctx, booking.stay_url, w.company.host);
    expect(res.status).toBe(404);
    expect(t.stripe.requests.length).toBe(before);
    await other.close();
  });
});

describe('three-digit currencies', () => {
  it('a KWD deposit is asked in fils, rounded up to Stripe’s tens, and settles exactly', async () => {
    const kuwait = await otherWorld(w, { currency: 'KWD', time_zone: 'Asia/Kuwait', environment: 'development' });
    const kctx = await stayCtx(kuwait);
    const kaccount = await connectStripe(kuwait, { currency: 'KWD' });
    const { booking } = await bookedHome(kctx, { booking_deposit_percent: 33, deposit_confirms: true }, nights(1), '100.125');
    // 33% of 100.125 = 33.04125 → 33.041 (half up), asked as 33.050 (Stripe's tens of fils).
    const deposit = await payNow(kctx, t.stripe, kuwait, kaccount, booking.stay_url, booking.reference);
    expect(deposit).toMatchObject({ amount: '33.0500', rounding: '0.0090', currency: 'KWD' });
    expect(t.stripe.sessions.get(deposit.checkout_id)?.amount_total).toBe(33050);
    const row = await bookingRow(kctx, booking.reference);
    expect(row).toMatchObject({ status: 'confirmed', booking_deposit: '33.0410' });
    const page = await openStay(kctx, booking.stay_url);
    expect(page.text).toContain('data-due-now="booking_balance">KWD\u00a067.084</strong>');
    await kuwait.close();
  });
});
