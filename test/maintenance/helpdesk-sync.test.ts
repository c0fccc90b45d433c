import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchDue } from '../../lib/webhooks/local';
import { type TestClient, testClient } from '../support/client';
import { createTestApi, type TestApi } from '../support/harness';
import { createKey, demoCompany } from '../support/world';
import { subscribe } from '../webhooks/support';

/**
 * A helpdesk (Zendesk-like) end to end: renters' tickets become jobs idempotently (a ticket sent again, or by two
 * workers at once, is one job); the helpdesk subscribes to the job events, verifies each delivery, skips the echoes of
 * its own writes by `caused_by`, reads the job and mirrors its status on the ticket; a periodic `updated_since` pull
 * recovers the events it lost. At the end every ticket shows its job's status.
 */
type Json = Record<string, any>;
type Event = { id: string; type: string; caused_by: string; data: Json };
const SOURCE = 'helpdesk';
const JOB_EVENTS = ['job.scheduled', 'job.done', 'job.cancelled', 'job.approval_requested', 'job.approval_answered'];

const readBody = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
  });

class Helpdesk {
  /** Ticket id → the job status the ticket shows. */
  readonly tickets = new Map<string, string | null>();
  readonly stats = { received: 0, echoes: 0, handled: 0, dropped: 0, reads: 0 };
  drop: (event: Event) => boolean = () => false;
  private readonly queue: Event[] = [];
  private webhook: Webhook | undefined;
  private server: Server | undefined;
  private lastPull = new Date(0);
  /** The typed client on the helpdesk's key. */
  readonly client: TestClient;

  constructor(
    api: TestApi,
    host: string,
    readonly key: { secret: string; prefix: string },
  ) {
    this.client = testClient(api, { host, serverKey: key.secret });
  }

