import { describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { verifyStripeSignature } from '../../lib/payments/stripe-signature';
import type { WebhookRefused } from '../../lib/payments/provider';

/**
 * Our Stripe-Signature verifier (Web Crypto, lib/payments/stripe-signature.ts) against Stripe's own library
 * (stripe.webhooks): every delivery one accepts, the other accepts; every one one refuses, the other refuses.
 */
const stripe = new Stripe('sk_test_signature', { apiVersion: '2024-06-20' as never });
const secret = 'whsec_test_secret_of_the_endpoint';
const now = new Date('2027-03-01T08:00:00Z');
const seconds = Math.floor(now.getTime() / 1000);
const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'checkout.session.completed', data: { object: {} } });
const sign = (payload: string, key: string, at = seconds) =>
  stripe.webhooks.generateTestHeaderString({ payload, secret: key, timestamp: at });

async function ours(payload: string, header: string): Promise<string> {
  try {
    await verifyStripeSignature(payload, header, secret, now);
    return 'ok';
  } catch (error) {
    return (error as WebhookRefused).reason;
  }
}
function theirs(payload: string, header: string): string {
  try {
    stripe.webhooks.constructEvent(payload, header, secret, 300, undefined, now.getTime());
    return 'ok';
  } catch {
    return 'refused';
  }
}

describe('Stripe-Signature, ours and Stripe’s library', () => {
  const v1 = (header: string) => header.split(',').find((p) => p.startsWith('v1=')) as string;
  const cases: Array<[string, string, string, string]> = [
    ['signed', body, sign(body, secret), 'ok'],
    [
      'two v1, the second ours (a secret being rolled)',
      body,
      `t=${seconds},v1=${'0'.repeat(64)},${v1(sign(body, secret))}`,
      'ok',
    ],
    ['299 s old', body, sign(body, secret, seconds - 299), 'ok'],
    ['forged: another secret', body, sign(body, 'whsec_someone_else'), 'signature_invalid'],
    ['altered body', body.replace('completed', 'expired'), sign(body, secret), 'signature_invalid'],
    ['stale: 301 s old', body, sign(body, secret, seconds - 301), 'signature_stale'],
    ['no v1', body, `t=${seconds}`, 'signature_invalid'],
    ['no timestamp', body, v1(sign(body, secret)), 'signature_invalid'],
    ['only a v0 scheme', body, sign(body, secret).replace('v1=', 'v0='), 'signature_invalid'],
    ['empty', body, '', 'signature_invalid'],
  ];
  it.each(cases)('%s', async (_name, payload, header, expected) => {
    expect(await ours(payload, header)).toBe(expected);
    expect(theirs(payload, header)).toBe(expected === 'ok' ? 'ok' : 'refused');
  });

  it('a timestamp 301 s ahead of our clock: refused by ours (either way), taken by Stripe’s library (age only)', async () => {
    const header = sign(body, secret, seconds + 301);
    expect(await ours(body, header)).toBe('signature_stale');
    expect(theirs(body, header)).toBe('ok');
  });

  it('a replay within the tolerance verifies (the receiver refuses it by its event id, once acted on)', async () => {
    const header = sign(body, secret);
    expect(await ours(body, header)).toBe('ok');
    expect(await ours(body, header)).toBe('ok');
  });
});
