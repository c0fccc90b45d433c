import { afterAll } from 'vitest';
import { type StripeStandIn, startStripeStandIn } from '../support/stripe-standin';
import { leasesOf, useWorld, type World, world } from '../support/world';

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
