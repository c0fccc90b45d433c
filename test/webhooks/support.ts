import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createNetServer } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { CausedBy, EventData, EventType } from '../../lib/events';
import { recordEvent } from '../../lib/events';
import { dispatchDue } from '../../lib/webhooks/local';
import type { WebhookRuntime } from '../../lib/webhooks/types';
import type { TestApi } from '../support/harness';
import type { AdminBody } from '../support/client';
import { adminOf, createCompany } from '../support/world';

/** A request a loopback receiver got. */
export type Received = { method: string; path: string; headers: Record<string, string>; body: string; at: number };
export type Answer = { status: number; headers?: Record<string, string>; delayMs?: number; body?: string };
export type Responder = (request: Received, index: number) => Answer | Promise<Answer>;

/** A real HTTP server on 127.0.0.1 that records every request and answers what the test says. */
export async function startReceiver(responder: Responder = () => ({ status: 204 }), port = 0) {
  const requests: Received[] = [];
  let respond = responder;
  const read = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => resolve(body));
    });
  const server: Server = createServer(async (req, res) => {
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    const received: Received = { method: req.method ?? '', path: req.url ?? '', headers, body: await read(req), at: Date.now() };
    requests.push(received);
    const answer = await respond(received, requests.length - 1);
    if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
    if (res.destroyed) return;
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    requests,
    respond: (next: Responder) => {
      respond = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Verifies a received delivery exactly as a subscriber does; throws when the signature does not match. */
export function verify(secret: string, request: Received): { id: string; type: string; caused_by: string; data: any } {
  return new Webhook(secret).verify(request.body, request.headers) as any;
}

/** A new webhook subscription of a company through the typed admin client: its id and secret. */
export async function subscribe(api: TestApi, companyId: string, body: Record<string, unknown>) {
  const res = await adminOf(api).POST('/admin/v1/companies/{company_id}/webhook-subscriptions', {
    params: { path: { company_id: companyId } },
    body: body as AdminBody<'createCompanyWebhookSubscription'>,
  });
  if (res.response.status !== 201 || !res.data) throw new Error(`subscription not created: ${JSON.stringify(res.error)}`);
  return { id: res.data.id, secret: res.data.secret as string };
}

/** Records an event in a committed transaction, as a domain function would. */
export async function record(
  api: TestApi,
  companyId: string,
  type: EventType,
  causedBy: CausedBy = 'admin',
  data: EventData = {},
) {
  return api.db
    .transaction()
    .execute((trx) => recordEvent(trx, { companyId, type, causedBy, data: { reference: 'R-1', ...data } }));
}

/** The in-process dispatcher's work, run once (optionally as if at another time). */
export function dispatch(api: TestApi, at?: Date): Promise<number> {
  const runtime: WebhookRuntime = at ? { ...api.platform.webhooks, now: () => at } : api.platform.webhooks;
  return dispatchDue(api.db, runtime);
}

export function deliveriesOf(api: TestApi, eventId: string) {
  return api.db.selectFrom('webhook_deliveries').selectAll().where('event_id', '=', eventId).execute();
}

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 20_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Per test: a company of its own with one subscription to a receiver of its own, so the subscriptions of one
 * test never receive another's events. Receivers are closed by `close()`.
 */
export function fixtures(api: () => TestApi) {
  const receivers: Receiver[] = [];
  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const started = await startReceiver(...args);
    receivers.push(started);
    return started;
  };
  const setup = async (answer?: Responder, body: Record<string, unknown> = {}) => {
    const own = await createCompany(api(), { environment: 'development' });
    const hook = await receiver(answer);
    const sub = await subscribe(api(), own.id, { url: `${hook.url}/hook`, ...body });
    return { company: own, hook, sub };
  };
  return { receiver, setup, close: () => Promise.all(receivers.map((r) => r.close())) };
}

/**
 * The admin API's webhook routes of one company through the typed admin client, each answering openapi-fetch's
 * `{ data, error, response }`; bodies and queries as sent (any JSON: the refusals too).
 */
export function webhooksAdmin(api: TestApi, companyId: string) {
  const admin = adminOf(api);
  const company = { company_id: companyId };
  const sub = (id: string) => ({ path: { ...company, subscription_id: id } });
  const event = (id: string) => ({ path: { ...company, event_id: id } });
  type Query = Record<string, string | number>;
  return {
    create: (body: Record<string, unknown>) =>
      admin.POST('/admin/v1/companies/{company_id}/webhook-subscriptions', { params: { path: company }, body: body as never }),
    list: () => admin.GET('/admin/v1/companies/{company_id}/webhook-subscriptions', { params: { path: company } }),
    get: (id: string) =>
      admin.GET('/admin/v1/companies/{company_id}/webhook-subscriptions/{subscription_id}', { params: sub(id) }),
    update: (id: string, body: Record<string, unknown>) =>
      admin.PATCH('/admin/v1/companies/{company_id}/webhook-subscriptions/{subscription_id}', {
        params: sub(id),
        body: body as never,
      }),
    remove: (id: string) =>
      admin.DELETE('/admin/v1/companies/{company_id}/webhook-subscriptions/{subscription_id}', { params: sub(id) }),
    rotateSecret: (id: string) =>
      admin.POST('/admin/v1/companies/{company_id}/webhook-subscriptions/{subscription_id}/rotate-secret', { params: sub(id) }),
    ping: (id: string) =>
      admin.POST('/admin/v1/companies/{company_id}/webhook-subscriptions/{subscription_id}/ping', { params: sub(id) }),
    /** A subscription's deliveries. */
    deliveries: (id: string, query: Query = {}) =>
      admin.GET('/admin/v1/companies/{company_id}/webhook-subscriptions/{subscription_id}/deliveries', {
        params: { ...sub(id), query: query as never },
      }),
    /** An event's deliveries. */
    eventDeliveries: (eventId: string) =>
      admin.GET('/admin/v1/companies/{company_id}/events/{event_id}/deliveries', { params: event(eventId) }),
    replay: (eventId: string, body: Record<string, unknown>) =>
      admin.POST('/admin/v1/companies/{company_id}/events/{event_id}/replay', { params: event(eventId), body: body as never }),
    events: (query: Query = {}) =>
      admin.GET('/admin/v1/companies/{company_id}/events', { params: { path: company, query: query as never } }),
    auditLog: (query: Query = {}) =>
      admin.GET('/admin/v1/companies/{company_id}/audit-log', { params: { path: company, query: query as never } }),
    /** PATCH of the company's settings. */
    settings: (settings: Record<string, unknown>) =>
      admin.PATCH('/admin/v1/companies/{company_id}', { params: { path: company }, body: { settings } as never }),
  };
}
