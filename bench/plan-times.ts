/**
 * Where a write's time goes on PostgreSQL (issue 28): the planning time of each statement of a deal create, two deal
 * moves, a job create, a job's schedule with a calendar block and a rent payment received, each statement planned 5
 * times on one connection (EXPLAIN (SUMMARY), so nothing runs) and the last printed (warm catalogue caches). A fresh
 * database of its own on DATABASE_URL's server (default the local one), the demo seeded, 300 deals added first.
 * `npx tsx bench/plan-times.ts`.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { openPostgres } from '../lib/db/postgres';
import { createNodePlatform } from '../lib/node/platform';
import { seedDemo } from '../functions/seed';
import { createKey } from '../lib/keys';
import { buildApp } from '../functions/app';

const name = `pa_explain_${process.pid}`;
const server = new URL(process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres');
const admin = new pg.Client(server.toString());
await admin.connect();
await admin.query(`create database ${name}`);
server.pathname = `/${name}`;
const url = server.toString();
const captured: Array<{ sql: string; parameters: readonly unknown[] }> = [];
let on = false;
const handle = openPostgres(url, {
  log: (e) => {
    if (on) captured.push({ sql: e.query.sql, parameters: e.query.parameters });
  },
});
const platform = await createNodePlatform(
  { DATABASE_URL: url, RATE_LIMIT_SERVER_KEY_PER_MINUTE: '1000000', UPSTASH_REDIS_REST_URL: '', UPSTASH_REDIS_REST_TOKEN: '' },
  { handle },
);
const demo = await seedDemo(platform.handle.db, new Date());
const { secret } = await platform.handle.db.transaction().execute((trx) =>
  createKey(
    trx,
    demo.companyId,
    {
      kind: 'server',
      scopes: ['read:pipelines', 'write:pipelines', 'read:maintenance', 'write:maintenance', 'read:leases', 'write:leases'],
    },
    'admin',
  ),
);
const app = buildApp(platform.provide, { maxBodyBytes: platform.config.MAX_BODY_BYTES });
let n = 0;
const post = (path: string, body: unknown) =>
  app.fetch(
    new Request(`http://localhost${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${secret}` },
      body: JSON.stringify(body),
    }),
  );
const dealBody = () => ({
  person: { name: `P ${n}`, email: `p.${process.pid}.${n++}@bench.example` },
  pipeline: 'sales',
  title: 'Bench deal',
  value: '1000000',
  home: 'marina-gate-2br-sea-view',
});
for (let i = 0; i < 300; i++) {
  const r = await post('/api/v1/deals', dealBody());
  if (r.status !== 201) {
    console.log(r.status, await r.text());
    process.exit(1);
  }
}
on = true;
const made = (await (await post('/api/v1/deals', dealBody())).json()) as { reference: string };
await post(`/api/v1/deals/${made.reference}/move`, { stage: 'offer' });
await post(`/api/v1/deals/${made.reference}/move`, { stage: 'viewing' });
const r0 = await post('/api/v1/jobs', { home: 'jvc-2br-townhouse', category: 'plumbing', problem: 'A leak.' });
console.log('job', r0.status);
// A job on a holiday home, scheduled with a calendar block (as the bench's schedule route).
on = false;
const holiday = (await (
  await post('/api/v1/jobs', { home: 'marina-gate-1br-holiday-home', category: 'general', problem: 'Bench job.' })
).json()) as { reference: string };
on = true;
const day = new Date(Date.now() + 400 * 86_400_000).toISOString().slice(0, 10);
const r1 = await post(`/api/v1/jobs/${holiday.reference}/schedule`, {
  day,
  window: { start: '09:00', end: '12:00' },
  block_calendar: true,
});
console.log('schedule', r1.status);
// A rent payment received: its read (the receipt's facts, lib/rent-invoices.ts) and its write.
const due = await sql<{ id: string }>`select id from rent_payments where status = 'due' order by due_on limit 1`.execute(
  platform.handle.db,
);
const patch = await app.fetch(
  new Request(`http://localhost/api/v1/rent-payments/${due.rows[0]?.id}`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${secret}` },
    body: JSON.stringify({ status: 'received' }),
  }),
);
console.log('rent payment received', patch.status);
on = false;

const client = new pg.Client(url);
await client.connect();
for (const q of captured) {
  let res: pg.QueryResult = undefined as never;
  for (let i = 0; i < 5; i++) res = await client.query(`explain (summary on, costs off) ${q.sql}`, q.parameters as unknown[]);
  console.log('-----', q.sql.slice(0, 100).replace(/\s+/g, ' ').trim());
  console.log(
    res.rows
      .map((r) => r['QUERY PLAN'])
      .filter((l: string) => /Planning/.test(l))
      .join('\n'),
  );
}
await client.end();
await platform.handle.close();
await admin.query(`drop database ${name} with (force)`);
await admin.end();
process.exit(0);
