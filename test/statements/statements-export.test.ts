import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementsBatchLines } from '../../functions/statements/statements-month';
import { createTestApi, type TestApi } from '../support/harness';
import { receiptsInBulk, type StatementWorld, statementWorld } from './support';

/**
 * Every owner statement of a month in one streamed answer (issue 39, GET /exports/owner-statements): each owner's
 * statement is the one GET /owner-statements answers for them (lines of several kinds, two currencies, the balance
 * carried, an erased owner), the owners by reference, in batches of owners; an empty month is an empty list.
 */
let api: TestApi;
let w: StatementWorld;
let alpha: string;
let beta: string;
let gamma: string;
const bulk = 600; // receipts of alpha's in February written by SQL: 1,200 lines, more than one batch

beforeAll(async () => {
  api = await createTestApi({ env: { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '1000000' } });
  w = await statementWorld({ api, settings: { statement_balance: 'carried' } });
  alpha = await w.person('Alpha Owner');
  beta = await w.person('Beta Owner');
  gamma = await w.person('Gamma Owner');
  await w.person('Delta Nolines');
  const a = await w.lease(alpha, 'marina-gate-1br-furnished');
  const b = await w.lease(beta, 'jvc-2br-townhouse');
  const g = await w.lease(gamma, 'burj-vista-1br-burj-khalifa-view');
  w.on('2027-01-05');
  await w.receive(a.payments[0] as string);
  await w.receive(b.payments[0] as string);
  w.on('2027-02-03');
  await w.receive(a.payments[1] as string);
  await w.receive(g.payments[0] as string);
  // The operator moves the company to US dollars: what is booked from now on is in USD, reversals in their receipt's.
  await sql`update companies set currency = 'USD' where id = ${w.company.id}::uuid`.execute(api.db);
  w.on('2027-02-09');
  await w.receive(b.payments[1] as string);
  await w.bounce(a.payments[1] as string);
  await w.charge(await w.job('jvc-2br-townhouse'), '450.00');
  await w.cancelCharge(await w.charge(await w.job('marina-gate-1br-furnished'), '120.00'));
  await receiptsInBulk(api, a.reference, bulk);
  const erased = await w.erase(gamma);
  expect(erased.response.status, JSON.stringify(erased.error)).toBe(200);
  w.on('2027-03-20');
});
afterAll(async () => {
  api.clock.set(null);
  await api.close();
});

type Json = Record<string, any>;

/** The raw answer of GET /exports/owner-statements, read chunk by chunk as it arrives. */
async function exported(month: string) {
  const res = await api.app.request(`http://${w.company.host}/api/v1/exports/owner-statements?month=${month}`, {
    headers: { Authorization: `Bearer ${w.reader.secret}` },
  });
  const parts: string[] = [];
  const decoder = new TextDecoder();
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) parts.push(decoder.decode(chunk, { stream: true }));
  return { status: res.status, type: res.headers.get('content-type'), parts, body: JSON.parse(parts.join('')) as Json };
}

const byReference = (references: string[]) => references.toSorted((x, y) => (x < y ? -1 : x > y ? 1 : 0));

describe('GET /exports/owner-statements', () => {
  it('answers each owner of the month the statement GET /owner-statements answers, by reference, in batches', async () => {
    const { status, type, parts, body } = await exported('2027-02');
    expect([status, type]).toEqual([200, 'application/json']);
    const statements = body.statements as Json[];
    expect(statements.map((s) => s.owner)).toEqual(byReference([alpha, beta, gamma]));
    for (const statement of statements) expect(statement).toEqual(await w.statement(statement.owner, '2027-02'));
    expect(body).toMatchObject({ month: '2027-02', from: '2027-02-01', to: '2027-02-28', status: 'closed' });
    expect(body.closes_on).toBe(statements[0]?.closes_on);
    // What the comparison covered: lines of several kinds, two currencies, balances carried in, an erased owner.
    const lines = statements.flatMap((s) => s.lines as Json[]);
    expect(new Set(lines.map((line) => line.kind))).toEqual(
      new Set(['rent_received', 'fee', 'rent_reversed', 'fee_reversed', 'job_charge', 'job_charge_cancelled']),
    );
    expect(new Set(lines.map((line) => line.currency))).toEqual(new Set(['AED', 'USD']));
    const of = (owner: string) => statements.find((s) => s.owner === owner) as Json;
    expect(of(alpha).lines.length).toBeGreaterThan(statementsBatchLines);
    expect(of(alpha).totals.find((t: Json) => t.currency === 'AED').opening_balance).not.toBe('0.00');
    expect(of(gamma).owner_name).toBeNull();
    // The head, the owner of more lines than a batch alone, the others, the end: never the whole month at once.
    expect(parts.length).toBeGreaterThanOrEqual(4);
  });

  it('lists only the owners with a line in the month', async () => {
    const { body } = await exported('2027-01');
    expect(body.statements.map((s: Json) => s.owner)).toEqual(byReference([alpha, beta]));
    for (const statement of body.statements) expect(statement).toEqual(await w.statement(statement.owner, '2027-01'));
  });

  it('answers an empty list for a month without lines, a future one too', async () => {
    for (const [month, status] of [
      ['2026-11', 'closed'],
      ['2999-12', 'open'],
    ]) {
      const { status: code, body } = await exported(month as string);
      expect(code).toBe(200);
      expect(body).toMatchObject({ month, status, statements: [] });
    }
  });

  it('refuses a bad month or another parameter (400 problem+json)', async () => {
    for (const query of ['month=2027-13', 'month=2027-2', 'month=3000-01', 'month=', '', `month=2027-02&owner=${alpha}`]) {
      const res = await api.app.request(`http://${w.company.host}/api/v1/exports/owner-statements?${query}`, {
        headers: { Authorization: `Bearer ${w.reader.secret}` },
      });
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type'), query).toContain('application/problem+json');
    }
  });

  it('writes one audit row naming every owner read', async () => {
    await exported('2027-02');
    const rows = await api.db
      .selectFrom('audit_log')
      .select(['action', 'subject', 'details'])
      .where('company_id', '=', w.company.id)
      .orderBy('id', 'desc')
      .limit(2)
      .execute();
    expect(rows[0]).toMatchObject({ action: 'personal_data.read', subject: w.reader.prefix });
    expect(rows[0]?.details).toEqual({
      route: 'GET /api/v1/exports/owner-statements',
      references: byReference([alpha, beta, gamma]),
    });
    expect(rows[1]?.details).not.toMatchObject({ route: 'GET /api/v1/exports/owner-statements' });
  });
});
