import Big from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, type TestApi } from '../support/harness';
import { databaseNow } from '../support/times';
import { type ReceivedEvent, settle, WebhookReceiver } from '../support/webhook-receiver';
import { createKey, demoCompany } from '../support/world';

/**
 * An accounting tool mirroring leases and rent, in the shape of the CRM sync loop: it takes `lease.*` and
 * `rent_payment.*` webhooks (verified, its own echoes skipped), reads each record with its own key, and pulls both
 * lists with `updated_since` to recover what it missed: dropped events, and the changes no event announces
 * (replacements, cancellations, a due payment's edits). Its monthly owner statement, computed from its copy, equals
 * the API's export of each month.
 */

type Json = Record<string, any>;
type Key = { secret: string; prefix: string };
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

  constructor(
    private readonly api: TestApi,
    private readonly host: string,
    readonly key: Key,
  ) {
    this.receiver = new WebhookReceiver(key.prefix);
  }

  async work(): Promise<number> {
    const events = this.receiver.take();
    for (const event of events) await this.handle(event);
    return events.length;
  }

  private async handle({ type, data }: ReceivedEvent): Promise<void> {
    if (type.startsWith('lease.')) this.leases.set(data.reference, await this.call(`/leases/${data.reference}`));
    else if (type.startsWith('rent_payment.'))
      this.payments.set(data.payment_id, await this.call(`/rent-payments/${data.payment_id}`));
    else throw new Error(`unexpected event ${type}`);
  }

  /** The bank feed shows the money: the tool books the receipt itself (its echo is skipped). */
  async receive(paymentId: string): Promise<void> {
    this.payments.set(paymentId, await this.call(`/rent-payments/${paymentId}`, 'PATCH', { status: 'received' }));
  }

  /** Both lists from the previous pull's start (the database's clock) minus the overlap. */
  async pull(): Promise<void> {
    const started = await databaseNow(this.api.db);
    const since = new Date(this.lastPullStart.getTime() - OVERLAP_MS).toISOString();
    for (const record of await this.list('/leases', since)) this.leases.set(record.reference, record);
    for (const record of await this.list('/rent-payments', since)) this.payments.set(record.payment_id, record);
    this.lastPullStart = started;
  }

  async list(path: string, since?: string, filters: Record<string, string> = {}): Promise<Json[]> {
    const records: Json[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ page_size: '3', ...filters, ...(since ? { updated_since: since } : {}) });
      if (cursor) query.set('cursor', cursor);
      const page = await this.call(`${path}?${query}`);
      records.push(...page.results);
      cursor = page.next_cursor;
    } while (cursor);
    return records;
  }

  private async call(path: string, method = 'GET', body?: unknown): Promise<Json> {
    const res = await this.api.request(`/api/v1${path}`, { host: this.host, key: this.key.secret, method, body });
    if (res.status !== 200) throw new Error(`tool ${method} ${path}: ${res.status} ${res.text}`);
    return res.json;
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
let office: Key;

beforeAll(async () => {
  api = await createTestApi({ ownDatabase: true });
  company = await demoCompany(api, {}, { environment: 'development' });
  tool = new AccountingTool(api, company.host, await createKey(api, company.id, { scopes: ['read:leases', 'write:leases'] }));
  office = await createKey(api, company.id, { scopes: ['read:leases', 'write:leases', 'write:contacts'] });
  const url = await tool.receiver.listen();
  const created = await api.admin(`/companies/${company.id}/webhook-subscriptions`, { body: { url, event_types: EVENTS } });
  expect(created.status, created.text).toBe(201);
  tool.receiver.useSecret(created.json.secret);
});
afterAll(async () => {
  await tool?.receiver.close();
  await api?.close();
});

/** The company's own contract workflow, writing with its own key. */
async function officeWrite(path: string, body: unknown, method = 'POST'): Promise<Json> {
  const res = await api.request(`/api/v1${path}`, { host: company.host, key: office.secret, body, method });
  expect([200, 201], `${method} ${path}: ${res.text}`).toContain(res.status);
  return res.json;
}
const on = (day: string) => api.clock.set(new Date(`${day}T08:00:00Z`));
/** Deliveries are signed and verified on today's clock (a signature's timestamp is checked against it). */
async function deliver(): Promise<void> {
  api.clock.set(null);
  await settle(api, () => tool.work());
}

describe('an accounting tool’s sync loop', () => {
  it('mirrors leases and payments through webhooks and updated_since, and its owner statement equals the API’s', async () => {
    const person = async (email: string) => (await officeWrite('/contacts', { email })).reference as string;
    const [owner1, owner2] = [await person('owner1@example.com'), await person('owner2@example.com')];
    const term = { start: '2027-01-01', end: '2027-12-31' };
    const cheques = Array.from({ length: 12 }, (_, i) => ({
      due_on: `2027-${String(i + 1).padStart(2, '0')}-01`,
      amount: '10000',
      cheque: { number: `00010${i}`, bank: 'ENBD' },
    }));
    const a = await officeWrite('/leases', {
      home: 'marina-gate-1br-furnished',
      renter: await person('renter.a@example.com'),
      landlord: owner1,
      term,
      rent: { amount: '120000', period: 'year' },
      schedule: { rows: cheques },
      fee: { kind: 'percent', value: '5' },
    });
    const b = await officeWrite('/leases', {
      home: 'jvc-2br-townhouse',
      renter: await person('renter.b@example.com'),
      landlord: owner2,
      term,
      rent: { amount: '8000', period: 'month' },
      schedule: { payments: 4 },
      fee: { kind: 'fixed', value: '250' },
    });
    for (const lease of [a, b]) await officeWrite(`/leases/${lease.reference}/activate`, undefined);
    const payA = a.schedule.rows.map((r: Json) => r.payment_id) as string[];
    const payB = b.schedule.rows.map((r: Json) => r.payment_id) as string[];
    let n = 0;
    tool.receiver.drop = () => n++ % 2 === 1;

    on('2027-01-04');
    await tool.receive(payA[0] as string);
    await officeWrite(`/rent-payments/${payB[0]}`, { status: 'received' }, 'PATCH');
    await deliver();
    on('2027-02-02');
    await officeWrite(`/rent-payments/${payA[0]}`, { status: 'bounced' }, 'PATCH');
    const replacement = await officeWrite('/rent-payments', { replaces: payA[0], due_on: '2027-02-10', amount: '10000' });
    await officeWrite(`/rent-payments/${payA[1]}`, { status: 'received' }, 'PATCH');
    await officeWrite(`/rent-payments/${payA[11]}`, { status: 'cancelled' }, 'PATCH');
    await officeWrite(`/rent-payments/${payA[10]}`, { amount: '20000', notes: 'Two months in one cheque' }, 'PATCH');
    await deliver();
    // Without a pull the tool misses what no event announced (the replacement) and what it dropped.
    expect(tool.payments.has(replacement.payment_id)).toBe(false);
    expect(tool.receiver.dropped.length, JSON.stringify(tool.receiver.stats)).toBeGreaterThan(0);
    await tool.pull();

    on('2027-03-01');
    await tool.receive(replacement.payment_id);
    await officeWrite(`/rent-payments/${payB[1]}`, { status: 'received' }, 'PATCH');
    // Ending cancels the payments due after the end: only lease.ended is announced.
    await officeWrite(`/leases/${b.reference}/end`, { ended_on: '2027-03-31', deposit: { outcome: 'returned' } });
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
