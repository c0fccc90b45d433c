import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Answer, createPropertyApiClient } from '../../clients/typescript/src/index';
import { runScheduledWork } from '../../functions/jobs';
import { statementJobs } from '../../functions/statements/jobs';
import { dispatchDue } from '../../lib/webhooks/local';
import { createTestApi, type TestApi } from '../support/harness';
import { type ReceivedEvent, WebhookReceiver } from '../support/webhook-receiver';
import { accounts, groupBy, type StatementWorld, statementWorld } from './support';
import { createKey } from '../support/world';
import { subscribe } from '../webhooks/support';

/**
 * An accounting tool on a loopback endpoint, as an integrator would build it: it takes `owner_statement.ready`
 * (verified), reads the owner's statement and, once per month, the journal (JSON, and Xero's CSV, which it imports)
 * with its own server key over HTTP, and keeps books. After every month its books balance, each owner's payable
 * account holds the sum of that owner's statements, and the CSV it imported books exactly what the JSON says.
 */
let api: TestApi;
let w: StatementWorld;
let server: ServerType;
let tool: AccountingTool;

type Statement = { owner: string; month: string; totals: Array<{ currency: string; net: string }> };

class AccountingTool {
  readonly receiver = new WebhookReceiver('sk_none');
  /** Account code → balance (debits positive), from the imported CSVs. */
  readonly books = new Map<string, Big>();
  /** Owner → what the tool owes them, from the journal's owner payable lines (credits positive). */
  readonly payable = new Map<string, Big>();
  readonly statements: Statement[] = [];
  readonly months = new Set<string>();
  private readonly client: ReturnType<typeof createPropertyApiClient>;

  constructor(baseUrl: string, key: string) {
    this.client = createPropertyApiClient({ baseUrl, serverKey: key });
  }

  async work(events: ReceivedEvent[]): Promise<void> {
    for (const { type, data } of events) {
      expect(type).toBe('owner_statement.ready');
      expect(Object.keys(data).sort()).toEqual(['month', 'owner_reference']);
      const query = { owner: data.owner_reference as string, month: data.month as string };
      const statement = await this.client.GET('/api/v1/owner-statements', { params: { query } });
      expect(statement.data?.status, JSON.stringify(statement.error)).toBe('closed');
      this.statements.push(statement.data as Statement);
      if (!this.months.has(query.month)) await this.importJournal(query.month);
    }
  }

  private async importJournal(month: string): Promise<void> {
    this.months.add(month);
    const journal = await this.client.GET('/api/v1/exports/journal', { params: { query: { month } } });
    const entries = (journal.data as Answer<'getJournalExport'>).entries;
    for (const entry of entries) {
      for (const line of entry.lines) {
        // Owner payable is only ever an owner's (an online payment's entry names no owner when it is the payer's money).
        if (line.account !== 'owner_payable' || entry.owner === null) continue;
        const owed = this.payable.get(entry.owner) ?? new Big(0);
        this.payable.set(entry.owner, owed.plus(line.credit).minus(line.debit));
      }
    }
    const csv = await this.client.GET('/api/v1/exports/journal', {
      params: { query: { month, format: 'xero' } },
      parseAs: 'text',
    });
    const rows = parse(csv.data as unknown as string, { columns: true }) as Array<Record<string, string>>;
    // Xero would refuse a journal (rows of one Narration and Date) that does not balance.
    for (const lines of groupBy(rows, (row) => `${row['*Narration']}|${row['*Date']}`).values()) {
      expect(lines.reduce((sum, line) => sum.plus(line['*Amount'] as string), new Big(0)).eq(0)).toBe(true);
    }
    for (const row of rows) {
      const code = row['*AccountCode'] as string;
      this.books.set(code, (this.books.get(code) ?? new Big(0)).plus(row['*Amount'] as string));
    }
    // One row per journal line (a fee's entry has three: its net, its VAT, owner payable).
    expect(rows.length).toBe(entries.reduce((n, entry) => n + entry.lines.length, 0));
  }
}

