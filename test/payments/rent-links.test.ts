import { beforeAll, describe, expect, it } from 'vitest';
import { leasesOf } from '../support/world';
import {
  type Account,
  connectStripe,
  deliver,
  deliverEvent,
  duePayment,
  eventsNaming,
  forgedDeliveries,
  otherWorld,
  paymentLink,
  paymentRow,
  refusals,
  usePaymentsWorld,
} from './support';

/**
 * Rent payment links and their settlement through Stripe (issue 34), as a company's server and Stripe would use
 * them: the link, the payer paying on the stand-in, Stripe's signed webhook, the rent payment received.
 */
const t = usePaymentsWorld();
const { w } = t;
let account: Account;

beforeAll(async () => {
  account = await connectStripe(w);
});

/** Today in the company's zone (Asia/Dubai, UTC+4, no daylight saving), computed apart from lib/dates. */
const dubaiToday = (at: Date) => new Date(at.getTime() + 4 * 3_600_000).toISOString().slice(0, 10);

describe('a payment link for a rent payment still due', () => {
  it('answers the checkout on Stripe for the amount due, once; Stripe was asked as its description says', async () => {
    const due = await duePayment(w);
    const { data: rent } = await leasesOf(w).payment(due);
    const first = await paymentLink(w, due, { return_url: 'https://www.example.com/paid', email: 'renter@example.com' });
    expect(first.response.status).toBe(201);
    const link = first.data as NonNullable<typeof first.data>;
    expect(link).toMatchObject({ amount: rent?.amount, currency: 'AED', card_fee: '0.00', rounding: '0.00' });
    expect(link.payment).toMatch(/^pay_[A-Za-z0-9]{24}$/);
    expect(link.url).toMatch(/^https:\/\/checkout\.stripe\.com\//);
    const row = await paymentRow(w, link.payment);
    const session = t.stripe.sessions.get(row.checkout_id);
    expect(session).toMatchObject({ client_reference_id: link.payment, metadata: { payment: link.payment } });
    expect(session?.amount_total).toBe(Math.round(Number(rent?.amount) * 100));
    expect(session?.success_url).toBe(`https://www.example.com/paid?payment=${link.payment}`);
    const create = t.stripe.requests.find((r) => r.params.client_reference_id === link.payment);
    expect(create?.headers['idempotency-key']).toBe(link.payment);

    const again = await paymentLink(w, due);
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(link);
    expect(t.stripe.problems).toEqual([]);
  });

  it('passes the card fee on where the account says (percent of the amount due)', async () => {
    const other = await otherWorld(w);
    await connectStripe(other, { cardFee: { kind: 'percent', value: '2.5' } });
    const due = await duePayment(other);
    const { data: rent } = await leasesOf(other).payment(due);
    const { data: link } = await paymentLink(other, due);
    const fee = Math.round(Number(rent?.amount) * 100 * 0.025) / 100;
    expect(Number(link?.card_fee)).toBeCloseTo(fee, 2);
    expect(Number(link?.amount)).toBeCloseTo(Number(rent?.amount) + fee, 2);
    await other.close();
  });

  it('asks a KWD company’s Stripe in tens of fils, rounded up, the amounts in three digits', async () => {
    const kuwait = await otherWorld(w, { currency: 'KWD', time_zone: 'Asia/Kuwait' });
    await connectStripe(kuwait, { currency: 'KWD' });
    const due = await duePayment(kuwait);
    const changed = await leasesOf(kuwait).changePayment(due, { amount: '300.125' });
    expect(changed.data?.amount).toBe('300.125');
    const { data: link, response } = await paymentLink(kuwait, due);
    expect(response.status).toBe(201);
    expect(link).toMatchObject({ amount: '300.130', currency: 'KWD', card_fee: '0.000', rounding: '0.005' });
    const row = await paymentRow(kuwait, link?.payment as string);
    expect(t.stripe.sessions.get(row.checkout_id)?.amount_total).toBe(300130);
    expect(t.stripe.problems).toEqual([]);
    await kuwait.close();
  });

  it('is 400 at the field for bad input, changing nothing', async () => {
    const due = await duePayment(w);
    const before = t.stripe.requests.length;
    for (const [body, path] of [
      [{ return_url: 'not a url' }, 'return_url'],
      [{ return_url: 'http://www.example.com/paid' }, 'return_url'],
      [{}, 'return_url'],
      [{ return_url: 'https://www.example.com/', email: 'nobody' }, 'email'],
      [{ return_url: 'https://www.example.com/', extra: 1 }, 'extra'],
    ] as const) {
      const { response, error } = await paymentLink(w, due, body as Record<string, unknown>);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(error?.errors?.map((e) => e.path)).toContain(path);
    }
    expect(t.stripe.requests.length).toBe(before);
  });

  it('is 404 for another company’s rent payment and for an unknown one', async () => {
    const other = await otherWorld(w);
    await connectStripe(other);
    const theirs = await duePayment(other);
    expect((await paymentLink(w, theirs)).response.status).toBe(404);
    expect((await paymentLink(w, '0b6c1f9e-4a8e-4b7e-9a51-3f2d8c7e6a10')).response.status).toBe(404);
    expect((await paymentLink(w, 'nope')).response.status).toBe(404);
    await other.close();
  });

  it('is 409 for a payment not due, naming where it may move', async () => {
    const due = await duePayment(w);
    await leasesOf(w).changePayment(due, { status: 'received' });
    const { response, error } = await paymentLink(w, due);
    expect(response.status).toBe(409);
    expect(error).toMatchObject({ code: 'invalid_transition', allowed: ['bounced'] });
  });

  it('is 409 payment_account_missing for a company with no account in its currency', async () => {
    const other = await otherWorld(w);
    const due = await duePayment(other);
    const { response, error } = await paymentLink(other, due);
    expect(response.status).toBe(409);
    expect(error?.code).toBe('payment_account_missing');
    expect(error?.type).toMatch(/\/problems\/payment_account_missing$/);
    await other.close();
  });
});

describe('settlement by Stripe’s webhook', () => {
  async function paidLink() {
    const due = await duePayment(w);
    const { data } = await paymentLink(w, due);
    const row = await paymentRow(w, data?.payment as string);
    return { due, payment: row.id, session: row.checkout_id };
  }

  it('makes the payment succeeded and the rent payment received, booked today in the company’s zone', async () => {
    const { due, payment, session } = await paidLink();
    t.stripe.pay(session, { feeMinor: 3650 });
    const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', session);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ received: true, acted: true, payment, status: 'succeeded' });
    const row = await paymentRow(w, payment);
    expect(row).toMatchObject({ status: 'succeeded', method: 'card' });
    expect(Number(row.fee)).toBe(36.5);
    expect(Number(row.net)).toBe(Number(row.amount) - 36.5);
    const { data: rent } = await leasesOf(w).payment(due);
    expect(rent).toMatchObject({ status: 'received', booked_on: dubaiToday(w.api.clock.now()) });
    expect(await eventsNaming(w, 'payment.succeeded', payment)).toHaveLength(1);
    expect(await eventsNaming(w, 'rent_payment.received', due)).toHaveLength(1);
    expect(t.stripe.problems).toEqual([]);
  });

  it('acts on an event once: a replay answers 200 and changes nothing', async () => {
    const { due, payment, session } = await paidLink();
    t.stripe.pay(session);
    const { event } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', session);
    const before = await paymentRow(w, payment);
    const replay = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', session, event.id);
    expect(replay.res.status).toBe(200);
    expect(replay.res.json).toMatchObject({ acted: false, payment, status: 'succeeded' });
    expect(await paymentRow(w, payment)).toEqual(before);
    expect(await eventsNaming(w, 'rent_payment.received', due)).toHaveLength(1);
  });

  it('30 simultaneous deliveries of one payment: one receipt, one of each event', async () => {
    const { due, payment, session } = await paidLink();
    t.stripe.pay(session);
    const at = w.api.clock.now();
    const same = t.stripe.event('checkout.session.completed', session, at);
    const deliveries = Array.from({ length: 30 }, (_, i) => {
      // Half the same event again and again, half other events about the session (Stripe's async_payment_succeeded).
      const event = i % 2 === 0 ? same : t.stripe.event('checkout.session.async_payment_succeeded', session, at);
      return deliver(w, account, event.body, t.stripe.sign(event.body, account.secret, at));
    });
    const answers = await Promise.all(deliveries);
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    expect(answers.filter((a) => a.json.acted)).toHaveLength(1);
    expect(await eventsNaming(w, 'payment.succeeded', payment)).toHaveLength(1);
    expect(await eventsNaming(w, 'rent_payment.received', due)).toHaveLength(1);
    const { data: rent } = await leasesOf(w).payment(due);
    expect(rent?.status).toBe('received');
  });

  it('a forged, altered, stale or malformed delivery changes nothing (403/400), as Stripe’s library judges it too', async () => {
    const { payment, session } = await paidLink();
    t.stripe.pay(session);
    const now = w.api.clock.now();
    const event = t.stripe.event('checkout.session.completed', session, now);
    const cases = forgedDeliveries(t.stripe, account, event.body, now);
    for (const [name, body, header] of cases) {
      const res = await deliver(w, account, body, header);
      expect(res.status, name).toBe(403);
      expect(res.json.code, name).toBe('signature_invalid');
      expect(() => t.stripe.construct(body, header, account.secret), name).toThrow();
    }
    const notJson = '{"id": "evt_1", ';
    const bad = await deliver(w, account, notJson, t.stripe.sign(notJson, account.secret, now));
    expect(bad.status).toBe(400);
    expect((await paymentRow(w, payment)).status).toBe('open');
  });

  it('a webhook naming another company’s payment changes nothing', async () => {
    const { payment, session } = await paidLink();
    t.stripe.pay(session);
    const other = await otherWorld(w);
    const theirs = await connectStripe(other);
    const at = other.api.clock.now();
    const event = t.stripe.event('checkout.session.completed', session, at);
    // Signed with the other company's own secret, sent to its own address: our payment is not its to settle.
    // raw: a provider's delivery, its bytes exactly as signed (the receiver verifies them)
    const res = await other.api.request(`/api/v1/payments/webhooks/${theirs.id}`, {
      host: other.company.host,
      method: 'POST',
      body: event.body,
      headers: { 'Stripe-Signature': t.stripe.sign(event.body, theirs.secret, at), 'Content-Type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ acted: false, payment: null });
    // Our account's address on their host is not found.
    const cross = await other.api.request(`/api/v1/payments/webhooks/${account.id}`, {
      host: other.company.host,
      method: 'POST',
      body: event.body,
      headers: { 'Stripe-Signature': t.stripe.sign(event.body, account.secret, at), 'Content-Type': 'application/json' },
    });
    expect(cross.status).toBe(404);
    expect((await paymentRow(w, payment)).status).toBe('open');
    await other.close();
  });

  it('refuses and audits an amount or currency that is not the payment’s, changing nothing', async () => {
    const { due, payment, session } = await paidLink();
    t.stripe.pay(session);
    const stored = t.stripe.sessions.get(session) as unknown as { amount_total: number };
    stored.amount_total -= 100;
    const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', session);
    expect(res.status).toBe(409);
    expect(res.json.code).toBe('payment_mismatch');
    expect((await paymentRow(w, payment)).status).toBe('open');
    expect((await leasesOf(w).payment(due)).data?.status).toBe('due');
    const audit = await refusals(w, payment);
    expect(audit).toHaveLength(1);
    expect(audit[0]?.details).toMatchObject({ reason: 'amount_mismatch' });
    stored.amount_total += 100;
  });

  it('a provider that is down: 503, nothing recorded; its retry settles', async () => {
    const { due, payment, session } = await paidLink();
    t.stripe.pay(session);
    t.stripe.state.down = true;
    const at = w.api.clock.now();
    const event = t.stripe.event('checkout.session.completed', session, at);
    try {
      const res = await deliver(w, account, event.body, t.stripe.sign(event.body, account.secret, at));
      expect(res.status).toBe(503);
      expect(res.json.code).toBe('provider_unavailable');
      expect((await paymentRow(w, payment)).status).toBe('open');
    } finally {
      t.stripe.state.down = false;
    }
    const retry = await deliver(w, account, event.body, t.stripe.sign(event.body, account.secret, w.api.clock.now()));
    expect(retry.json).toMatchObject({ acted: true, status: 'succeeded' });
    expect((await leasesOf(w).payment(due)).data?.status).toBe('received');
  });

  it('an expired checkout: payment.failed; a late success after our link lapsed still settles', async () => {
    const { payment, session } = await paidLink();
    t.stripe.expire(session);
    const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.expired', session);
    expect(res.json).toMatchObject({ acted: true, status: 'expired' });
    expect(await eventsNaming(w, 'payment.failed', payment)).toHaveLength(1);

    // A link past its time lapses when a new one is asked; then Stripe's word comes late: the payer had paid.
    const late = await paidLink();
    w.api.clock.set(new Date(Date.now() + 25 * 3_600_000));
    try {
      const { data: next } = await paymentLink(w, late.due);
      expect(next?.payment).not.toBe(late.payment);
      expect((await paymentRow(w, late.payment)).status).toBe('expired');
      expect(await eventsNaming(w, 'payment.failed', late.payment)).toHaveLength(1);
      t.stripe.pay(late.session);
      const settled = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', late.session);
      expect(settled.res.json).toMatchObject({ acted: true, payment: late.payment, status: 'succeeded' });
      expect((await leasesOf(w).payment(late.due)).data?.status).toBe('received');
    } finally {
      w.api.clock.set(null);
    }
  });
});
