import Big from 'big.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { runScheduledWork, scheduledJobs } from '../../functions/jobs';
import { paymentJobsFor } from '../../functions/payments/jobs';
import { ngeniusWebhookHeader } from '../../lib/payments/ngenius';
import type { PollReport } from '../../lib/payments/poll';
import { NgeniusStandin } from '../support/ngenius-standin';
import { type StripeStandIn, startStripeStandIn } from '../support/stripe-standin';
import { leasesOf, useWorld, type World, type WorldOptions, world } from '../support/world';

/**
 * The payments' tests (issue 34): a world whose API talks to the Stripe stand-in on loopback (STRIPE_API_BASE), its
 * company's Stripe account connected through the admin API, rent payments made through the lease routes, and
 * deliveries signed with Stripe's own library.
 */

export type Account = { id: string; secret: string };

export function usePaymentsWorld(env: Record<string, string> = {}): { w: World; stripe: StripeStandIn } {
  const holder = {} as { stripe: StripeStandIn };
  const w = useWorld(async () => {
    holder.stripe = await startStripeStandIn();
    return { env: { STRIPE_API_BASE: holder.stripe.url, ...env } };
  });
  afterAll(() => holder.stripe?.close());
  return {
    w,
    get stripe() {
      return holder.stripe;
    },
  };
}

/**
 * The N-Genius tests' world: its API talks to an N-Genius stand-in on loopback (NGENIUS_API_BASE,
 * test/support/ngenius-standin.ts) and, before the file's tests, its company connects an N-Genius account for AED
 * through the admin API (an outlet, an API key, the webhook header's value, each the file's own). `deliver` is
 * N-Genius's delivery of an order's event to the account's receiver, shaped as the stand-in's own deliveries (the order
 * as it stands, the custom header as set in the portal: another value given is a forgery), sent in process to the
 * company's host. `options`: the world's other options (its environment).
 */
export function useNgeniusWorld(options: Omit<WorldOptions, 'env'> = {}) {
  const apiKey = `ngenius-key-${randomUUID()}`;
  const outlet = randomUUID();
  const webhookSecret = `hook-${randomUUID()}`;
  const standin = new NgeniusStandin(apiKey, outlet);
  const w = useWorld(async () => ({ ...options, env: { NGENIUS_API_BASE: await standin.listen() } }));
  afterAll(() => standin.close());
  const account = { id: '' };
  beforeAll(async () => {
    const { data, error, response } = await accountsOf(w).add({
      provider: 'ngenius',
      currency: 'AED',
      api_key: apiKey,
      webhook_secret: webhookSecret,
      outlet,
    });
    if (response.status !== 201 || !data) throw new Error(`account not connected: ${response.status} ${JSON.stringify(error)}`);
    account.id = data.account_id;
  });
  const deliver = (orderReference: string, eventName: string, header = webhookSecret) => {
    const body = JSON.stringify({ eventId: randomUUID(), eventName, order: standin.order(orderReference) });
    // raw: a provider's delivery, its bytes exactly as sent (the receiver verifies its header)
    return w.api.request(`/api/v1/payments/webhooks/${account.id}`, {
      host: w.company.host,
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/json', [ngeniusWebhookHeader]: header },
    });
  };
  return { w, standin, apiKey, account, deliver };
}

const accountsPath = '/admin/v1/companies/{company_id}/payment-accounts';
const accountPath = '/admin/v1/companies/{company_id}/payment-accounts/{account_id}';

/** A company's payment accounts through the typed admin client (bodies cast where a test sends a wrong one on purpose). */
export function accountsOf(w: World) {
  const all = { params: { path: { company_id: w.company.id } } };
  const one = (account_id: string) => ({ params: { path: { company_id: w.company.id, account_id } } });
  return {
    add: (body: Record<string, unknown>) => w.adminClient.POST(accountsPath, { ...all, body: body as never }),
    list: () => w.adminClient.GET(accountsPath, all),
    read: (id: string) => w.adminClient.GET(accountPath, one(id)),
    change: (id: string, body: Record<string, unknown>) => w.adminClient.PATCH(accountPath, { ...one(id), body: body as never }),
    remove: (id: string) => w.adminClient.DELETE(accountPath, one(id)),
  };
}

/** Connects a Stripe account for a currency (AED, the worlds' own, unless said) (a card fee when given), through the admin API. */
export async function connectStripe(
  w: World,
  options: { currency?: string; cardFee?: { kind: 'fixed' | 'percent'; value: string } | null } = {},
): Promise<Account> {
  const secret = `whsec_${w.unique()}${w.unique()}`;
  const { data, error, response } = await accountsOf(w).add({
    provider: 'stripe',
    currency: options.currency ?? 'AED',
    api_key: `sk_test_${w.unique()}`,
    webhook_secret: secret,
    card_fee: options.cardFee ?? null,
  });
  if (response.status !== 201 || !data) throw new Error(`account not connected: ${response.status} ${JSON.stringify(error)}`);
  return { id: data.account_id, secret };
}

const pools = new WeakMap<object, string[]>();

/** A rent payment still due no other test took: the next of a world's active lease of twelve monthly payments. */
export async function duePayment(w: World): Promise<string> {
  let pool = pools.get(w.company);
  if (!pool || pool.length === 0) {
    const l = leasesOf(w);
    pool = l.paymentIds(await l.active({ schedule: { payments: 12 } }));
    pools.set(w.company, pool);
  }
  return pool.shift() as string;
}

/** POST /rent-payments/{payment_id}/payment-link through the typed client. */
export function paymentLink(
  w: World,
  paymentId: string,
  body: Record<string, unknown> = { return_url: 'https://www.example.com/paid' },
) {
  return w.client.POST('/api/v1/rent-payments/{payment_id}/payment-link', {
    params: { path: { payment_id: paymentId } },
    body: body as never,
  });
}

