import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minorDigits } from '../../lib/money';
import { NgeniusRefused, ngeniusProvider, ngeniusWebhookHeader, type NgeniusOptions } from '../../lib/payments/ngenius';
import {
  type PaymentProvider,
  type ProviderAccount,
  type ProviderFetch,
  ProviderUnavailable,
  WebhookRefused,
} from '../../lib/payments/provider';
import { approvedCard, declinedCard, NgeniusStandin } from '../support/ngenius-standin';

/**
 * The N-Genius adapter against the stand-in over loopback (test/support/ngenius-standin.ts, built from the published
 * reference): a payer pays on the hosted page, the adapter reads the order's state, refunds, and verifies the webhooks
 * the stand-in delivers with the merchant's custom header. No database: the adapter talks only to the provider.
 */

const apiKey = Buffer.from(`${randomUUID()}:${randomUUID()}`).toString('base64');
const outlet = randomUUID();
const webhookSecret = `ngw-${randomUUID()}`;
const standin = new NgeniusStandin(apiKey, outlet);
const received: Array<{ body: string; headers: Headers }> = [];
let receiver: Server;
let account: ProviderAccount;

const send: ProviderFetch = (input, init) => fetch(input, init);
const now = () => new Date(standin.clockMs);
const adapter = (options: NgeniusOptions = {}, overrides: Partial<ProviderAccount> = {}): PaymentProvider =>
  ngeniusProvider({ ...account, ...overrides }, send, { now, timeoutMs: 5_000, ...options });

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      received.push({ body, headers });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const base = await standin.listen();
  account = { provider: 'ngenius', apiKey, webhookSecret, outlet, baseUrl: base };
  standin.webhook = {
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks/ngenius`,
    headerKey: ngeniusWebhookHeader,
    headerValue: webhookSecret,
  };
});

afterAll(async () => {
  await standin.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const checkoutInput = (amountMinor: number, currency = 'AED') => {
  const reference = `pay_${randomUUID().replaceAll('-', '')}`;
  return {
    reference,
    amountMinor,
    currency,
    description: 'Deposit',
    successUrl: `https://stay.example.com/paid/${reference}`,
    cancelUrl: `https://stay.example.com/cancelled/${reference}`,
    email: 'guest@example.com',
    idempotencyKey: reference,
  };
};

/** What a payer does: opens the hosted page, posts a card, and follows the redirect back (its Location returned). */
async function payAs(pageUrl: string, card: string): Promise<string> {
  const page = await fetch(pageUrl);
  expect(page.status).toBe(200);
  const code = /name="code" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
  const form = new URLSearchParams({ code, pan: card, expiry: '2029-04', cvv: '123', cardholderName: 'Test Payer' });
  const done = await fetch(new URL('/paypage/pay', pageUrl), { method: 'POST', body: form, redirect: 'manual' });
  expect(done.status).toBe(302);
  return done.headers.get('location') ?? '';
}

const lastDelivery = () => received.at(-1) as { body: string; headers: Headers };