  async listen(secretOf: (url: string) => Promise<string>): Promise<void> {
    const server = createServer(async (req, res) => {
      const body = await readBody(req);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      this.stats.received++;
      const event = this.webhook?.verify(body, headers) as Event;
      res.writeHead(200).end();
      if (event.caused_by === `api:${this.key.prefix}`) this.stats.echoes++;
      else if (this.drop(event)) this.stats.dropped++;
      else this.queue.push(event);
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.webhook = new Webhook(await secretOf(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`));
  }

  close() {
    return new Promise<void>((resolve) => {
      this.server?.closeAllConnections();
      this.server ? this.server.close(() => resolve()) : resolve();
    });
  }

  /** A renter's ticket becomes a job (sent with the ticket id: a retry gives the same job). */
  async openTicket(ticket: string, problem: string) {
    this.tickets.set(ticket, null);
    const res = await this.client.POST('/api/v1/jobs', {
      body: { home: 'jvc-2br-townhouse', category: 'plumbing', problem, external: { source: SOURCE, id: ticket } } as never,
    });
    if (res.response.status !== 201 && res.response.status !== 200) throw new Error(JSON.stringify(res.error));
    this.mirror(res.data as Json);
    return res.data?.reference as string;
  }

  /** The renter withdrew the ticket: the helpdesk cancels the job itself and keeps what the answer shows. */
  async withdraw(reference: string) {
    const res = await this.client.POST('/api/v1/jobs/{reference}/cancel', {
      params: { path: { reference } },
      body: { reason: 'Renter withdrew.' },
    });
    if (res.response.status !== 200) throw new Error(JSON.stringify(res.error));
    this.mirror(res.data as Json);
  }

  private mirror(job: Json) {
    const ticket = (job.external as Array<{ source: string; id: string }>).find((e) => e.source === SOURCE)?.id;
    if (ticket !== undefined && this.tickets.has(ticket)) this.tickets.set(ticket, job.status);
  }

  /** GET /jobs/{reference}: the job as answered. */
  async job(reference: string) {
    return (await this.client.GET('/api/v1/jobs/{reference}', { params: { path: { reference } } })).data;
  }

  async work(): Promise<number> {
    let handled = 0;
    for (let event = this.queue.shift(); event; event = this.queue.shift()) {
      this.stats.reads++;
      this.mirror((await this.job(event.data.reference)) as Json);
      handled++;
    }
    this.stats.handled += handled;
    return handled;
  }

  /** GET /jobs: a page of three of the jobs changed since `updated_since`. */
  private page(updated_since: string, cursor: string | null) {
    return this.client.GET('/api/v1/jobs', { params: { query: { updated_since, page_size: 3, ...(cursor ? { cursor } : {}) } } });
  }

  /** The periodic pull: every job changed since the last pull's start, page by page. */
  async pull(): Promise<void> {
    const start = new Date();
    let cursor: string | null = null;
    do {
      const updated_since = new Date(this.lastPull.getTime() - 100).toISOString();
      const res = await this.page(updated_since, cursor);
      if (!res.data) throw new Error(JSON.stringify(res.error));
      for (const job of res.data.results) this.mirror(job as Json);
      cursor = res.data.next_cursor;
    } while (cursor);
    this.lastPull = start;
  }
}

let api: TestApi;
let company: { id: string; host: string };
let helpdesk: Helpdesk;
let manager: TestClient;

beforeAll(async () => {
  // The dispatcher attempts every company's due deliveries: a database of this file alone.
  api = await createTestApi({ ownDatabase: true });
  company = await demoCompany(api, { bookings_enabled: true }, { environment: 'development' });
  helpdesk = new Helpdesk(
    api,
    company.host,
    await createKey(api, company.id, { scopes: ['read:maintenance', 'write:maintenance'] }),
  );
  const managerKey = (await createKey(api, company.id, { scopes: ['write:maintenance'] })).secret;
  manager = testClient(api, { host: company.host, serverKey: managerKey });
  await helpdesk.listen(async (url) => (await subscribe(api, company.id, { url, event_types: JOB_EVENTS })).secret);
});
afterAll(async () => {
  await helpdesk?.close();
  await api?.close();
});

/** The property managers' tool: another key. */
const managerAction = async (reference: string, action: 'schedule' | 'complete' | 'cancel' | 'approval', body: Json = {}) => {
  const res = await manager.POST(`/api/v1/jobs/{reference}/${action}`, { params: { path: { reference } }, body: body as never });
  expect(res.response.status, JSON.stringify(res.error)).toBe(200);
};

async function settle() {
  for (let round = 0; round < 20; round++) {
    let delivered = 0;
    for (let due = -1; due !== 0; ) {
      due = await dispatchDue(api.db, api.platform.webhooks);
      delivered += due;
    }
    if (delivered === 0 && (await helpdesk.work()) === 0) return;
  }
  throw new Error('the helpdesk loop did not settle');
}

describe('a helpdesk mirroring jobs', () => {
  it('turns tickets into jobs once, mirrors status by webhooks and updated_since, and skips its own echoes', async () => {
    const refs = new Map<string, string>();
    for (let i = 1; i <= 6; i++) refs.set(`T-${i}`, await helpdesk.openTicket(`T-${i}`, `Ticket ${i}: the sink leaks.`));
    // A retried ticket and two workers sending one ticket at once: still one job each.
    expect(await helpdesk.openTicket('T-1', 'Sent again.')).toBe(refs.get('T-1'));
    const [a, b] = await Promise.all([helpdesk.openTicket('T-7', 'Twice.'), helpdesk.openTicket('T-7', 'Twice.')]);
    expect(a).toBe(b);
    refs.set('T-7', a);
    const jobs = (await helpdesk.client.GET('/api/v1/jobs', { params: { query: { page_size: 100 } } })).data?.results;
    expect(jobs).toHaveLength(7);

    // Staff work the jobs; the helpdesk closes T-6 itself (the renter withdrew it): its own echo is skipped.
    const ref = (ticket: string) => refs.get(ticket) as string;
    await managerAction(ref('T-1'), 'schedule', { day: '2027-02-01' });
    await managerAction(ref('T-2'), 'schedule', { day: '2027-02-02' });
    await managerAction(ref('T-2'), 'complete', { work_done: 'New washer.' });
    await managerAction(ref('T-3'), 'cancel', { reason: 'Duplicate.' });
    await managerAction(ref('T-4'), 'approval', { decision: 'requested' });
    await helpdesk.withdraw(ref('T-6'));
    await settle();
    expect(helpdesk.stats.echoes).toBe(1);
    const expected = async () =>
      Object.fromEntries(
        await Promise.all([...refs].map(async ([ticket, reference]) => [ticket, (await helpdesk.job(reference))?.status])),
      );
    expect(Object.fromEntries(helpdesk.tickets)).toEqual(await expected());

    // Events lost (answered, then dropped): the periodic pull with updated_since recovers them.
    helpdesk.drop = () => true;
    await managerAction(ref('T-1'), 'complete');
    await managerAction(ref('T-5'), 'cancel');
    await settle();
    expect(helpdesk.stats.dropped).toBe(2);
    expect(helpdesk.tickets.get('T-1')).toBe('scheduled');
    await helpdesk.pull();
    expect(Object.fromEntries(helpdesk.tickets)).toEqual(await expected());
    expect(Object.fromEntries(helpdesk.tickets)).toMatchObject({
      'T-1': 'done',
      'T-2': 'done',
      'T-3': 'cancelled',
      'T-5': 'cancelled',
      'T-6': 'cancelled',
    });
  });
});
