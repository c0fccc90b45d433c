import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { paymentJobsFor } from '../../functions/payments/jobs';
import type { PollReport } from '../../lib/payments/poll';
import { approvedCard, NgeniusStandin } from '../support/ngenius-standin';
import { type StripeStandIn, startStripeStandIn } from '../support/stripe-standin';
import { leasesOf, useWorld } from '../support/world';
import {
  accountsOf,
  connectStripe,
  duePayment,
  eventsNaming,
  otherWorld,
  paymentLink,
  paymentRow,
  payOnHostedPage,
  pollAt,
} from './support';

/**
 * The poll of open checkouts (issue 34): N-Genius never retries its webhooks, so a payment whose webhook never came is
 * settled by scheduled work that asks the provider; a lost Stripe webhook too. Run twice (or beside a webhook): one
 * receipt. Time is an input: the API's clock is moved past the poll's first few minutes.
 */
const apiKey = `ngenius-key-${randomUUID()}`;
const outlet = randomUUID();
const standin = new NgeniusStandin(apiKey, outlet);
let stripe: StripeStandIn;
const w = useWorld(async () => {
  stripe = await startStripeStandIn();
  return { env: { NGENIUS_API_BASE: await standin.listen(), STRIPE_API_BASE: stripe.url } };
});
afterAll(async () => {
  await standin.close();
  await stripe?.close();
});

beforeAll(async () => {
  const { response, error } = await accountsOf(w).add({
    provider: 'ngenius',
    currency: 'AED',
    api_key: apiKey,
    webhook_secret: `hook-${randomUUID()}`,
    outlet,
  });
  expect(response.status, JSON.stringify(error)).toBe(201);
});

describe('the poll of open checkouts', () => {
  it('settles an N-Genius payment whose webhook never came; run twice, one receipt and one of each event', async () => {
    const due = await duePayment(w);
    const { data: link } = await paymentLink(w, due, { return_url: 'https://www.example.com/paid', email: 't@example.com' });
    if (!link) throw new Error('no link');
    // Too fresh: not asked (the payer is usually still on the page).
    await pollAt(w, 1);
    expect((await paymentRow(w, link.payment)).polled_at).toBeNull();
    await payOnHostedPage(link.url, approvedCard);
    expect((await paymentRow(w, link.payment)).status).toBe('open');

    const first = await pollAt(w, 10);
    expect(first.settled).toBeGreaterThanOrEqual(1);
    expect(await paymentRow(w, link.payment)).toMatchObject({ status: 'succeeded', method: 'card' });
    expect((await leasesOf(w).payment(due)).data?.status).toBe('received');

    // Run again (and again later): nothing is open, nothing more is written.
    const reads = standin.log.length;
    await pollAt(w, 11);
    await pollAt(w, 30);
    const order = (await paymentRow(w, link.payment)).checkout_id;
    expect(standin.log.slice(reads).filter((line) => line.includes(order))).toEqual([]);
    expect(await eventsNaming(w, 'payment.succeeded', link.payment)).toHaveLength(1);
    expect(await eventsNaming(w, 'rent_payment.received', due)).toHaveLength(1);
  });

  it('asks an unpaid checkout again only every few minutes, and two overlapping runs ask it once', async () => {
    const due = await duePayment(w);
    const { data: link } = await paymentLink(w, due, { return_url: 'https://www.example.com/paid', email: 't@example.com' });
    if (!link) throw new Error('no link');
    const row = await paymentRow(w, link.payment);
    const reads = () => standin.log.filter((line) => line.includes(row.checkout_id)).length;
    const before = reads();
    w.api.clock.set(new Date(Date.now() + 10 * 60_000));
    let both: PollReport[];
    try {
      both = (
        await Promise.all([1, 2].map(() => runScheduledWork(w.api.platform.services(), paymentJobsFor([w.company.id]))))
      ).map((report) => report.payment_checkouts_poll as PollReport);
    } finally {
      w.api.clock.set(null);
    }
    expect(both.some((r) => r.asked >= 1)).toBe(true);
    expect(reads()).toBe(before + 1);
    await pollAt(w, 12);
    expect(reads()).toBe(before + 1);
    await pollAt(w, 16);
    expect(reads()).toBe(before + 2);
    expect((await paymentRow(w, link.payment)).status).toBe('open');
    // Two days on, it is no longer asked.
    await pollAt(w, 49 * 60);
    expect(reads()).toBe(before + 2);
  });

  it('settles a Stripe payment whose webhook was lost; a provider down is asked again at a later run', async () => {
    const other = await otherWorld(w);
    await connectStripe(other);
    const due = await duePayment(other);
    const { data: link } = await paymentLink(other, due);
    if (!link) throw new Error('no link');
    const row = await paymentRow(other, link.payment);
    stripe.pay(row.checkout_id, { feeMinor: 2900 });
    stripe.state.down = true;
    try {
      const down = await pollAt(other, 10);
      expect(down.unavailable).toBeGreaterThanOrEqual(1);
    } finally {
      stripe.state.down = false;
    }
    expect((await paymentRow(other, link.payment)).status).toBe('open');
    const later = await pollAt(other, 16);
    expect(later.settled).toBeGreaterThanOrEqual(1);
    expect(await paymentRow(other, link.payment)).toMatchObject({ status: 'succeeded', fee: '29.0000' });
    expect((await leasesOf(other).payment(due)).data?.status).toBe('received');
    expect(await eventsNaming(other, 'rent_payment.received', due)).toHaveLength(1);
    expect(stripe.problems).toEqual([]);
    await other.close();
  });
});