describe('N-Genius checkouts', () => {
  it('creates an order, the payer pays on the hosted page, and the order reads as succeeded', async () => {
    const refusedBefore = standin.refusals.length;
    const provider = adapter();
    const input = checkoutInput(125_050);
    const checkout = await provider.createCheckout(input);
    const order = standin.order(checkout.checkoutId);
    expect(order?.merchantOrderReference).toBe(input.reference.replace('_', '-'));
    expect(order?.action).toBe('PURCHASE');
    expect(order?.amount).toEqual({ currencyCode: 'AED', value: input.amountMinor });
    expect(checkout.url).toBe(order?._links.payment.href);
    expect(await provider.readCheckout(checkout.checkoutId)).toMatchObject({ status: 'open', paymentId: null });

    const back = await payAs(checkout.url, approvedCard);
    expect(back.startsWith(input.successUrl)).toBe(true);
    const payment = standin.order(checkout.checkoutId)?._embedded.payment.at(-1);
    expect(await provider.readCheckout(checkout.checkoutId)).toEqual({
      checkoutId: checkout.checkoutId,
      status: 'succeeded',
      reference: input.reference,
      amountMinor: input.amountMinor,
      currency: 'AED',
      paymentId: payment?.reference,
      feeMinor: null,
      netMinor: null,
      paidAt: new Date(payment?.updateDateTime),
      method: 'card',
    });
    expect(standin.refusals.slice(refusedBefore)).toEqual([]);
  });

  it('reads a declined card as failed, with no payment to refund', async () => {
    const provider = adapter();
    const input = checkoutInput(9_900);
    const checkout = await provider.createCheckout(input);
    expect((await payAs(checkout.url, declinedCard)).startsWith(input.cancelUrl)).toBe(true);
    expect(await provider.readCheckout(checkout.checkoutId)).toMatchObject({ status: 'failed', paymentId: null, paidAt: null });
  });

  it('counts KWD in fils, three digits: 12.345 KWD is 12345 both ways', async () => {
    const provider = adapter();
    const amountMinor = Math.round(12.345 * 10 ** minorDigits('KWD'));
    const checkout = await provider.createCheckout(checkoutInput(amountMinor, 'KWD'));
    expect(standin.order(checkout.checkoutId)?.amount).toEqual({ currencyCode: 'KWD', value: 12_345 });
    await payAs(checkout.url, approvedCard);
    const state = await provider.readCheckout(checkout.checkoutId);
    expect(state).toMatchObject({ status: 'succeeded', amountMinor: 12_345, currency: 'KWD' });
    const refund = await provider.refund({
      checkoutId: checkout.checkoutId,
      paymentId: state.paymentId as string,
      amountMinor: 345,
      currency: 'KWD',
      reference: 'rfd_kwd',
      idempotencyKey: 'rfd_kwd',
    });
    expect(refund).toMatchObject({ status: 'succeeded', amountMinor: 345, currency: 'KWD' });
  });

  it('refuses what the published API refuses before sending it: no email, a reference N-Genius cannot carry', async () => {
    const provider = adapter();
    await expect(provider.createCheckout({ ...checkoutInput(100), email: null })).rejects.toThrow(NgeniusRefused);
    await expect(provider.createCheckout({ ...checkoutInput(100), reference: 'pay-with-hyphen' })).rejects.toThrow(
      NgeniusRefused,
    );
    await expect(provider.readCheckout('../../identity')).rejects.toThrow(NgeniusRefused);
  });
});

describe('N-Genius refunds', () => {
  async function paidCheckout(provider: PaymentProvider, amountMinor: number) {
    const checkout = await provider.createCheckout(checkoutInput(amountMinor));
    await payAs(checkout.url, approvedCard);
    const state = await provider.readCheckout(checkout.checkoutId);
    return { checkoutId: checkout.checkoutId, paymentId: state.paymentId as string };
  }
  const refundOf = (paid: { checkoutId: string; paymentId: string }, amountMinor: number) => ({
    ...paid,
    amountMinor,
    currency: 'AED',
    reference: `rfd_${randomUUID().slice(0, 8)}`,
    idempotencyKey: randomUUID(),
  });

  it('refunds part, then the rest, through the capture’s refund link', async () => {
    const provider = adapter();
    const paid = await paidCheckout(provider, 10_000);
    const first = await provider.refund(refundOf(paid, 2_500));
    const payment = () => standin.order(paid.checkoutId)?._embedded.payment.at(-1);
    expect(payment()?.state).toBe('PARTIALLY_REFUNDED');
    const refunds = () => payment()?._embedded['cnp:refund'] as Array<{ _links: { self: { href: string } } }>;
    expect(first).toEqual({
      refundId: refunds()[0]?._links.self.href.split('/').at(-1),
      status: 'succeeded',
      amountMinor: 2_500,
      currency: 'AED',
    });
    const rest = await provider.refund(refundOf(paid, 7_500));
    expect(rest).toMatchObject({
      status: 'succeeded',
      amountMinor: 7_500,
      refundId: refunds()[1]?._links.self.href.split('/').at(-1),
    });
    expect(payment()?.state).toBe('REFUNDED');
    // The checkout still succeeded: the refunds are records of their own.
    expect((await provider.readCheckout(paid.checkoutId)).status).toBe('succeeded');
    await expect(provider.refund(refundOf(paid, 1))).rejects.toThrow(NgeniusRefused);
  });

  it('follows a refund link only on the API’s own origin: the bearer token never goes to another host', async () => {
    const provider = adapter();
    const paid = await paidCheckout(provider, 6_000);
    const capture = standin.order(paid.checkoutId)?._embedded.payment.at(-1)?._embedded['cnp:capture'][0];
    const documented = capture._links['cnp:refund'].href;
    capture._links['cnp:refund'].href = `${standin.webhook?.url}/refund`;
    const receivedBefore = received.length;
    expect(await provider.refund(refundOf(paid, 6_000))).toMatchObject({ status: 'succeeded', amountMinor: 6_000 });
    expect(standin.log).toContain(`POST ${new URL(documented).pathname}`);
    // The one request the receiver saw is the refund's webhook delivery, without the token.
    expect(received.slice(receivedBefore).map((r) => r.headers.get('authorization'))).toEqual([null]);
  });

  it('passes on N-Genius’s refusal of a refund above what is left, as our mistake (4xx), not an outage', async () => {
    const provider = adapter();
    const paid = await paidCheckout(provider, 5_000);
    await provider.refund(refundOf(paid, 2_000));
    const refused = await provider.refund(refundOf(paid, 3_001)).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NgeniusRefused);
    expect((refused as NgeniusRefused).status).toBe(400);
    expect(standin.refusals.at(-1)).toContain('exceeds');
  });
});

