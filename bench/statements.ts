/**
 * `npx tsx bench/statements.ts`: what owner statements cost, on a fresh PostgreSQL database (DATABASE_URL's server)
 * with the demo company, requests in process (`app.request`), one at a time:
 *   1. PATCH /rent-payments/{id} {status: received} with migration 0023's trigger (the statement lines written in the
 *      receipt's statement) and, as the baseline in the same run, with the trigger disabled: blocks of 10 receipts
 *      alternate between the two;
 *   2. GET /owner-statements of a month of 2 × BENCH_STATEMENT_RECEIPTS lines, and GET /exports/journal (JSON and
 *      Xero CSV) of that month, beside GET /leases/{reference} (a lease with its schedule) as a read of the same run.
 * Prints medians and p90 in milliseconds. The journal’s accounts are mapped before the first request.
 */
import { sql } from 'kysely';
import { buildApp } from '../functions/app';
import { seedDemo } from '../functions/seed';
import { openPostgres } from '../lib/db/postgres';
import { createKey } from '../lib/keys';
import { createNodePlatform } from '../lib/node/platform';
import { MemoryRateLimiter } from '../lib/ratelimit/memory';
import { freshDatabase } from './database';

const receipts = Number(process.env.BENCH_STATEMENT_RECEIPTS ?? 100);
const reads = Number(process.env.BENCH_STATEMENT_READS ?? 50);
const ms = (values: number[], q: number) => values.toSorted((a, b) => a - b)[Math.floor(q * (values.length - 1))]?.toFixed(2);
const report = (name: string, values: number[]) =>
  console.log(`${name}: median ${ms(values, 0.5)} ms, p90 ${ms(values, 0.9)} ms (${values.length})`);

let close: () => Promise<void> = async () => {};
const database = await freshDatabase('pa_bench_statements', () => close());
try {
  const handle = openPostgres(database.url);
  const platform = await createNodePlatform(
    { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '100000000', WEBHOOK_SECRET_KEY: Buffer.alloc(32, 7).toString('base64') },
    { handle, limiter: new MemoryRateLimiter() },
  );
  close = () => platform.handle.close();
  const db = platform.handle.db;
  const now = new Date('2027-01-10T08:00:00Z');
  const { companyId } = await seedDemo(db, now);
  // The journal's accounts, mapped before any request reads (and keeps) the company row.
  await sql`update companies set settings = settings || ${JSON.stringify({
    accounting_accounts: Object.fromEntries(
      ['rent_income', 'owner_payable', 'fees', 'deposits_held', 'maintenance'].map((k, i) => [
        k,
        { code: String(200 + i), name: k },
      ]),
    ),
  })}::jsonb where id = ${companyId}::uuid`.execute(db);
  const scopes = ['read:leases', 'write:leases', 'write:contacts'] as const;
  const { secret } = await db
    .transaction()
    .execute((trx) => createKey(trx, companyId, { kind: 'server', name: 'Statements bench', scopes: [...scopes] }, 'admin'));
  const app = buildApp(platform.provide);
  const call = async (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') => {
    const started = performance.now();
    const res = await app.request(`http://localhost/api/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return { time: performance.now() - started, json: text.startsWith('{') ? JSON.parse(text) : text };
  };
  const person = async (email: string) => (await call('/contacts', { email })).json.reference as string;
  const [owner, renter] = [await person('bench.owner@example.com'), await person('bench.renter@example.com')];
  const lease = async () =>
    (
      await call('/leases', {
        home: 'marina-gate-1br-furnished',
        renter,
        landlord: owner,
        term: { start: '2027-01-01', end: '2036-12-31' },
        rent: { amount: '120000', period: 'year' },
        schedule: { payments: 120 },
        fee: { kind: 'percent', value: '5' },
      })
    ).json;
  const [a, b] = [await lease(), await lease()];
  const withTrigger: number[] = [];
  const without: number[] = [];
  const ids = (l: { schedule: { rows: Array<{ payment_id: string }> } }) => l.schedule.rows.map((r) => r.payment_id);
  const [payA, payB] = [ids(a), ids(b)];
  for (let block = 0; block * 10 < Math.min(receipts, 120); block++) {
    for (const [on, payments, times] of [
      [true, payA, withTrigger],
      [false, payB, without],
    ] as const) {
      await sql.raw(`alter table rent_payments ${on ? 'enable' : 'disable'} trigger rent_payments_owner_statement`).execute(db);
      for (const id of payments.slice(block * 10, block * 10 + 10)) {
        times.push((await call(`/rent-payments/${id}`, { status: 'received' }, 'PATCH')).time);
      }
    }
  }
  await sql`alter table rent_payments enable trigger rent_payments_owner_statement`.execute(db);
  report('receipt with the statement trigger', withTrigger);
  report('receipt without it (baseline)', without);
  const month = new Date().toISOString().slice(0, 7);
  const lines = (await call(`/owner-statements?owner=${owner}&month=${month}`)).json.lines.length as number;
  const timed = async (path: string) => {
    const times: number[] = [];
    for (let i = 0; i < reads; i++) times.push((await call(path)).time);
    return times;
  };
  report(`GET /leases/{reference} (baseline read, 120 rows)`, await timed(`/leases/${a.reference}`));
  report(`GET /owner-statements (${lines} lines)`, await timed(`/owner-statements?owner=${owner}&month=${month}`));
  report(`GET /exports/journal JSON (${lines} entries)`, await timed(`/exports/journal?month=${month}`));
  report(`GET /exports/journal Xero CSV (${lines} entries)`, await timed(`/exports/journal?month=${month}&format=xero`));
} finally {
  await database.cleanup();
}