beforeAll(async () => {
  api = await createTestApi({ ownDatabase: true, env: { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '1000000' } });
  const byte = () => 1 + Math.floor(Math.random() * 254);
  const address = `127.${byte()}.${byte()}.${byte()}`;
  w = await statementWorld({ api, company: { hosts: [address], environment: 'development' } });
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: api.app.fetch, port: 0, hostname: address }, (info: AddressInfo) => resolve(info.port));
  });
  const key = await createKey(api, w.company.id, { scopes: ['read:leases'] });
  tool = new AccountingTool(`http://${address}:${port}`, key.secret);
  const url = await tool.receiver.listen();
  const created = await subscribe(api, w.company.id, { url, event_types: ['owner_statement.ready'] });
  expect(created.secret).toMatch(/^whsec_/);
  tool.receiver.useSecret(created.secret);
});
afterAll(async () => {
  api.clock.set(null);
  await tool.receiver.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await api.close();
});

/** The scheduler runs on `day` (noon in Dubai); deliveries go out on today's clock (their signatures are checked on it). */
async function closeMonthsOn(day: string): Promise<void> {
  w.on(day);
  await runScheduledWork(api.platform.services(), statementJobs);
  api.clock.set(null);
  for (let due = -1; due !== 0; ) due = await dispatchDue(api.db, api.platform.webhooks);
  w.on(day);
  await tool.work(tool.receiver.take());
}

describe('an accounting tool fed by owner_statement.ready', () => {
  it('reads each closed statement and the month’s journal, and its books balance', async () => {
    const [one, two] = [await w.person('Owner One'), await w.person('Owner Two')];
    const a = await w.lease(one, 'marina-gate-1br-furnished');
    const b = await w.lease(two, 'jvc-2br-townhouse', { fee: { kind: 'fixed', value: '250' } });
    const jobA = await w.job('marina-gate-1br-furnished');
    w.on('2027-01-04');
    await w.receive(a.payments[0] as string);
    await w.receive(b.payments[0] as string);
    w.on('2027-01-20');
    const charge = await w.charge(jobA, '1200.00');
    await closeMonthsOn('2027-02-05');
    expect(tool.statements).toEqual([]);
    w.on('2027-02-02');
    await w.bounce(a.payments[0] as string);
    await w.receive(a.payments[1] as string);
    await w.cancelCharge(charge);
    await w.charge(jobA, '300.00', 'renter');
    await closeMonthsOn('2027-02-06');
    expect(tool.statements.map((s) => [s.owner, s.month])).toEqual(
      expect.arrayContaining([
        [one, '2027-01'],
        [two, '2027-01'],
      ]),
    );
    w.on('2027-03-03');
    await w.receive(b.payments[1] as string);
    await closeMonthsOn('2027-03-06');
    await closeMonthsOn('2027-04-06');
    expect(tool.statements.map((s) => `${s.owner} ${s.month}`).sort()).toEqual(
      [`${one} 2027-01`, `${two} 2027-01`, `${one} 2027-02`, `${two} 2027-03`].sort(),
    );

    // The books balance: every debit has its credit.
    const total = [...tool.books.values()].reduce((sum, v) => sum.plus(v), new Big(0));
    expect(total.eq(0)).toBe(true);
    // Each owner's payable is the sum of their statements' net; the payable account holds them all.
    for (const owner of [one, two]) {
      const nets = tool.statements.filter((s) => s.owner === owner).flatMap((s) => s.totals.map((t) => t.net));
      expect(tool.payable.get(owner)?.toFixed(2)).toBe(nets.reduce((sum, n) => sum.plus(n), new Big(0)).toFixed(2));
    }
    const payable = tool.books.get(accounts.owner_payable.code) ?? new Big(0);
    const owed = [...tool.payable.values()].reduce((sum, v) => sum.plus(v), new Big(0));
    expect(payable.times(-1).toFixed(2)).toBe(owed.toFixed(2));
    expect(owed.toFixed(2)).toBe('29000.00');
  });
});