describe('N-Genius access tokens', () => {
  it('reuses one token until it lapses, then asks for a new one', async () => {
    const provider = adapter();
    const before = standin.tokensIssued;
    const checkout = await provider.createCheckout(checkoutInput(100));
    await Promise.all([1, 2, 3, 4, 5].map(() => provider.readCheckout(checkout.checkoutId)));
    expect(standin.tokensIssued - before).toBe(1);
    standin.advance(269_000);
    await provider.readCheckout(checkout.checkoutId);
    expect(standin.tokensIssued - before).toBe(1);
    standin.advance(2_000);
    await provider.readCheckout(checkout.checkoutId);
    expect(standin.tokensIssued - before).toBe(2);
  });

  it('asks again once when the gateway no longer takes the token (401), then carries on', async () => {
    const provider = adapter();
    const checkout = await provider.createCheckout(checkoutInput(100));
    const before = standin.tokensIssued;
    standin.revokeTokens();
    expect((await provider.readCheckout(checkout.checkoutId)).checkoutId).toBe(checkout.checkoutId);
    expect(standin.tokensIssued - before).toBe(1);
  });

  it('says plainly when the API key is refused (our configuration), not that N-Genius is down', async () => {
    const refused = await adapter({}, { apiKey: 'not-the-key' })
      .createCheckout(checkoutInput(100))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(NgeniusRefused);
    expect((refused as NgeniusRefused).status).toBe(401);
  });
});

describe('N-Genius unavailable', () => {
  it('turns a 500 on the token or on the order into ProviderUnavailable with the status', async () => {
    standin.failNext(500);
    const onToken = await adapter()
      .createCheckout(checkoutInput(100))
      .catch((error: unknown) => error);
    expect(onToken).toBeInstanceOf(ProviderUnavailable);
    expect((onToken as ProviderUnavailable).status).toBe(500);
    const provider = adapter();
    const checkout = await provider.createCheckout(checkoutInput(100));
    standin.failNext(503);
    const onRead = await provider.readCheckout(checkout.checkoutId).catch((error: unknown) => error);
    expect(onRead).toMatchObject({ provider: 'ngenius', status: 503 });
  });

  it('turns no answer in time into ProviderUnavailable without a status', async () => {
    const provider = adapter({ timeoutMs: 300 });
    const checkout = await provider.createCheckout(checkoutInput(100));
    standin.failNext('hang');
    const hung = await provider.readCheckout(checkout.checkoutId).catch((error: unknown) => error);
    expect(hung).toBeInstanceOf(ProviderUnavailable);
    expect((hung as ProviderUnavailable).status).toBeNull();
  });
});

