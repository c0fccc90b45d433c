/**
 * One interface for the card and bank payment providers a company connects (issue 34): Stripe (Checkout Sessions,
 * refunds, webhooks signed with `Stripe-Signature`) in `lib/payments/stripe.ts` and Network International's N-Genius
 * (hosted payment page orders, refunds, webhooks) in `lib/payments/ngenius.ts`. The domain (`lib/payments/*.ts`
 * beside this file) only ever talks to a `PaymentProvider`.
 *
 * Amounts cross this interface as integers in the currency's minor units (ISO 4217 digits, `lib/money.ts`), which is
 * how both providers count them: fils for AED, and three digits for KWD, BHD and OMR.
 *
 * A provider's word is never taken from a webhook's body alone: `verifyWebhook` checks the signature (or the shared
 * header secret) and says which checkout or refund the notice is about; the domain then asks the provider for the
 * authoritative state with `readCheckout`, so a forged or altered body settles nothing.
 */

export type ProviderName = 'stripe' | 'ngenius';

/** The fetch the adapter sends with (the runtime's own; a loopback stand-in's base URL in tests). */
export type ProviderFetch = (input: string, init: RequestInit) => Promise<Response>;

/** A company's connected account, its secrets opened (they are stored sealed, `lib/crypto-jwe.ts` sealSecret). */
export type ProviderAccount = {
  provider: ProviderName;
  /** Stripe: the secret key (`sk_live_…`/`sk_test_…`); N-Genius: the service account's API key. */
  apiKey: string;
  /** Stripe: the endpoint's signing secret (`whsec_…`); N-Genius: the value of the custom webhook header. */
  webhookSecret: string;
  /** N-Genius: the outlet reference orders are created under; Stripe: null. */
  outlet: string | null;
  /** The provider's API origin, from the platform's configuration (never from a company): sandbox, live or a stand-in. */
  baseUrl: string;
  /**
   * How long one call may take before the provider counts as unavailable (milliseconds; the platform's
   * `PAYMENT_PROVIDER_TIMEOUT_MS`, at most and by default 15 s). An input, so a test of a provider that never answers
   * waits a short one.
   */
  timeoutMs?: number;
};

export type CheckoutInput = {
  /** Our payment's id (`pay_…`), carried as the provider's client reference and metadata, and checked on settlement. */
  reference: string;
  amountMinor: number;
  currency: string;
  description: string;
  successUrl: string;
  cancelUrl: string;
  email: string | null;
  /** When the hosted page stops taking the payment (Stripe: 30 minutes to 24 hours after creation); the provider's default when absent. */
  expiresAt?: Date;
  /** Sent as the provider's idempotency key where it has one, so a retried create makes one checkout. */
  idempotencyKey: string;
};

export type Checkout = {
  /** Stripe: the Checkout Session id (`cs_…`); N-Genius: the order reference. */
  checkoutId: string;
  /** Where the payer is sent: the provider's hosted page. */
  url: string;
  expiresAt: Date | null;
};

/** The provider's authoritative state of one checkout. */
export type CheckoutState = {
  checkoutId: string;
  status: 'open' | 'succeeded' | 'failed' | 'expired';
  /** The reference we gave at creation (`pay_…`), as the provider returns it. */
  reference: string | null;
  amountMinor: number;
  currency: string;
  /** Stripe: the PaymentIntent id (`pi_…`); N-Genius: the payment reference. What a refund is made against. */
  paymentId: string | null;
  /** The provider's fee and what it pays out, in minor units, when it says them; null when it does not (yet). */
  feeMinor: number | null;
  netMinor: number | null;
  paidAt: Date | null;
  /** Card or bank, as the provider says the payer paid: `card`, `bank_transfer`, … */
  method: string | null;
};

export type RefundInput = {
  checkoutId: string;
  paymentId: string;
  amountMinor: number;
  currency: string;
  /** Our refund's id (`rfd_…`). */
  reference: string;
  idempotencyKey: string;
};

export type RefundState = {
  refundId: string;
  status: 'pending' | 'succeeded' | 'failed';
  amountMinor: number;
  currency: string;
};

/** What a verified webhook is about; the state itself is read from the provider. */
export type WebhookNotice = {
  /** The provider's event id (idempotency: one event is acted on once). */
  eventId: string;
  kind: 'checkout' | 'refund' | 'ignored';
  checkoutId: string | null;
  refundId: string | null;
};

/** Why a webhook was refused: each a 4xx problem at the receiver and an audit row, never a change. */
export type WebhookRefusal = 'signature_invalid' | 'signature_stale' | 'body_invalid';

export class WebhookRefused extends Error {
  constructor(
    readonly reason: WebhookRefusal,
    message: string,
  ) {
    super(message);
  }
}

/** A provider that answered with an error or not at all: the outbox retries; nothing is recorded as paid. */
export class ProviderUnavailable extends Error {
  constructor(
    readonly provider: ProviderName,
    readonly status: number | null,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A provider that refused what we asked (a company's key it does not know, an order it has no record of, a request its
 * rules refuse): retrying will not help; the company's account or the request must change. Nothing is recorded.
 */
export class ProviderRefused extends Error {
  constructor(
    readonly provider: ProviderName,
    readonly status: number | null,
    message: string,
  ) {
    super(message);
  }
}

export interface PaymentProvider {
  readonly name: ProviderName;
  createCheckout(input: CheckoutInput): Promise<Checkout>;
  readCheckout(checkoutId: string): Promise<CheckoutState>;
  refund(input: RefundInput): Promise<RefundState>;
  /** Throws `WebhookRefused` for a forged, altered, stale or malformed delivery. `now` is the services' clock. */
  verifyWebhook(rawBody: string, headers: Headers, now: Date): Promise<WebhookNotice>;
}