/** Our payment's row (the checkout id the provider gave it among others). */
export async function paymentRow(w: World, id: string) {
  return w.api.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

/** A delivery of `body` to an account's receiver, signed by Stripe's library with `secret` at `at` (or a header as given). */
export function deliver(w: World, account: Account, body: string, signature: string) {
  // raw: a provider's delivery, its bytes exactly as signed (the receiver verifies them)
  return w.api.request(`/api/v1/payments/webhooks/${account.id}`, {
    host: w.company.host,
    method: 'POST',
    body,
    headers: { 'Stripe-Signature': signature, 'Content-Type': 'application/json' },
  });
}

/** The Stripe event `type` about a session, signed at the API's now, delivered. */
export async function deliverEvent(
  w: World,
  stripe: StripeStandIn,
  account: Account,
  type: string,
  sessionId: string,
  eventId?: string,
) {
  const at = w.api.clock.now();
  const event = stripe.event(type, sessionId, at, eventId);
  return { event, res: await deliver(w, account, event.body, stripe.sign(event.body, account.secret, at)) };
}

/** Another company on the same API (and stand-in). */
export function otherWorld(w: World, company: Record<string, unknown> = {}) {
  return world({ api: w.api, company });
}

/** The company's events of `type` naming `id` in any field. */
export async function eventsNaming(w: World, type: string, id: string) {
  const all = await w.allEvents();
  return all.filter((e) => e.type === type && Object.values(e.data as Record<string, unknown>).includes(id));
}

/** What a payer does on N-Genius's hosted page (the stand-in's): opens it, posts the card; where it sends the payer back. */
export async function payOnHostedPage(pageUrl: string, card: string): Promise<string> {
  const page = await fetch(pageUrl);
  const code = /name="code" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const form = new URLSearchParams({ code, pan: card, expiry: '2029-04', cvv: '123', cardholderName: 'Test Payer' });
  const done = await fetch(new URL('/paypage/pay', pageUrl), { method: 'POST', body: form, redirect: 'manual' });
  return done.headers.get('location') ?? '';
}

/**
 * Deliveries of a Stripe event that Stripe never sent, each [name, body, Stripe-Signature]: signed with another secret,
 * its body altered after signing, signed 301 s before `now` (past the 300 s tolerance), unsigned, with no v1 signature.
 */
export function forgedDeliveries(
  stripe: StripeStandIn,
  account: Account,
  body: string,
  now: Date,
): Array<[string, string, string]> {
  return [
    ['forged', body, stripe.sign(body, 'whsec_not_the_secret', now)],
    [
      'altered',
      body.replace('"checkout.session.completed"', '"checkout.session.expired"'),
      stripe.sign(body, account.secret, now),
    ],
    ['stale', body, stripe.sign(body, account.secret, new Date(now.getTime() - 301_000))],
    ['unsigned', body, ''],
    ['no v1', body, `t=${Math.floor(now.getTime() / 1000)}`],
  ];
}

/** The audit rows of a payment's refused settlements (`payment.refused`: the provider's state did not match it). */
export function refusals(w: World, payment: string) {
  return w.api.db
    .selectFrom('audit_log')
    .selectAll()
    .where('company_id', '=', w.company.id)
    .where('action', '=', 'payment.refused')
    .where('subject', '=', payment)
    .execute();
}

/** The scheduled poll of open checkouts (lib/payments/poll.ts) with the API's clock `minutes` after the real now; its report. */
export async function pollAt(w: World, minutes: number): Promise<PollReport> {
  w.api.clock.set(new Date(Date.now() + minutes * 60_000));
  try {
    return (await runScheduledWork(w.api.platform.services(), paymentJobsFor([w.company.id])))
      .payment_checkouts_poll as PollReport;
  } finally {
    w.api.clock.set(null);
  }
}

/**
 * The scheduled work as the scheduler runs it, the payments' jobs taking only `w`'s company: on the PostgreSQL pass the
 * test files share one database and each talks to its own provider stand-in, so another file's open checkouts and
 * pending refunds are never asked of this file's stand-in (nor stamped with this file's clock).
 */
export function scheduledWorkOf(w: World) {
  const own = paymentJobsFor([w.company.id]);
  const names = new Set(own.map((job) => job.name));
  return runScheduledWork(w.api.platform.services(), [...scheduledJobs.filter((job) => !names.has(job.name)), ...own]);
}

/** A payment's refunds (`payment_refunds`; one at most). */
export function refundsOf(w: World, payment: string) {
  return w.api.db.selectFrom('payment_refunds').selectAll().where('payment_id', '=', payment).execute();
}

type JournalEntry = {
  number: string;
  kind: string;
  payment_id: string | null;
  online_payment: string | null;
  lines: Array<{ account: string; debit: string; credit: string }>;
};

/**
 * The company's journal (JSON) of the month of `day` (YYYY-MM-DD), and each account's balance over its entries (debits
 * less credits, to two digits: the AED worlds of these tests).
 */
export async function journalOf(w: World, day: string) {
  const { data, error } = await w.client.GET('/api/v1/exports/journal', { params: { query: { month: day.slice(0, 7) } } });
  if (!data) throw new Error(JSON.stringify(error));
  const entries = (data as unknown as { entries: JournalEntry[] }).entries;
  const sums = new Map<string, Big>();
  for (const line of entries.flatMap((e) => e.lines)) {
    sums.set(line.account, (sums.get(line.account) ?? new Big(0)).plus(line.debit).minus(line.credit));
  }
  const balances = Object.fromEntries([...sums].map(([account, sum]) => [account, sum.toFixed(2)]));
  return { entries, balances };
}
