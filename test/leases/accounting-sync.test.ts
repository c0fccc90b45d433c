import Big from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestClient, testClient } from '../support/client';
import { createTestApi, type TestApi } from '../support/harness';
import { databaseNow } from '../support/times';
import { type ReceivedEvent, settle, WebhookReceiver } from '../support/webhook-receiver';
import { createKey, demoCompany } from '../support/world';
import { subscribe } from '../webhooks/support';

/**
 * An accounting tool mirroring leases and rent, in the shape of the CRM sync loop: it takes `lease.*` and
 * `rent_payment.*` webhooks (verified, its own echoes skipped), reads each record with its own key, and pulls both
 * lists with `updated_since` to recover what it missed: dropped events, and the changes no event announces
 * (replacements, cancellations, a due payment's edits). Its monthly owner statement, computed from its copy, equals
 * the API's export of each month.
 */

type Json = Record<string, any>;
type Key = { secret: string; prefix: string };
/** What openapi-fetch answers. */
type Answer<T> = { data?: T; error?: unknown; response: Response };
const EVENTS = [
  'lease.created',
  'lease.activated',
  'lease.notice_given',
  'lease.ended',
  'lease.updated',
  'rent_payment.received',
  'rent_payment.bounced',
  'rent_payment.overdue',
];
const OVERLAP_MS = 100;

class AccountingTool {
  readonly leases = new Map<string, Json>();
  readonly payments = new Map<string, Json>();
  readonly receiver: WebhookReceiver;
  private lastPullStart = new Date(0);
  /** The typed client on the tool's own key. */
  private readonly client: TestClient;

  constructor(
    private readonly api: TestApi,
    host: string,
    readonly key: Key,
  ) {
    this.receiver = new WebhookReceiver(key.prefix);
    this.client = testClient(api, { host, serverKey: key.secret });
  }

  async work(): Promise<number> {
    const events = this.receiver.take();
    for (const event of events) await this.handle(event);
    return events.length;
  }

  private async handle({ type, data }: ReceivedEvent): Promise<void> {
    if (type.startsWith('lease.'))
      this.leases.set(
        data.reference,
        await this.ok(
          'GET /leases',
          this.client.GET('/api/v1/leases/{reference}', { params: { path: { reference: data.reference } } }),
        ),
      );
    else if (type.startsWith('rent_payment.'))
      this.payments.set(data.payment_id, await this.ok('GET /rent-payments', this.payment(data.payment_id)));
    else throw new Error(`unexpected event ${type}`);
  }

  /** The bank feed shows the money: the tool books the receipt itself (its echo is skipped). */
  async receive(paymentId: string): Promise<void> {
    const res = this.client.PATCH('/api/v1/rent-payments/{payment_id}', {
      params: { path: { payment_id: paymentId } },
      body: { status: 'received' },
    });
    this.payments.set(paymentId, await this.ok('PATCH /rent-payments', res));
  }

  /** Both lists from the previous pull's start (the database's clock) minus the overlap. */
  async pull(): Promise<void> {
    const started = await databaseNow(this.api.db);
    const since = new Date(this.lastPullStart.getTime() - OVERLAP_MS).toISOString();
    for (const record of await this.list('/leases', since)) this.leases.set(record.reference, record);
    for (const record of await this.list('/rent-payments', since)) this.payments.set(record.payment_id, record);
    this.lastPullStart = started;
  }

  async list(path: '/leases' | '/rent-payments', since?: string, filters: Record<string, string> = {}): Promise<Json[]> {
    const records: Json[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = await this.ok(
        `GET ${path}`,
        this.page(path, { page_size: 3, ...filters, ...(since ? { updated_since: since } : {}) }, cursor),
      );
      records.push(...page.results);
      cursor = page.next_cursor;
    } while (cursor);
    return records;
  }

  /** One page of a list (the query as sent: its filters are the test's). */
  private page(path: '/leases' | '/rent-payments', query: Record<string, unknown>, cursor: string | null) {
    const params = { query: { ...query, ...(cursor ? { cursor } : {}) } as never };
    return path === '/leases'
      ? this.client.GET('/api/v1/leases', { params })
      : this.client.GET('/api/v1/rent-payments', { params });
  }

