import { hexHmacMatches } from '../crypto';
import { WebhookRefused } from './provider';

/**
 * Stripe's webhook signature (docs/formats/stripe.md, "Signatures"): the `Stripe-Signature` header is
 * `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`; each v1 is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the
 * endpoint's signing secret (`whsec_…`, its text as the key). A delivery is taken when `t` is within the tolerance of
 * our clock and any v1 matches (Stripe sends several while a secret is rolled). Written on lib/crypto.ts (Node's
 * HMAC, Web Crypto on Workers): the `stripe` package is a devDependency only (it would weigh on the Workers' bundles);
 * the tests prove the two agree.
 */

/** Stripe's libraries' default tolerance: five minutes either way. */
export const stripeToleranceSeconds = 300;

const encoder = new TextEncoder();

/** Verifies `rawBody` against `header` with `secret` at `now`; throws `WebhookRefused` otherwise. */
export async function verifyStripeSignature(rawBody: string, header: string | null, secret: string, now: Date): Promise<void> {
  if (!header) throw new WebhookRefused('signature_invalid', 'No Stripe-Signature header.');
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const key = part.slice(0, at).trim();
    const value = part.slice(at + 1).trim();
    if (key === 't' && /^\d{1,12}$/.test(value)) timestamp = Number(value);
    if (key === 'v1' && value.length > 0) signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0) {
    throw new WebhookRefused('signature_invalid', 'The Stripe-Signature header has no timestamp or no v1 signature.');
  }
  if (Math.abs(now.getTime() / 1000 - timestamp) > stripeToleranceSeconds) {
    throw new WebhookRefused('signature_stale', `The signature's timestamp is more than ${stripeToleranceSeconds} s from now.`);
  }
  const signed = encoder.encode(`${timestamp}.${rawBody}`);
  for (const signature of signatures) {
    if (await hexHmacMatches(secret, signed, signature)) return;
  }
  throw new WebhookRefused('signature_invalid', 'No v1 signature of the Stripe-Signature header matches the body.');
}
