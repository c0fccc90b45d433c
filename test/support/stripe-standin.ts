import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';

/**
 * Stripe on loopback (issue 34): a real HTTP server answering the three operations our adapter calls, each request
 * checked against Stripe's published description (test/fixtures/stripe/stripe-subset.json: the parameter names of the
 * operations as Stripe's OpenAPI-generated library declares them, and Stripe's fixture objects), each answer built from
 * Stripe's fixture object and checked to keep its shape. Whatever does not fit is answered as Stripe answers a bad
 * request (400 `invalid_request_error`) and listed in `problems`, which the tests expect empty. The payer's side is
 * played by `pay`, `fail` and `expire`; deliveries are signed with Stripe's own library (`stripe.webhooks`).
 */

type Json = Record<string, any>;

const subset = JSON.parse(readFileSync(new URL('../fixtures/stripe/stripe-subset.json', import.meta.url), 'utf8')) as {
  operations: Record<string, { method: string; path: string; parameters: string[]; enums?: Record<string, string[]> }>;
  limits: {
    metadata_keys: number;
    metadata_key_length: number;
    metadata_value_length: number;
    string_length: number;
    three_decimal_currencies: string[];
  };
  objects: Record<'checkout.session' | 'payment_intent' | 'charge' | 'balance_transaction' | 'refund' | 'event', Json>;
};

const stripe = new Stripe('sk_test_standin', { apiVersion: '2024-06-20' as never });

let serial = 0;
const idOf = (prefix: string) =>
  `${prefix}_test${(++serial).toString(36).padStart(6, '0')}${Math.random().toString(36).slice(2, 12)}`;
const clone = <T>(value: T): T => structuredClone(value);

/** `a[b][0][c]=v` pairs into nested objects and arrays, as Stripe reads form bodies and query strings. */
export function parseForm(text: string): Json {
  const root: Json = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.replace(/\]/g, '').split('[');
    let node: any = root;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const slot = part === '' ? (node as unknown[]).length : part;
      if (last) {
        if (part === '') (node as unknown[]).push(value);
        else node[slot] = value;
        return;
      }
      const nextIsIndex = /^\d*$/.test(parts[i + 1] as string);
      node[slot] ??= nextIsIndex ? [] : {};
      node = node[slot];
    });
  }
  return root;
}

/** Where `answer` departs from the shape of Stripe's fixture object: a missing field, or another JSON type. */
export function shapeProblems(answer: unknown, fixture: unknown, path = ''): string[] {
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  if (fixture === null || answer === null) return [];
  if (kind(answer) !== kind(fixture)) return [`${path || '.'}: ${kind(answer)} where Stripe has ${kind(fixture)}`];
  if (kind(fixture) !== 'object') return [];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(fixture as Json)) {
    if (!(key in (answer as Json))) problems.push(`${path}.${key}: missing`);
    // An expanded field (an id in the fixture, an object when asked for) is checked against its own resource.
    else if (!(typeof value === 'string' && kind((answer as Json)[key]) === 'object')) {
      problems.push(...shapeProblems((answer as Json)[key], value, `${path}.${key}`));
    }
  }
  return problems;
}

type Session = Json & { id: string };
type Paid = { intent: Json; charge: Json; balance: Json };

export type StripeStandIn = Awaited<ReturnType<typeof startStripeStandIn>>;

/**
 * `hostedPages`: the sessions' `url` is the stand-in's own payer page (`/c/pay/{id}`), as Stripe's hosted checkout for a
 * browser: a page showing the amount and a pay button whose form "pays" the session (as `pay` does), awaits `onPaid`
 * (where a test delivers the signed webhook, as Stripe sends it when the payment completes) and redirects to the
 * session's `success_url` (`{CHECKOUT_SESSION_ID}` replaced, as Stripe does). Without it the url is Stripe's address,
 * which nothing opens.
 */
