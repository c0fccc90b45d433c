import { systemClock } from '../clock';
import { sha256, timingSafeEqual } from '../crypto';
import { nestsDeeperThan } from '../json-body';
import type {
  CheckoutState,
  PaymentProvider,
  ProviderAccount,
  ProviderFetch,
  RefundInput,
  RefundState,
  WebhookNotice,
} from './provider';
import { ProviderRefused, ProviderUnavailable, WebhookRefused } from './provider';

/**
 * Network International's N-Genius Online behind the one provider interface (issue 34): plain HTTP calls, no SDK
 * (Network International publishes none for servers). Every endpoint, header, field and state used here, with its
 * source and what was assumed where the published reference is silent, is in docs/formats/ngenius.md.
 */

/** The identity service's media type (docs: "Request an access token"). */
export const identityMediaType = 'application/vnd.ni-identity.v1+json';
/** The gateway's media type for orders and refunds (docs: "Create an order", "Refund a capture"). */
export const paymentMediaType = 'application/vnd.ni-payment.v2+json';
/**
 * The custom header a company sets on its N-Genius webhook (portal: Settings > Integrations > Webhooks, "Header Key");
 * its value is `ProviderAccount.webhookSecret`. N-Genius lets the merchant choose the name; the platform fixes it.
 */
export const ngeniusWebhookHeader = 'X-NGenius-Webhook-Secret';

/** A request N-Genius refused (a 4xx other than a lapsed token) or that its reference says it would refuse: our mistake. */
export class NgeniusRefused extends ProviderRefused {
  constructor(
    /** The HTTP status, or null when the adapter refused before sending. */
    status: number | null,
    message: string,
  ) {
    super('ngenius', status, message);
  }
}

export type NgeniusOptions = {
  /** The services' clock: when the cached access token lapses. */
  now?: () => Date;
  /** How long one call may take before the provider counts as unavailable. */
  timeoutMs?: number;
};

type Json = Record<string, unknown>;
type Answer = { status: number; body: Json };

/** Payment states in which the payer's money was taken (a refund later does not undo the checkout). */
const succeeded = new Set(['PURCHASED', 'CAPTURED', 'PARTIALLY_CAPTURED', 'PARTIALLY_REFUNDED', 'REFUNDED']);
/** Payment states that end an attempt without money taken. */
const failed = new Set(['FAILED', 'DECLINED', 'REVERSED']);
/** Payment states a refund can be made from (docs "Refund a capture"; ngenius-common RefundProcessor). */
const refundable = new Set(['PURCHASED', 'CAPTURED', 'PARTIALLY_CAPTURED', 'PARTIALLY_REFUNDED']);
/** Webhook events about a payment of an order (docs "Consuming web-hooks"). */
const checkoutEvents = new Set([
  'AUTHORISED',
  'DECLINED',
  'AUTHORISATION_FAILED',
  'CAPTURED',
  'CAPTURE_FAILED',
  'PURCHASED',
  'PURCHASE_DECLINED',
  'PURCHASE_FAILED',
  'PURCHASE_REVERSED',
  'FULL_AUTH_REVERSED',
  'APM_PAYMENT_ACCEPTED',
]);

/** Token lifetimes are 300 s (docs); one is renewed this long before it lapses, so no call carries a dying token. */
const tokenMarginMs = 30_000;
const referencePattern = /^[A-Za-z0-9-]{1,100}$/;

