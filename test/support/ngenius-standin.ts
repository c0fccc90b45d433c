import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Network International's N-Genius Online on loopback, built from its published reference (docs/formats/ngenius.md
 * cites each page) and the published examples under test/fixtures/ngenius/, never from our adapter's output:
 *
 * - `POST /identity/auth/access-token`: `Authorization: Basic <API key>`, `Content-Type: application/vnd.ni-identity.v1+json`;
 *   answers the documented token (300 s by the stand-in's own clock, which tests move).
 * - `POST /transactions/outlets/{outlet}/orders`: a valid bearer token, both payment media types, the documented mandatory
 *   fields (action, amount.currencyCode, amount.value in minor units, emailAddress) and `merchantOrderReference` in
 *   letters, digits and hyphens; answers 201 with the order, its hosted page at `_links.payment.href`.
 * - `GET …/orders/{order}`: the order, its payment attempts under `_embedded.payment`.
 * - `POST …/payments/{payment}/captures/{capture}/refund`: a refund of a captured or purchased payment, in full or in part.
 * - The hosted payment page: the payer opens the link and posts a card; the payment moves as the docs say
 *   (STARTED → PURCHASED, or FAILED when declined), the webhook is delivered with the merchant's custom header, and the
 *   payer is sent back to `merchantAttributes.redirectUrl`.
 *
 * Every request is checked; what a request got wrong is answered as N-Genius would (401, 415, 400 …) and kept in
 * `refusals`, so a test sees exactly which rule our side broke.
 */

const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/ngenius/${name}.json`, import.meta.url), 'utf8')).example as Record<string, any>;
const tokenExample = fixture('access-token');
const orderExample = fixture('order');
const refundExample = fixture('refund');

export const identityMediaType = 'application/vnd.ni-identity.v1+json';
export const paymentMediaType = 'application/vnd.ni-payment.v2+json';
/** The stand-in's test cards (its own convention): this one is approved, `declinedCard` is declined by the "issuer". */
export const approvedCard = '4111111111111111';
export const declinedCard = '4000000000000002';

type Payment = Record<string, any>;
type Order = Record<string, any> & { _embedded: { payment: Payment[] } };
export type Delivery = { url: string; body: string; headers: Record<string, string>; status: number };
export type WebhookConfig = { url: string; headerKey: string; headerValue: string };

const clone = <T>(value: T): T => structuredClone(value);
const mediaType = (value: string | undefined) => value?.split(';')[0]?.trim().toLowerCase() ?? '';

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
  });

class Refusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export class NgeniusStandin {
  /** The stand-in's clock (ms): tokens lapse by it; a test moves it with `advance`. */
  clockMs = Date.parse('2026-11-28T10:00:00Z');
  readonly refusals: string[] = [];
  readonly deliveries: Delivery[] = [];
  readonly log: string[] = [];
  tokensIssued = 0;
  webhook: WebhookConfig | null = null;
  private base = '';
  private server: Server | undefined;
  private readonly tokens = new Map<string, number>();
  private readonly orders = new Map<string, Order>();
  private readonly codes = new Map<string, string>();
  private faults: Array<number | 'hang'> = [];
  private refundFaults: Array<number | 'hang' | 'lost'> = [];

  constructor(
    readonly apiKey: string,
    readonly outlet: string,
  ) {}

  get url(): string {
    return this.base;
  }

  async listen(): Promise<string> {
    const server = createServer((req, res) => void this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.base;
  }

  close(): Promise<void> {
    const server = this.server;
    if (!server) return Promise.resolve();
    return new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  }

  advance(ms: number): void {
    this.clockMs += ms;
  }

  /** The next requests (any endpoint) answer with this status, or never answer ('hang'), once each. */
  failNext(...faults: Array<number | 'hang'>): void {
    this.faults.push(...faults);
  }

  /**
   * The next refund requests answer with this status, or never answer ('hang'), or are made and then answered 503
   * ('lost': the refund happened, its answer did not reach the caller), once each; other requests as usual.
   */
  failNextRefunds(...faults: Array<number | 'hang' | 'lost'>): void {
    this.refundFaults.push(...faults);
  }

  /** Revokes every token issued so far (as an operator rotating the service account would). */
  revokeTokens(): void {
    this.tokens.clear();
  }

  order(reference: string): Order | undefined {
    return this.orders.get(reference);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.base);
    const body = await readBody(req);
    this.log.push(`${req.method} ${url.pathname}`);
    const refundFault = url.pathname.endsWith('/refund') ? this.refundFaults.shift() : undefined;
    const lost = refundFault === 'lost';
    const fault = lost ? undefined : (refundFault ?? this.faults.shift());
    if (fault === 'hang') return;
    try {
      if (fault !== undefined) throw new Refusal(fault, 'an injected fault');
      const answer = await this.route(req, url, body);
      if (lost) {
        res.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"an injected fault after the fact"}');
        return;
      }
      if (answer.redirect) {
        res.writeHead(302, { location: answer.redirect }).end();
        return;
      }
      const type = answer.type ?? paymentMediaType;
      const payload = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      res.writeHead(answer.status, { 'content-type': type }).end(payload);
    } catch (error) {
      const status = error instanceof Refusal ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (fault === undefined) this.refusals.push(`${req.method} ${url.pathname}: ${status} ${message}`);
      // The error body N-Genius answers with: a message and its errors (ngenius-common reads errors[0].message).
      const errorBody = { message, code: status, errors: [{ message, localizedMessage: message, errorCode: 'invalidRequest' }] };
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(errorBody));
    }
  }

  private async route(
    req: IncomingMessage,
    url: URL,
    body: string,
  ): Promise<{ status: number; body: unknown; type?: string; redirect?: string }> {
    const path = url.pathname;
    if (req.method === 'POST' && path === '/identity/auth/access-token') return this.accessToken(req, body);
    if (req.method === 'GET' && path === '/paypage/') return this.payPage(url);
    if (req.method === 'POST' && path === '/paypage/pay') return this.pay(body);
    const match =
      /^\/transactions\/outlets\/([^/]+)\/orders(?:\/([^/]+)(?:\/payments\/([^/]+)\/captures\/([^/]+)\/refund)?)?$/.exec(path);
    if (!match) throw new Refusal(404, `no such resource ${path}`);
    this.bearer(req);
    if (match[1] !== this.outlet) throw new Refusal(403, `outlet ${match[1]} is not this service account's`);
    const [, , orderRef, paymentRef, captureRef] = match;
    if (req.method === 'POST' && !orderRef) return { status: 201, body: this.createOrder(req, body) };
    const order = orderRef ? this.orders.get(orderRef) : undefined;
    if (!order) throw new Refusal(404, `no order ${orderRef}`);
    if (req.method === 'GET' && !paymentRef) return { status: 200, body: order };
    if (req.method === 'POST' && paymentRef && captureRef) {
      return { status: 200, body: await this.refund(req, order, paymentRef, captureRef, body) };
    }
    throw new Refusal(405, `${req.method} is not allowed on ${path}`);
  }

  private accessToken(req: IncomingMessage, body: string) {
    if (mediaType(req.headers['content-type']) !== identityMediaType) {
      throw new Refusal(415, `the identity service takes Content-Type ${identityMediaType}`);
    }
    if (req.headers.authorization !== `Basic ${this.apiKey}`) throw new Refusal(401, 'the API key is not valid');
    if (body.trim() !== '') JSON.parse(body);
    const token = `${randomUUID()}.${randomUUID()}`;
    this.tokens.set(token, this.clockMs + tokenExample.expires_in * 1000);
    this.tokensIssued++;
    return { status: 200, type: identityMediaType, body: { ...tokenExample, access_token: token, refresh_token: randomUUID() } };
  }

  private bearer(req: IncomingMessage): void {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const until = token ? this.tokens.get(token) : undefined;
    if (until === undefined || this.clockMs >= until) throw new Refusal(401, 'the access token is missing, unknown or expired');
  }

  private payloadOf(req: IncomingMessage, body: string): Record<string, any> {
    if (mediaType(req.headers['content-type']) !== paymentMediaType)
      throw new Refusal(415, `Content-Type must be ${paymentMediaType}`);
    if (!(req.headers.accept ?? '').includes(paymentMediaType)) throw new Refusal(406, `Accept must be ${paymentMediaType}`);
    try {
      return JSON.parse(body);
    } catch {
      throw new Refusal(400, 'the body is not JSON');
    }
  }

  private amountOf(value: unknown, path: string): { currencyCode: string; value: number } {
    const amount = value as { currencyCode?: unknown; value?: unknown } | undefined;
    if (typeof amount?.currencyCode !== 'string' || !/^[A-Z]{3}$/.test(amount.currencyCode)) {
      throw new Refusal(400, `${path}.currencyCode must be an ISO 4217 code`);
    }
    if (typeof amount.value !== 'number' || !Number.isSafeInteger(amount.value) || amount.value <= 0) {
      throw new Refusal(400, `${path}.value must be a positive whole number of minor units`);
    }
    return { currencyCode: amount.currencyCode, value: amount.value };
  }

  private createOrder(req: IncomingMessage, body: string): Order {
    const input = this.payloadOf(req, body);
    if (!['AUTH', 'SALE', 'PURCHASE'].includes(input.action)) throw new Refusal(400, 'action must be AUTH, SALE or PURCHASE');
    const amount = this.amountOf(input.amount, 'amount');
    if (typeof input.emailAddress !== 'string' || !input.emailAddress.includes('@'))
      throw new Refusal(400, 'emailAddress is mandatory');
    const merchantRef = input.merchantOrderReference;
    if (merchantRef !== undefined && (typeof merchantRef !== 'string' || !/^[A-Za-z0-9-]+$/.test(merchantRef))) {
      throw new Refusal(400, 'merchantOrderReference allows letters, digits and hyphens only');
    }
    const attributes = input.merchantAttributes ?? {};
    for (const key of ['redirectUrl', 'cancelUrl']) {
      if (attributes[key] !== undefined && (typeof attributes[key] !== 'string' || !URL.canParse(attributes[key]))) {
        throw new Refusal(400, `merchantAttributes.${key} must be a URL`);
      }
    }
    const reference = randomUUID();
    const code = randomUUID().replaceAll('-', '').slice(0, 15);
    const self = `${this.base}/transactions/outlets/${this.outlet}/orders/${reference}`;
    const paymentRef = randomUUID();
    const created = new Date(this.clockMs).toISOString();
    const order: Order = {
      ...clone(orderExample),
      _id: `urn:order:${reference}`,
      _links: {
        ...clone(orderExample._links),
        'cnp:payment-link': { href: `${self}/payment-link` },
        'payment-authorization': { href: `${this.base}/transactions/paymentAuthorization` },
        self: { href: self },
        payment: { href: `${this.base}/paypage/?code=${code}` },
      },
      action: input.action,
      amount,
      merchantAttributes: attributes,
      emailAddress: input.emailAddress,
      ...(merchantRef === undefined ? {} : { merchantOrderReference: merchantRef }),
      reference,
      outletId: this.outlet,
      createDateTime: created,
      referrer: `urn:Ecom:${reference}`,
      formattedAmount: `${amount.currencyCode} ${amount.value}`,
      _embedded: {
        payment: [
          {
            ...clone(orderExample._embedded.payment[0]),
            _id: `urn:payment:${paymentRef}`,
            _links: {
              self: { href: `${self}/payments/${paymentRef}` },
              'payment:card': { href: `${self}/payments/${paymentRef}/card` },
              curies: clone(orderExample._embedded.payment[0]._links.curies),
            },
            reference: paymentRef,
            state: 'STARTED',
            amount,
            updateDateTime: created,
            outletId: this.outlet,
            orderReference: reference,
          },
        ],
      },
    };
    this.orders.set(reference, order);
    this.codes.set(code, reference);
    return order;
  }

  private payPage(url: URL) {
    const reference = this.codes.get(url.searchParams.get('code') ?? '');
    const order = reference ? this.orders.get(reference) : undefined;
    if (!order) throw new Refusal(404, 'no payment page for this code');
    const html = `<!doctype html><title>Pay</title><form method="post" action="/paypage/pay">
<input type="hidden" name="code" value="${url.searchParams.get('code')}"><p>${order.formattedAmount}</p>
<input name="pan"><input name="expiry"><input name="cvv"><input name="cardholderName"><button>Pay</button></form>`;
    return { status: 200, type: 'text/html', body: html };
  }

  /** The payer's card, posted from the page: the attempt moves to its end state, the webhook goes, the payer goes back. */
  private async pay(body: string) {
    const form = new URLSearchParams(body);
    const reference = this.codes.get(form.get('code') ?? '');
    const order = reference ? this.orders.get(reference) : undefined;
    if (!order || !reference) throw new Refusal(404, 'no payment page for this code');
    const payment = order._embedded.payment.at(-1) as Payment;
    if (payment.state !== 'STARTED') throw new Refusal(409, `this payment is ${payment.state}`);
    const pan = form.get('pan') ?? '';
    payment.paymentMethod = {
      expiry: form.get('expiry') ?? '2029-04',
      cardholderName: form.get('cardholderName') ?? 'Bruce Wayne',
      name: 'VISA',
      pan: `${pan.slice(0, 6)}******${pan.slice(-4)}`,
    };
    payment.updateDateTime = new Date(this.clockMs).toISOString();
    const approved = pan === approvedCard;
    const ended = approved
      ? ({ AUTH: 'AUTHORISED', SALE: 'CAPTURED', PURCHASE: 'PURCHASED' } as const)[order.action as 'AUTH']
      : 'FAILED';
    payment.state = ended;
    if (approved && order.action !== 'AUTH') {
      const captureRef = randomUUID();
      const captureSelf = `${payment._links.self.href}/captures/${captureRef}`;
      payment._embedded = {
        'cnp:capture': [
          {
            _links: { self: { href: captureSelf }, 'cnp:refund': { href: `${captureSelf}/refund` } },
            amount: clone(order.amount),
            createdTime: payment.updateDateTime,
            state: 'SUCCESS',
          },
        ],
      };
    }
    const event = approved ? ended : order.action === 'PURCHASE' ? 'PURCHASE_DECLINED' : 'DECLINED';
    await this.deliver(reference, event);
    const back = approved
      ? order.merchantAttributes.redirectUrl
      : (order.merchantAttributes.cancelUrl ?? order.merchantAttributes.redirectUrl);
    const redirect = new URL(back ?? `${this.base}/done`);
    redirect.searchParams.set('ref', reference);
    return { status: 302, body: '', redirect: redirect.toString() };
  }

  private async refund(req: IncomingMessage, order: Order, paymentRef: string, captureRef: string, body: string) {
    const input = this.payloadOf(req, body);
    const amount = this.amountOf(input.amount, 'amount');
    const payment = order._embedded.payment.find((p) => p.reference === paymentRef);
    const capture = (payment?._embedded?.['cnp:capture'] ?? []).find((c: Payment) =>
      c._links.self.href.endsWith(`/${captureRef}`),
    );
    if (!payment || !capture) throw new Refusal(404, 'no such capture');
    if (!['CAPTURED', 'PURCHASED', 'PARTIALLY_REFUNDED'].includes(payment.state)) {
      throw new Refusal(409, `a payment in state ${payment.state} cannot be refunded`);
    }
    if (amount.currencyCode !== order.amount.currencyCode) throw new Refusal(400, 'the refund is not in the order’s currency');
    const refunds: Payment[] = payment._embedded['cnp:refund'] ?? [];
    const refunded = refunds.reduce((sum, r) => sum + r.amount.value, 0);
    if (refunded + amount.value > capture.amount.value) throw new Refusal(400, 'the refund exceeds what is left of the capture');
    const refundRef = randomUUID();
    refunds.push({
      _links: { self: { href: `${payment._links.self.href}/refunds/${refundRef}` } },
      amount,
      createdTime: new Date(this.clockMs).toISOString(),
      state: 'SUCCESS',
    });
    payment._embedded['cnp:refund'] = refunds;
    payment.state = refunded + amount.value === capture.amount.value ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
    payment.updateDateTime = new Date(this.clockMs).toISOString();
    await this.deliver(order.reference, payment.state);
    // The answer is the payment, as the docs' example shows it (refund.json), with this payment's own values.
    return { ...clone(refundExample), ...clone(payment) };
  }

  /** One webhook delivery of an order's event, as configured in the portal (URL, custom header key and value). */
  async deliver(orderReference: string, eventName: string): Promise<Delivery | null> {
    const order = this.orders.get(orderReference);
    if (!this.webhook || !order) return null;
    const body = JSON.stringify({ eventId: randomUUID(), eventName, order });
    return this.send(body, { 'content-type': 'application/json', [this.webhook.headerKey]: this.webhook.headerValue });
  }

  /** Sends an earlier delivery again, byte for byte (a duplicate; several in any order are an out-of-order sequence). */
  redeliver(delivery: Delivery): Promise<Delivery> {
    return this.send(delivery.body, delivery.headers);
  }

  private async send(body: string, headers: Record<string, string>): Promise<Delivery> {
    const url = this.webhook?.url ?? '';
    const response = await fetch(url, { method: 'POST', headers, body });
    await response.arrayBuffer();
    const delivery = { url, body, headers, status: response.status };
    this.deliveries.push(delivery);
    return delivery;
  }
}
