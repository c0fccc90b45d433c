import type { CheckoutState, PaymentProvider, ProviderAccount, ProviderFetch, RefundState, WebhookNotice } from './provider';
import { ProviderRefused, ProviderUnavailable, WebhookRefused } from './provider';
import { verifyStripeSignature } from './stripe-signature';

/**
 * The Stripe adapter (docs/formats/stripe.md): Checkout Sessions in `payment` mode, refunds, and webhooks signed with
 * `Stripe-Signature`, over the runtime's `fetch` with form-encoded bodies as Stripe's API takes them. The `stripe`
 * package is not used at run time (its weight would break the Workers' bundle budgets); tests use it to prove this
 * adapter and Stripe's library agree.
 */

/** The API version every request pins (Stripe-Version), so an account's default version never changes our reads. */
export const stripeApiVersion = '2024-06-20';

/**
 * Currencies of three minor digits that Stripe takes only in tens of the minor unit ("the least-significant digit must
 * be 0": https://docs.stripe.com/currencies#three-decimal): the domain rounds up to this step before asking.
 */
const threeDigitCurrencies = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

/** The step (in minor units) Stripe takes amounts of `currency` in: 10 for the three-digit dinars, else 1. */
export function stripeAmountStep(currency: string): number {
  return threeDigitCurrencies.has(currency) ? 10 : 1;
}

type Params = Array<[string, string]>;
type Json = Record<string, unknown>;

const form = (params: Params) => params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const int = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) ? value : null);
const object = (value: unknown): Json | null =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : null;
const unixDate = (value: unknown): Date | null => {
  const seconds = int(value);
  return seconds === null ? null : new Date(seconds * 1000);
};

/** The payment intent's, its latest charge's and the balance transaction's parts a settlement reads (expanded). */
function paidParts(session: Json) {
  const intent = object(session.payment_intent);
  const charge = object(intent?.latest_charge);
  const balance = object(charge?.balance_transaction);
  const details = object(charge?.payment_method_details);
  return { intent, charge, balance, method: text(details?.type) };
}

function stateOf(session: Json): CheckoutState {
  const { intent, charge, balance, method } = paidParts(session);
  const currency = (text(session.currency) ?? '').toUpperCase();
  const paid = session.payment_status === 'paid';
  const intentFailed = intent !== null && ['canceled', 'requires_payment_method'].includes(String(intent.status));
  let status: CheckoutState['status'] = 'open';
  if (session.status === 'expired') status = 'expired';
  else if (session.status === 'complete' && paid) status = 'succeeded';
  else if (session.status === 'complete' && intentFailed) status = 'failed';
  // The fee and payout are said in the account's settlement currency: kept only when it is the payment's.
  const sameCurrency = balance !== null && String(balance.currency).toUpperCase() === currency;
  return {
    checkoutId: text(session.id) ?? '',
    status,
    reference: text(session.client_reference_id) ?? text(object(session.metadata)?.payment),
    amountMinor: int(session.amount_total) ?? -1,
    currency,
    paymentId: intent ? text(intent.id) : text(session.payment_intent),
    feeMinor: sameCurrency ? int(balance?.fee) : null,
    netMinor: sameCurrency ? int(balance?.net) : null,
    paidAt: paid ? (unixDate(charge?.created) ?? unixDate(balance?.created)) : null,
    method: paid ? method : null,
  };
}

const refundStatus = (status: unknown): RefundState['status'] =>
  status === 'succeeded' ? 'succeeded' : status === 'failed' || status === 'canceled' ? 'failed' : 'pending';

/** What a verified event is about: a Checkout Session's events, a refund's, or nothing we act on. */
function noticeOf(event: Json): WebhookNotice {
  const id = text(event.id);
  const type = text(event.type);
  const subject = object(object(event.data)?.object);
  if (!id || !type || !subject) throw new WebhookRefused('body_invalid', 'The body is not a Stripe event.');
  if (type.startsWith('checkout.session.') && subject.object === 'checkout.session') {
    return { eventId: id, kind: 'checkout', checkoutId: text(subject.id), refundId: null };
  }
  if (type.startsWith('refund.') && subject.object === 'refund') {
    return { eventId: id, kind: 'refund', checkoutId: null, refundId: text(subject.id) };
  }
  return { eventId: id, kind: 'ignored', checkoutId: null, refundId: null };
}