const object = (value: unknown): Json | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map(object).filter((v): v is Json => v !== null) : []);
const href = (links: unknown, rel: string): string | null => text(object(object(links)?.[rel])?.href);
const lastSegment = (url: string | null): string | null => url?.split(/[/?#]/).filter(Boolean).at(-1) ?? null;

/**
 * Our payment ids (`pay_…`) as a `merchantOrderReference`, which N-Genius accepts in letters, digits and hyphens only
 * (docs "List of order input attributes"): `_` becomes `-`, and back on reading. Ids holding a hyphen cannot round-trip.
 */
export function toMerchantReference(reference: string): string {
  if (!/^[A-Za-z0-9_]{1,100}$/.test(reference)) {
    throw new NgeniusRefused(
      null,
      `N-Genius takes letters, digits and hyphens as an order reference; ${reference} cannot be sent.`,
    );
  }
  return reference.replaceAll('_', '-');
}

export function fromMerchantReference(merchantReference: string | null): string | null {
  return merchantReference === null ? null : merchantReference.replaceAll('-', '_');
}

const paymentIdOf = (payment: Json): string | null =>
  text(payment.reference) ?? text(payment._id)?.replace(/^urn:payment:/, '') ?? null;

function amountOf(holder: Json | null): { value: number; currency: string } | null {
  const amount = object(holder?.amount);
  const value = amount?.value;
  const currency = text(amount?.currencyCode);
  return typeof value === 'number' && Number.isSafeInteger(value) && currency ? { value, currency } : null;
}

/** The order's payment attempts, oldest first (`_embedded.payment`, docs "Retrieve order status"). */
const paymentsOf = (order: Json): Json[] => list(object(order._embedded)?.payment);

/** How the payer paid: a card (a masked PAN, or a card scheme's name) or the wallet or method N-Genius names. */
function methodOf(payment: Json): string | null {
  const method = object(payment.paymentMethod);
  if (!method) return null;
  if (text(method.pan)) return 'card';
  return text(method.name)?.toLowerCase() ?? null;
}

/** The checkout's state from the order: succeeded once any attempt took the money; failed when the last attempt ended. */
export function checkoutStateOf(order: Json): CheckoutState {
  const checkoutId = text(order.reference);
  const amount = amountOf(order);
  if (!checkoutId || !amount)
    throw new ProviderUnavailable('ngenius', null, 'N-Genius answered with an order without reference or amount.');
  const payments = paymentsOf(order);
  const paid = payments.find((p) => succeeded.has(text(p.state) ?? ''));
  const last = payments.at(-1);
  const status = paid ? 'succeeded' : last && failed.has(text(last.state) ?? '') ? 'failed' : 'open';
  const updated = paid ? text(paid.updateDateTime) : null;
  return {
    checkoutId,
    status,
    reference: fromMerchantReference(text(order.merchantOrderReference)),
    amountMinor: amount.value,
    currency: amount.currency,
    paymentId: paid ? paymentIdOf(paid) : null,
    feeMinor: null,
    netMinor: null,
    paidAt: updated && !Number.isNaN(Date.parse(updated)) ? new Date(updated) : null,
    method: paid ? methodOf(paid) : null,
  };
}

/** A refund's id and state from the payment N-Genius answers with: its newest `cnp:refund` (ngenius-common TransactionProcessor). */
function refundStateOf(payment: Json, input: RefundInput): RefundState {
  const refund = list(object(payment._embedded)?.['cnp:refund']).at(-1);
  const refundState = text(refund?.state);
  const amount = amountOf(refund ?? null) ?? { value: input.amountMinor, currency: input.currency };
  const refundId = lastSegment(href(refund?._links, 'self')) ?? `${input.paymentId}:${input.reference}`;
  const paymentState = text(payment.state) ?? '';
  const status =
    refundState === 'SUCCESS' || (!refund && (paymentState === 'REFUNDED' || paymentState === 'PARTIALLY_REFUNDED'))
      ? 'succeeded'
      : refundState === 'FAILURE' || refundState === 'FAILED'
        ? 'failed'
        : 'pending';
  return { refundId, status, amountMinor: amount.value, currency: amount.currency };
}

/** The webhook's order reference and event, read from a body already checked for depth. */
function noticeOf(body: unknown, outlet: string | null): WebhookNotice {
  const root = object(body);
  const eventName = text(root?.eventName);
  const order = object(root?.order);
  const orderReference = text(order?.reference);
  if (!eventName || !/^[A-Z0-9_]{1,64}$/.test(eventName) || !order || !orderReference || !referencePattern.test(orderReference)) {
    throw new WebhookRefused('body_invalid', 'The N-Genius webhook names no event or no order.');
  }
  const orderOutlet = text(order.outletId);
  if (outlet && orderOutlet && orderOutlet !== outlet) {
    throw new WebhookRefused('body_invalid', 'The N-Genius webhook is about another outlet’s order.');
  }
  const payment = paymentsOf(order).at(-1);
  const given = text(root?.eventId);
  const eventId =
    given && given.length <= 200 ? given : `ngenius:${orderReference}:${eventName}:${text(payment?.state) ?? 'none'}`;
  if (eventName.includes('REFUND')) {
    const refund = payment ? list(object(payment._embedded)?.['cnp:refund']).at(-1) : undefined;
    return { eventId, kind: 'refund', checkoutId: orderReference, refundId: lastSegment(href(refund?._links, 'self')) };
  }
  return { eventId, kind: checkoutEvents.has(eventName) ? 'checkout' : 'ignored', checkoutId: orderReference, refundId: null };
}

/** The first N-Genius error message of an answer (`errors[].message`, else `message`), for our own error. */
function problemOf(body: Json): string {
  const first = list(body.errors)[0];
  return text(first?.message) ?? text(body.message) ?? 'no reason given';
}

export function ngeniusProvider(account: ProviderAccount, send: ProviderFetch, options: NgeniusOptions = {}): PaymentProvider {
  const now = options.now ?? systemClock;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const base = account.baseUrl.replace(/\/+$/, '');
  const origin = new URL(base).origin;
  let cached: { token: string; until: number } | null = null;
  let pending: Promise<string> | null = null;

  const unavailable = (status: number | null, what: string) =>
    new ProviderUnavailable('ngenius', status, `N-Genius ${status === null ? 'did not answer' : `answered ${status}`} ${what}.`);

  /** One HTTP exchange: a JSON answer bounded in depth; no answer in time, or a 5xx/429, is the provider unavailable. */
  async function exchange(url: string, init: RequestInit, what: string): Promise<Answer> {
    let status: number;
    let raw: string;
    try {
      const response = await send(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
      status = response.status;
      raw = await response.text();
    } catch {
      throw unavailable(null, what);
    }
    if (status >= 500 || status === 429 || status === 408) throw unavailable(status, what);
    const bytes = new TextEncoder().encode(raw);
    if (nestsDeeperThan(bytes)) throw unavailable(status, `${what} (an answer nested too deep)`);
    let body: Json = {};
    if (raw.trim() !== '') {
      try {
        body = object(JSON.parse(raw)) ?? {};
      } catch {
        if (status < 400) throw unavailable(status, `${what} (an answer that is not JSON)`);
      }
    }
    return { status, body };
  }

  async function newToken(): Promise<string> {
    const asked = now().getTime();
    const answer = await exchange(
      `${base}/identity/auth/access-token`,
      {
        method: 'POST',
        headers: { authorization: `Basic ${account.apiKey}`, 'content-type': identityMediaType, accept: identityMediaType },
      },
      'to the access token request',
    );
    if (answer.status >= 400) {
      throw new NgeniusRefused(
        answer.status,
        `N-Genius refused the service account's API key (${answer.status}): ${problemOf(answer.body)}`,
      );
    }
    const token = text(answer.body.access_token);
    const lifetime = answer.body.expires_in;
    if (!token || typeof lifetime !== 'number') throw unavailable(answer.status, 'to the access token request without a token');
    cached = { token, until: asked + Math.max(0, lifetime * 1000 - tokenMarginMs) };
    return token;
  }

  /** The access token: the cached one until it lapses (by the services' clock), else one new one for all waiting calls. */
  function accessToken(): Promise<string> {
    if (cached && now().getTime() < cached.until) return Promise.resolve(cached.token);
    pending ??= newToken().finally(() => {
      pending = null;
    });
    return pending;
  }

  /** A gateway call with the bearer token; a 401 (a token revoked or lapsed early) is retried once with a new token. */
  async function gateway(method: 'GET' | 'POST', url: string, what: string, payload?: Json): Promise<Json> {
    for (let attempt = 0; ; attempt++) {
      const token = await accessToken();
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: paymentMediaType };
      if (payload) headers['content-type'] = paymentMediaType;
      const answer = await exchange(url, { method, headers, body: payload ? JSON.stringify(payload) : undefined }, what);
      if (answer.status === 401 && attempt === 0) {
        if (cached?.token === token) cached = null;
        continue;
      }
      if (answer.status >= 400)
        throw new NgeniusRefused(answer.status, `N-Genius refused ${what} (${answer.status}): ${problemOf(answer.body)}`);
      return answer.body;
    }
  }

  const ordersUrl = () => {
    if (!account.outlet) throw new NgeniusRefused(null, 'An N-Genius account needs its outlet reference.');
    return `${base}/transactions/outlets/${encodeURIComponent(account.outlet)}/orders`;
  };
  const orderUrl = (checkoutId: string) => {
    if (!referencePattern.test(checkoutId)) throw new NgeniusRefused(null, `${checkoutId} is not an N-Genius order reference.`);
    return `${ordersUrl()}/${checkoutId}`;
  };
  /** A link from an answer is followed only on the API's own origin: the bearer token never goes elsewhere. */
  const ownLink = (url: string | null): string | null => {
    try {
      return url && new URL(url).origin === origin ? url : null;
    } catch {
      return null;
    }
  };

  return {
    name: 'ngenius',

    async createCheckout(input) {
      if (!Number.isSafeInteger(input.amountMinor) || input.amountMinor <= 0 || !/^[A-Z]{3}$/.test(input.currency)) {
        throw new NgeniusRefused(
          null,
          'An N-Genius order takes a positive whole amount in minor units and an ISO 4217 currency.',
        );
      }
      // The payer's email is one of the order's mandatory fields (docs "Create an order").
      if (!input.email) throw new NgeniusRefused(null, 'An N-Genius order needs the payer’s email address.');
      const order = await gateway('POST', ordersUrl(), 'to create an order', {
        action: 'PURCHASE',
        amount: { currencyCode: input.currency, value: input.amountMinor },
        emailAddress: input.email,
        merchantOrderReference: toMerchantReference(input.reference),
        merchantAttributes: { redirectUrl: input.successUrl, cancelUrl: input.cancelUrl, skipConfirmationPage: true },
      });
      const checkoutId = text(order.reference);
      const url = href(order._links, 'payment');
      if (!checkoutId || !url) throw unavailable(201, 'to an order without its reference or payment page');
      return { checkoutId, url, expiresAt: null };
    },

    async readCheckout(checkoutId) {
      return checkoutStateOf(await gateway('GET', orderUrl(checkoutId), 'to read an order'));
    },

    async refund(input) {
      if (!Number.isSafeInteger(input.amountMinor) || input.amountMinor <= 0) {
        throw new NgeniusRefused(null, 'An N-Genius refund takes a positive whole amount in minor units.');
      }
      const order = await gateway('GET', orderUrl(input.checkoutId), 'to read an order before a refund');
      const payment = paymentsOf(order).find((p) => paymentIdOf(p) === input.paymentId);
      if (!payment) throw new NgeniusRefused(null, `Order ${input.checkoutId} has no payment ${input.paymentId}.`);
      // N-Genius takes no idempotency key: a refund whose answer was lost (a timeout, a 5xx after the fact) is found on
      // the order when it is asked again. We ask at most one refund of a payment (payment_refunds' unique key), so a
      // refund of exactly this amount already on it is ours: answered as made, never asked twice.
      const made = list(object(payment._embedded)?.['cnp:refund']).find((r) => {
        const amount = amountOf(r);
        return amount?.value === input.amountMinor && amount.currency === input.currency;
      });
      if (made) return refundStateOf({ ...payment, _embedded: { 'cnp:refund': [made] } }, input);
      const state = text(payment.state) ?? '';
      if (!refundable.has(state))
        throw new NgeniusRefused(null, `Payment ${input.paymentId} is ${state}: nothing captured to refund.`);
      const capture = list(object(payment._embedded)?.['cnp:capture']).at(-1);
      const captureSelf = ownLink(href(capture?._links, 'self'));
      const captureId = lastSegment(href(capture?._links, 'self'));
      const url =
        ownLink(href(payment._links, 'cnp:refund')) ??
        ownLink(href(capture?._links, 'cnp:refund')) ??
        (captureSelf ? `${captureSelf}/refund` : null) ??
        (captureId ? `${orderUrl(input.checkoutId)}/payments/${input.paymentId}/captures/${captureId}/refund` : null);
      if (!url) throw new NgeniusRefused(null, `Payment ${input.paymentId} shows no capture to refund.`);
      const answer = await gateway('POST', url, 'a refund', {
        amount: { currencyCode: input.currency, value: input.amountMinor },
      });
      return refundStateOf(answer, input);
    },

    async verifyWebhook(rawBody, headers, _now) {
      const presented = headers.get(ngeniusWebhookHeader);
      if (!account.webhookSecret)
        throw new WebhookRefused('signature_invalid', 'No N-Genius webhook header value is configured.');
      if (presented === null)
        throw new WebhookRefused('signature_invalid', `The delivery carries no ${ngeniusWebhookHeader} header.`);
      // Both hashed first, so the comparison takes the same time whatever the lengths.
      if (!timingSafeEqual(await sha256(presented), await sha256(account.webhookSecret))) {
        throw new WebhookRefused('signature_invalid', `The delivery's ${ngeniusWebhookHeader} header does not match.`);
      }
      if (nestsDeeperThan(new TextEncoder().encode(rawBody))) {
        throw new WebhookRefused('body_invalid', 'The N-Genius webhook body nests too deep.');
      }
      let body: unknown;
      try {
        body = JSON.parse(rawBody);
      } catch {
        throw new WebhookRefused('body_invalid', 'The N-Genius webhook body is not JSON.');
      }
      return noticeOf(body, account.outlet);
    },
  };
}