export async function startStripeStandIn(options: { hostedPages?: boolean } = {}) {
  let base = '';
  const hooks: { onPaid?: (sessionId: string) => Promise<void> } = {};
  const sessions = new Map<string, Session>();
  /** What each session sells (its line item's name), as the payer's page shows it. */
  const sold = new Map<string, string>();
  const paid = new Map<string, Paid>();
  const keys = new Map<string, Json>();
  const problems: string[] = [];
  const requests: Array<{ method: string; path: string; params: Json; headers: IncomingMessage['headers'] }> = [];
  /**
   * `down`: every request answers 503; `hang`: every request is read and never answered (until the stand-in closes);
   * `refundsDown`: only refunds answer 503 (an outage between a payment's settlement and its refund).
   */
  const state = { down: false, hang: false, refundsDown: false };
  const hung: ServerResponse[] = [];

  const refuse = (res: ServerResponse, message: string, param?: string) => {
    problems.push(message);
    res.writeHead(400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { type: 'invalid_request_error', message, param } }));
  };
  const answer = (res: ServerResponse, body: Json, resource: string) => {
    problems.push(...shapeProblems(body, subset.objects[resource as keyof typeof subset.objects]).map((p) => `${resource}${p}`));
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': idOf('req') });
    res.end(JSON.stringify(body));
  };

  /** The parameters' names, enums and Stripe's limits on metadata and strings; the first problem, or null. */
  function checkParams(operation: string, params: Json): string | null {
    const op = subset.operations[operation];
    if (!op) return `no operation ${operation}`;
    for (const key of Object.keys(params)) if (!op.parameters.includes(key)) return `Received unknown parameter: ${key}`;
    for (const [key, values] of Object.entries(op.enums ?? {})) {
      if (params[key] !== undefined && !values.includes(params[key])) return `Invalid ${key}: ${params[key]}`;
    }
    for (const metadata of [params.metadata, params.payment_intent_data?.metadata].filter(Boolean)) {
      const entries = Object.entries(metadata as Json);
      if (entries.length > subset.limits.metadata_keys) return 'Too many metadata keys';
      for (const [k, v] of entries) {
        if (k.length > subset.limits.metadata_key_length || String(v).length > subset.limits.metadata_value_length) {
          return `Invalid metadata[${k}]`;
        }
      }
    }
    for (const [key, value] of Object.entries(params)) {
      if (typeof value === 'string' && value.length > subset.limits.string_length) return `Invalid ${key}: too long`;
    }
    return null;
  }

  function createSession(params: Json): Session | string {
    if (params.mode !== 'payment') return 'mode must be payment here';
    const items = params.line_items as Json[] | undefined;
    const item = items?.[0];
    if (!item || items?.length !== 1) return 'line_items: exactly one';
    const price = item.price_data as Json | undefined;
    const unit = Number(price?.unit_amount);
    const quantity = Number(item.quantity);
    const currency = String(price?.currency ?? '');
    if (!/^[a-z]{3}$/.test(currency)) return 'line_items[0][price_data][currency]: a lowercase ISO code';
    if (!Number.isInteger(unit) || unit < 0) return 'line_items[0][price_data][unit_amount]: an integer';
    if (!Number.isInteger(quantity) || quantity < 1) return 'line_items[0][quantity]: a positive integer';
    if (!price?.product_data?.name) return 'line_items[0][price_data][product_data][name]: required';
    if (subset.limits.three_decimal_currencies.includes(currency) && (unit * quantity) % 10 !== 0) {
      return `Invalid amount: ${currency.toUpperCase()} amounts must end in 0`;
    }
    if (!params.success_url) return 'success_url: required in hosted mode';
    if (params.expires_at !== undefined && !/^\d+$/.test(params.expires_at)) return 'expires_at: a Unix time';
    const session = clone(subset.objects['checkout.session']) as Session;
    const id = idOf('cs');
    Object.assign(session, {
      id,
      amount_subtotal: unit * quantity,
      amount_total: unit * quantity,
      currency,
      client_reference_id: params.client_reference_id ?? null,
      metadata: params.metadata ?? {},
      customer_email: params.customer_email ?? null,
      cancel_url: params.cancel_url ?? null,
      success_url: params.success_url,
      expires_at: params.expires_at ? Number(params.expires_at) : session.created + 86_400,
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      payment_intent: null,
      url: options.hostedPages ? `${base}/c/pay/${id}` : `https://checkout.stripe.com/c/pay/${id}`,
    });
    (session as Json)._intent_metadata = params.payment_intent_data?.metadata ?? {};
    sessions.set(id, session);
    sold.set(id, String(price.product_data.name));
    return session;
  }

  const visible = (session: Session) => {
    const { _intent_metadata: _m, ...shown } = session;
    return shown;
  };

  /** The session as GET answers it, its payment intent expanded down to the balance transaction when asked. */
  function readSession(session: Session, expand: string[]): Json {
    const shown = clone(visible(session));
    const money = paid.get(session.id);
    if (money && expand.includes('payment_intent.latest_charge.balance_transaction')) {
      shown.payment_intent = {
        ...clone(money.intent),
        latest_charge: { ...clone(money.charge), balance_transaction: clone(money.balance) },
      };
    }
    return shown;
  }

  function refund(params: Json): Json | string {
    const entry = [...paid.values()].find((p) => p.intent.id === params.payment_intent);
    if (!entry) return `No such payment_intent: ${params.payment_intent}`;
    const amount = params.amount === undefined ? entry.intent.amount : Number(params.amount);
    if (!Number.isInteger(amount) || amount < 1 || amount > entry.intent.amount) return 'Invalid amount';
    return Object.assign(clone(subset.objects.refund), {
      id: idOf('re'),
      amount,
      currency: entry.intent.currency,
      payment_intent: entry.intent.id,
      charge: entry.charge.id,
      metadata: params.metadata ?? {},
      status: 'succeeded',
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://stripe.test');
    let body = '';
    for await (const chunk of req) body += chunk;
    const hosted = /^\/c\/pay\/([^/]+)$/.exec(url.pathname);
    if (options.hostedPages && hosted) return payerPage(req, res, decodeURIComponent(hosted[1] as string));
    // The browser's own asks on the payer's page (its /favicon.ico) are no API calls: not found, no problem.
    if (options.hostedPages && !url.pathname.startsWith('/v1/')) {
      res.writeHead(404);
      res.end();
      return;
    }
    const params = parseForm(req.method === 'GET' ? url.search.slice(1) : body);
    requests.push({ method: req.method ?? '', path: url.pathname, params, headers: req.headers });
    if (state.hang) {
      hung.push(res);
      return;
    }
    if (state.down || (state.refundsDown && url.pathname === '/v1/refunds')) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'api_error', message: 'Stripe is down (stand-in).' } }));
      return;
    }
    const auth = req.headers.authorization ?? '';
    if (!/^Bearer (sk|rk)_(test|live)_\S+$/.test(auth)) return refuse(res, 'Invalid API Key provided');
    if (req.method === 'POST') {
      if (req.headers['content-type'] !== 'application/x-www-form-urlencoded') return refuse(res, 'form-encoded bodies only');
      if (!req.headers['idempotency-key']) return refuse(res, 'our writes always send an Idempotency-Key');
      const previous = keys.get(`${auth} ${req.headers['idempotency-key']}`);
      if (previous) return answer(res, previous.body, previous.resource);
    }
    const remember = (resource: string, made: Json) => {
      keys.set(`${auth} ${req.headers['idempotency-key']}`, { body: made, resource });
      answer(res, made, resource);
    };
    const sessionPath = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      const problem = checkParams('PostCheckoutSessions', params);
      if (problem) return refuse(res, problem);
      const made = createSession(params);
      return typeof made === 'string' ? refuse(res, made) : remember('checkout.session', visible(made));
    }
    if (req.method === 'GET' && sessionPath) {
      const problem = checkParams('GetCheckoutSessionsSession', params);
      if (problem) return refuse(res, problem);
      const session = sessions.get(decodeURIComponent(sessionPath[1] as string));
      if (!session) {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { type: 'invalid_request_error', message: 'No such checkout.session' } }));
        return;
      }
      return answer(res, readSession(session, (params.expand as string[] | undefined) ?? []), 'checkout.session');
    }
    if (req.method === 'POST' && url.pathname === '/v1/refunds') {
      const problem = checkParams('PostRefunds', params);
      if (problem) return refuse(res, problem);
      const made = refund(params);
      return typeof made === 'string' ? refuse(res, made) : remember('refund', made);
    }
    return refuse(res, `Unrecognized request URL (${req.method}: ${url.pathname})`);
  }

  const sessionOf = (id: string) => {
    const session = sessions.get(id);
    if (!session) throw new Error(`no session ${id}`);
    return session;
  };

  /** The payer pays the session (card unless said): a payment intent, its charge and balance transaction. */
  function payNow(id: string, options: { method?: string; at?: Date; feeMinor?: number } = {}) {
    const session = sessionOf(id);
    const amount = session.amount_total as number;
    const created = Math.floor((options.at ?? new Date()).getTime() / 1000);
    const fee = options.feeMinor ?? Math.round(amount * 0.029);
    const balance = Object.assign(clone(subset.objects.balance_transaction), {
      id: idOf('txn'),
      amount,
      currency: session.currency,
      fee,
      net: amount - fee,
      created,
    });
    const charge = Object.assign(clone(subset.objects.charge), {
      id: idOf('ch'),
      amount,
      amount_captured: amount,
      currency: session.currency,
      created,
      paid: true,
      status: 'succeeded',
      balance_transaction: balance.id,
      payment_method_details: { ...clone(subset.objects.charge.payment_method_details), type: options.method ?? 'card' },
    });
    const intent = Object.assign(clone(subset.objects.payment_intent), {
      id: idOf('pi'),
      amount,
      amount_received: amount,
      currency: session.currency,
      status: 'succeeded',
      latest_charge: charge.id,
      metadata: session._intent_metadata,
    });
    paid.set(id, { intent, charge, balance });
    Object.assign(session, { status: 'complete', payment_status: 'paid', payment_intent: intent.id });
  }

  /** The payer's page of a session: GET shows it, POST (its button) pays it and returns the payer to `success_url`. */
  async function payerPage(req: IncomingMessage, res: ServerResponse, id: string) {
    const session = sessions.get(id);
    const page = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Stripe stand-in checkout</title></head><body>${body}</body></html>`,
      );
    };
    if (!session) return page(404, '<h1>No such checkout session</h1>');
    if (session.status !== 'open')
      return page(410, `<h1 data-session-status="${session.status}">This checkout is ${session.status}</h1>`);
    if (req.method === 'POST') {
      payNow(id);
      await hooks.onPaid?.(id);
      res.writeHead(303, { location: String(session.success_url).replace('{CHECKOUT_SESSION_ID}', id) });
      res.end();
      return;
    }
    const currency = String(session.currency);
    const digits = subset.limits.three_decimal_currencies.includes(currency) ? 3 : 2;
    const amount = (Number(session.amount_total) / 10 ** digits).toFixed(digits);
    const item = (sold.get(id) ?? '').replace(/[<>&"]/g, '');
    return page(
      200,
      `<h1>Pay</h1><p data-item>${item}</p><p data-amount>${currency.toUpperCase()} ${amount}</p>` +
        `<form method="post" action="/c/pay/${id}"><button type="submit" data-stripe-pay>Pay</button></form>`,
    );
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      problems.push(`stand-in error: ${error.message}`);
      res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;

  return {
    url: `http://127.0.0.1:${port}`,
    sessions,
    requests,
    problems,
    state,
    /** Where a test delivers the webhooks of a payment made on the payer's page (`hostedPages`). */
    hooks,
    /** The payer pays the session (card unless said): a payment intent, its charge and balance transaction. */
    pay: payNow,
    /** The session lapses unpaid. */
    expire(id: string) {
      Object.assign(sessionOf(id), { status: 'expired' });
    },
    /** An event about the session as Stripe sends it (the session unexpanded), its body exactly as signed. */
    event(type: string, id: string, at: Date, eventId = idOf('evt')) {
      const event = Object.assign(clone(subset.objects.event), {
        id: eventId,
        type,
        created: Math.floor(at.getTime() / 1000),
        api_version: '2024-06-20',
        data: { object: visible(clone(sessionOf(id))) },
      });
      // The envelope as Stripe's fixture event, its object as Stripe's fixture session (the fixture's event is a plan's).
      const shape = { ...subset.objects.event, data: { object: subset.objects['checkout.session'] } };
      problems.push(...shapeProblems(event, shape).map((p) => `event${p}`));
      return { id: eventId, body: JSON.stringify(event) };
    },
    /** Stripe's own signature of a delivery (stripe.webhooks.generateTestHeaderString) at `at`. */
    sign(body: string, secret: string, at: Date) {
      return stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: Math.floor(at.getTime() / 1000) });
    },
    /** Stripe's own verification (stripe.webhooks.constructEvent), against which ours is proven. */
    construct(body: string, header: string, secret: string) {
      return stripe.webhooks.constructEvent(body, header, secret);
    },
    close: () => {
      for (const res of hung.splice(0)) res.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