/** How long a call to Stripe may take before it counts as unavailable (milliseconds), unless the account says less. */
export const stripeTimeoutMs = 15_000;

/** The adapter on one connected account. `send` is the runtime's fetch (a loopback stand-in's in tests). */
export function stripeProvider(account: ProviderAccount, send: ProviderFetch): PaymentProvider {
  const base = account.baseUrl.replace(/\/+$/, '');
  const timeoutMs = Math.min(account.timeoutMs ?? stripeTimeoutMs, stripeTimeoutMs);

  async function call(method: 'GET' | 'POST', path: string, params: Params, idempotencyKey?: string): Promise<Json> {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${account.apiKey}`,
      'Stripe-Version': stripeApiVersion,
    };
    let url = `${base}${path}`;
    let body: string | undefined;
    if (method === 'GET') {
      if (params.length > 0) url += `?${form(params)}`;
    } else {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
      body = form(params);
    }
    let response: Response;
    try {
      // Bounded like N-Genius's calls: a provider that never answers is unavailable, not a request held open.
      response = await send(url, { method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      throw new ProviderUnavailable('stripe', null, `Stripe did not answer: ${(error as Error).message}`);
    }
    const answer = object(await response.json().catch(() => null));
    if (!response.ok || answer === null) {
      const message = text(object(answer?.error)?.message) ?? `HTTP ${response.status}`;
      const refused = response.status >= 400 && response.status < 500 && ![408, 429].includes(response.status);
      const Failure = refused && answer !== null ? ProviderRefused : ProviderUnavailable;
      throw new Failure('stripe', response.status, `Stripe answered ${response.status}: ${message}`);
    }
    return answer;
  }

  return {
    name: 'stripe',

    async createCheckout(input) {
      if (input.amountMinor % stripeAmountStep(input.currency) !== 0) {
        throw new Error(`Stripe takes ${input.currency} in tens of its minor unit; ${input.amountMinor} was not rounded.`);
      }
      const params: Params = [
        ['mode', 'payment'],
        ['line_items[0][quantity]', '1'],
        ['line_items[0][price_data][currency]', input.currency.toLowerCase()],
        ['line_items[0][price_data][unit_amount]', String(input.amountMinor)],
        ['line_items[0][price_data][product_data][name]', input.description],
        ['client_reference_id', input.reference],
        ['metadata[payment]', input.reference],
        ['payment_intent_data[metadata][payment]', input.reference],
        ['success_url', input.successUrl],
        ['cancel_url', input.cancelUrl],
      ];
      if (input.email) params.push(['customer_email', input.email]);
      if (input.expiresAt) params.push(['expires_at', String(Math.floor(input.expiresAt.getTime() / 1000))]);
      const session = await call('POST', '/v1/checkout/sessions', params, input.idempotencyKey);
      const checkoutId = text(session.id);
      const url = text(session.url);
      if (!checkoutId || !url) throw new ProviderUnavailable('stripe', null, 'Stripe answered a session without id or url.');
      return { checkoutId, url, expiresAt: unixDate(session.expires_at) };
    },

    async readCheckout(checkoutId) {
      const path = `/v1/checkout/sessions/${encodeURIComponent(checkoutId)}`;
      return stateOf(await call('GET', path, [['expand[]', 'payment_intent.latest_charge.balance_transaction']]));
    },

    async refund(input) {
      const params: Params = [
        ['payment_intent', input.paymentId],
        ['amount', String(input.amountMinor)],
        ['metadata[refund]', input.reference],
      ];
      const refund = await call('POST', '/v1/refunds', params, input.idempotencyKey);
      return {
        refundId: text(refund.id) ?? '',
        status: refundStatus(refund.status),
        amountMinor: int(refund.amount) ?? -1,
        currency: (text(refund.currency) ?? '').toUpperCase(),
      };
    },

    async verifyWebhook(rawBody, headers, now) {
      await verifyStripeSignature(rawBody, headers.get('stripe-signature'), account.webhookSecret, now);
      let event: unknown;
      try {
        event = JSON.parse(rawBody);
      } catch {
        throw new WebhookRefused('body_invalid', 'The body is not JSON.');
      }
      const parsed = object(event);
      if (!parsed) throw new WebhookRefused('body_invalid', 'The body is not a Stripe event.');
      return noticeOf(parsed);
    },
  };
}