  private payment(paymentId: string) {
    return this.client.GET('/api/v1/rent-payments/{payment_id}', { params: { path: { payment_id: paymentId } } });
  }

  /** The record a call answered, or a thrown error when it was not a 200. */
  private async ok(what: string, pending: Promise<Answer<unknown>>): Promise<Json> {
    const res = await pending;
    if (res.response.status !== 200) throw new Error(`tool ${what}: ${res.response.status} ${JSON.stringify(res.error)}`);
    return res.data as Json;
  }
}

/** An owner's statement by landlord and month: receipts and fees by booked_on, reversals by bounced_on. */
function statement(payments: Json[], landlordOf: (lease: string) => string) {
  const lines: Record<string, { received: string; fees: string; reversed: string }> = {};
  const line = (payment: Json, day: string) => {
    const key = `${landlordOf(payment.lease)} ${day.slice(0, 7)}`;
    lines[key] ??= { received: '0.00', fees: '0.00', reversed: '0.00' };
    return lines[key];
  };
  for (const p of payments) {
    if (p.booked_on) {
      const l = line(p, p.booked_on);
      l.received = new Big(l.received).plus(p.amount).toFixed(2);
      l.fees = new Big(l.fees).plus(p.fee_amount).toFixed(2);
    }
    if (p.bounced_on) {
      const l = line(p, p.bounced_on);
      l.reversed = new Big(l.reversed).plus(p.amount).toFixed(2);
    }
  }
  return lines;
}

let api: TestApi;
let company: { id: string; host: string };
let tool: AccountingTool;
let office: TestClient;

beforeAll(async () => {
  api = await createTestApi({ ownDatabase: true });
  company = await demoCompany(api, {}, { environment: 'development' });
  tool = new AccountingTool(api, company.host, await createKey(api, company.id, { scopes: ['read:leases', 'write:leases'] }));
  const officeKey = await createKey(api, company.id, { scopes: ['read:leases', 'write:leases', 'write:contacts'] });
  office = testClient(api, { host: company.host, serverKey: officeKey.secret });
  const url = await tool.receiver.listen();
  const created = await subscribe(api, company.id, { url, event_types: EVENTS });
  expect(created.secret).toMatch(/^whsec_/);
  tool.receiver.useSecret(created.secret);
});
afterAll(async () => {
  await tool?.receiver.close();
  await api?.close();
});

/** The company's own contract workflow, writing with its own key: what a write answered (a 200 or a 201). */
async function officeWrite(pending: Promise<Answer<unknown>>): Promise<Json> {
  const res = await pending;
  expect([200, 201], JSON.stringify(res.error)).toContain(res.response.status);
  return res.data as Json;
}
const changePayment = (paymentId: unknown, body: Json) =>
  officeWrite(
    office.PATCH('/api/v1/rent-payments/{payment_id}', {
      params: { path: { payment_id: String(paymentId) } },
      body: body as never,
    }),
  );
const newLease = (body: Json) => officeWrite(office.POST('/api/v1/leases', { body: body as never }));
const on = (day: string) => api.clock.set(new Date(`${day}T08:00:00Z`));
/** Deliveries are signed and verified on today's clock (a signature's timestamp is checked against it). */
async function deliver(): Promise<void> {
  api.clock.set(null);
  await settle(api, () => tool.work());
}