describe('N-Genius webhooks', () => {
  it('accepts the delivery that carries the custom header, once per event (duplicates and late ones keep their id)', async () => {
    const provider = adapter();
    const checkout = await provider.createCheckout(checkoutInput(20_000));
    await payAs(checkout.url, approvedCard);
    const paid = lastDelivery();
    const sent = JSON.parse(paid.body) as { eventId: string; eventName: string };
    expect(sent.eventName).toBe('PURCHASED');
    const notice = await provider.verifyWebhook(paid.body, paid.headers, now());
    expect(notice).toEqual({ eventId: sent.eventId, kind: 'checkout', checkoutId: checkout.checkoutId, refundId: null });

    const state = await provider.readCheckout(checkout.checkoutId);
    const refund = await provider.refund({
      checkoutId: checkout.checkoutId,
      paymentId: state.paymentId as string,
      amountMinor: 5_000,
      currency: 'AED',
      reference: 'rfd_hook',
      idempotencyKey: 'rfd_hook',
    });
    const refunded = lastDelivery();
    // Out of order and twice: the purchase's delivery again after the refund's, each still the same event.
    const again = standin.deliveries.find((d) => d.body === paid.body);
    await standin.redeliver(again as NonNullable<typeof again>);
    const late = lastDelivery();
    expect(await provider.verifyWebhook(late.body, late.headers, now())).toEqual(notice);
    expect(await provider.verifyWebhook(refunded.body, refunded.headers, now())).toMatchObject({
      kind: 'refund',
      checkoutId: checkout.checkoutId,
      refundId: refund.refundId,
    });
  });

  it('refuses a wrong or missing header, and a body nested 5,000 deep, as WebhookRefused (never a crash)', async () => {
    const provider = adapter();
    const checkout = await provider.createCheckout(checkoutInput(3_000));
    await payAs(checkout.url, declinedCard);
    const delivery = lastDelivery();
    expect(await provider.verifyWebhook(delivery.body, delivery.headers, now())).toMatchObject({ kind: 'checkout' });

    const wrong = new Headers(delivery.headers);
    wrong.set(ngeniusWebhookHeader, `${webhookSecret}x`);
    const missing = new Headers(delivery.headers);
    missing.delete(ngeniusWebhookHeader);
    const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
    const cases: Array<[string, Headers, string]> = [
      [delivery.body, wrong, 'signature_invalid'],
      [delivery.body, missing, 'signature_invalid'],
      [deep, delivery.headers, 'body_invalid'],
      [`{"eventName":"PURCHASED","order":${deep}}`, delivery.headers, 'body_invalid'],
      ['not json', delivery.headers, 'body_invalid'],
      ['{"eventName":"PURCHASED"}', delivery.headers, 'body_invalid'],
      [delivery.body.replaceAll(outlet, randomUUID()), delivery.headers, 'body_invalid'],
    ];
    for (const [body, headers, reason] of cases) {
      const refused = await provider.verifyWebhook(body, headers, now()).catch((error: unknown) => error);
      expect(refused, reason).toBeInstanceOf(WebhookRefused);
      expect((refused as WebhookRefused).reason).toBe(reason);
    }
    const unset = await adapter({}, { webhookSecret: '' })
      .verifyWebhook(delivery.body, delivery.headers, now())
      .catch((error: unknown) => error);
    expect(unset).toBeInstanceOf(WebhookRefused);
  });

  it('gives a stable event id from order, event and state when a delivery carries none', async () => {
    const provider = adapter();
    const checkout = await provider.createCheckout(checkoutInput(4_000));
    await payAs(checkout.url, approvedCard);
    const delivery = lastDelivery();
    const { eventId: _dropped, ...rest } = JSON.parse(delivery.body) as Record<string, unknown>;
    const body = JSON.stringify(rest);
    const first = await provider.verifyWebhook(body, delivery.headers, now());
    expect(first.eventId).toBe(`ngenius:${checkout.checkoutId}:PURCHASED:PURCHASED`);
    expect((await provider.verifyWebhook(body, delivery.headers, now())).eventId).toBe(first.eventId);
  });
});