describe('an accounting tool’s sync loop', () => {
  it('mirrors leases and payments through webhooks and updated_since, and its owner statement equals the API’s', async () => {
    const person = async (email: string) =>
      (await officeWrite(office.POST('/api/v1/contacts', { body: { email } }))).reference as string;
    const [owner1, owner2] = [await person('owner1@example.com'), await person('owner2@example.com')];
    const term = { start: '2027-01-01', end: '2027-12-31' };
    const cheques = Array.from({ length: 12 }, (_, i) => ({
      due_on: `2027-${String(i + 1).padStart(2, '0')}-01`,
      amount: '10000',
      cheque: { number: `00010${i}`, bank: 'ENBD' },
    }));
    const a = await newLease({
      home: 'marina-gate-1br-furnished',
      renter: await person('renter.a@example.com'),
      landlord: owner1,
      term,
      rent: { amount: '120000', period: 'year' },
      schedule: { rows: cheques },
      fee: { kind: 'percent', value: '5' },
    });
    const b = await newLease({
      home: 'jvc-2br-townhouse',
      renter: await person('renter.b@example.com'),
      landlord: owner2,
      term,
      rent: { amount: '8000', period: 'month' },
      schedule: { payments: 4 },
      fee: { kind: 'fixed', value: '250' },
    });
    for (const lease of [a, b])
      await officeWrite(office.POST('/api/v1/leases/{reference}/activate', { params: { path: { reference: lease.reference } } }));
    const payA = a.schedule.rows.map((r: Json) => r.payment_id) as string[];
    const payB = b.schedule.rows.map((r: Json) => r.payment_id) as string[];
    let n = 0;
    tool.receiver.drop = () => n++ % 2 === 1;

    on('2027-01-04');
    await tool.receive(payA[0] as string);
    await changePayment(payB[0], { status: 'received' });
    await deliver();
    on('2027-02-02');
    await changePayment(payA[0], { status: 'bounced' });
    const replacement = await officeWrite(
      office.POST('/api/v1/rent-payments', { body: { replaces: payA[0], due_on: '2027-02-10', amount: '10000' } as never }),
    );
    await changePayment(payA[1], { status: 'received' });
    await changePayment(payA[11], { status: 'cancelled' });
    await changePayment(payA[10], { amount: '20000', notes: 'Two months in one cheque' });
    await deliver();
    // Without a pull the tool misses what no event announced (the replacement) and what it dropped.
    expect(tool.payments.has(replacement.payment_id)).toBe(false);
    expect(tool.receiver.dropped.length, JSON.stringify(tool.receiver.stats)).toBeGreaterThan(0);
    await tool.pull();

    on('2027-03-01');
    await tool.receive(replacement.payment_id);
    await changePayment(payB[1], { status: 'received' });
    // Ending cancels the payments due after the end: only lease.ended is announced.
    await officeWrite(
      office.POST('/api/v1/leases/{reference}/end', {
        params: { path: { reference: b.reference } },
        body: { ended_on: '2027-03-31', deposit: { outcome: 'returned' } } as never,
      }),
    );
    await deliver();
    await tool.pull();

    // The tool's copy is the API's data: every lease and payment, in its current state.
    const leases = await tool.list('/leases');
    const payments = await tool.list('/rent-payments');
    expect(Object.fromEntries(tool.leases)).toEqual(Object.fromEntries(leases.map((l) => [l.reference, l])));
    expect(Object.fromEntries(tool.payments)).toEqual(Object.fromEntries(payments.map((p) => [p.payment_id, p])));
    expect(tool.receiver.stats.echoes).toBe(2);

    // Its owner statement is the API's month by month, as the export's filters give each month.
    const landlordOf = (reference: string) => tool.leases.get(reference)?.landlord as string;
    const mine = statement([...tool.payments.values()], landlordOf);
    const theirs: Json[] = [];
    for (const month of ['2027-01', '2027-02', '2027-03']) {
      const last = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5)), 0)).toISOString().slice(0, 10);
      const receipts = await tool.list('/rent-payments', undefined, { booked_from: `${month}-01`, booked_to: last });
      theirs.push(...receipts.map((p) => ({ ...p, bounced_on: null })));
      const reversals = await tool.list('/rent-payments', undefined, { bounced_from: `${month}-01`, bounced_to: last });
      theirs.push(...reversals.map((p) => ({ ...p, booked_on: null })));
    }
    const exported = statement(theirs, landlordOf);
    expect(mine).toEqual(exported);
    expect(mine).toEqual({
      [`${owner1} 2027-01`]: { received: '10000.00', fees: '500.00', reversed: '0.00' },
      [`${owner1} 2027-02`]: { received: '10000.00', fees: '500.00', reversed: '10000.00' },
      [`${owner1} 2027-03`]: { received: '10000.00', fees: '500.00', reversed: '0.00' },
      [`${owner2} 2027-01`]: { received: '24000.00', fees: '250.00', reversed: '0.00' },
      [`${owner2} 2027-03`]: { received: '24000.00', fees: '250.00', reversed: '0.00' },
    });
  });
});
