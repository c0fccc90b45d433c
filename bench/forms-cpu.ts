/**
 * Server CPU of one enquiry and one booking request against the bare one-row insert, in process: the real app
 * called through `app.request()` (no sockets, one request at a time), `process.cpuUsage()` around each batch,
 * batches of the three interleaved so the machine's load hits them alike. Round trips are counted at the driver
 * (BEGIN and COMMIT included). `PROFILE=leads|bookings|insert` also writes an inspector CPU profile of that batch
 * and prints its self time by file.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/x npx tsx bench/forms-cpu.ts   (PostgreSQL; a database of its own)
 *   npx tsx bench/forms-cpu.ts                                                      (PGlite in process)
 *
 * FORMS_CPU_ROUNDS (default 5) × FORMS_CPU_BATCH (default 100) requests of each kind.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { Session } from 'node:inspector/promises';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { sql } from 'kysely';
import { buildApp } from '../functions/app';
import { seedDemo } from '../functions/seed';
import { afterResponsesSettled } from '../lib/app';
import { randomToken } from '../lib/crypto';
import type { DatabaseHandle } from '../lib/db/index';
import { openPGlite } from '../lib/db/pglite';
import { openPostgres } from '../lib/db/postgres';
import { createKey } from '../lib/keys';
import { createNodePlatform } from '../lib/node/platform';
import { newSecretKey } from '../lib/webhooks/secrets';
import { newDetailsKey } from '../lib/crypto-jwe';
import { formOrigin } from './scenarios';
import { benchStays } from './stays';

const rounds = Number(process.env.FORMS_CPU_ROUNDS ?? 5);
const batch = Number(process.env.FORMS_CPU_BATCH ?? 100);
const profile = process.env.PROFILE;

let trips = 0;
const log = () => {
  trips++;
};

async function openDatabase(): Promise<{ handle: DatabaseHandle; drop: () => Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (!url) return { handle: await openPGlite({ log }), drop: async () => {} };
  const name = `forms_cpu_${randomToken(8).toLowerCase()}`;
  const server = openPostgres(url, { max: 1 });
  await sql`create database ${sql.id(name)}`.execute(server.db);
  const own = new URL(url);
  own.pathname = `/${name}`;
  const handle = openPostgres(own.toString(), { log });
  return {
    handle,
    drop: async () => {
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(server.db);
      await server.close();
    },
  };
}

const { handle, drop } = await openDatabase();
const details = newDetailsKey();
const platform = await createNodePlatform(
  {
    RATE_LIMIT_PUBLISHABLE_KEY_PER_MINUTE: '100000000',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000000',
    RATE_LIMIT_SERVER_KEY_PER_MINUTE: '100000000',
    UPSTASH_REDIS_REST_URL: '',
    UPSTASH_REDIS_REST_TOKEN: '',
    WEBHOOK_SECRET_KEY: newSecretKey(),
    DETAILS_KEYS: JSON.stringify({ [details.kid]: details.key }),
    DETAILS_KEY_ID: details.kid,
  },
  // A constant client address: app.request() has no socket (getConnInfo would throw on every request).
  { handle, clientAddress: () => '192.0.2.1' },
);
const { db } = handle;
const demo = await seedDemo(db, new Date());
const { secret: publishableKey } = await db
  .transaction()
  .execute((trx) =>
    createKey(trx, demo.companyId, { kind: 'publishable', origins: [formOrigin], leadTypes: ['enquiry', 'booking'] }, 'admin'),
  );
await sql`create table bench_rows (id bigint generated always as identity primary key, body text not null)`.execute(db);
const app = buildApp(platform.provide, { maxBodyBytes: platform.config.MAX_BODY_BYTES });
const root = new Hono<{ Bindings: Record<string, unknown> }>();
// The bench's bare insert (bench/server.ts): one row in one transaction on the same Kysely instance and pool.
root.post('/bare/insert', async (c) => {
  const body = await c.req.text();
  const row = await db
    .transaction()
    .execute((trx) => sql<{ id: string }>`insert into bench_rows (body) values (${body}) returning id`.execute(trx));
  return c.json({ id: row.rows[0]?.id ?? null }, 201);
});
root.all('*', (c) => app.fetch(c.req.raw, c.env));

// The free stays, as the bench finds them (over HTTP, once).
const server = serve({ fetch: root.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((resolve) => server.once('listening', resolve));
const port = (server.address() as { port: number }).port;
const stays = await benchStays(`http://localhost:${port}`);
server.close();
if (stays.length < rounds * batch + 20) throw new Error(`only ${stays.length} free stays for ${rounds * batch + 20} bookings`);

let n = 0;
const headers = { 'Content-Type': 'application/json', 'X-Api-Key': publishableKey, Origin: formOrigin };
const kinds = {
  insert: () => ({ path: '/bare/insert', headers: { 'Content-Type': 'application/json' }, body: `{"n":${n++}}` }),
  leads: () => ({
    path: '/api/v1/leads',
    headers,
    body: JSON.stringify({
      name: `Bench Visitor ${n}`,
      email: `visitor.${n++}@bench.example`,
      message: 'Is it still available?',
      language: 'en',
      consent: true,
      consent_version: '2026-01',
      challenge: 'XXXX.DUMMY.TOKEN.XXXX',
      website: '',
      form: 'listing-enquiry',
      page: `${formOrigin}/listing.html`,
      listing: 'marina-gate-2br-sea-view',
    }),
  }),
  // The same visitor again: matched by email.
  'leads-known': () => ({
    path: '/api/v1/leads',
    headers,
    body: JSON.stringify({
      name: 'Bench Regular',
      email: 'regular@bench.example',
      message: 'And the other one?',
      consent: true,
      consent_version: '2026-01',
      challenge: 'XXXX.DUMMY.TOKEN.XXXX',
      website: '',
      listing: 'marina-gate-2br-sea-view',
    }),
  }),
  bookings: () => {
    const stay = stays.shift();
    if (!stay) throw new Error('out of stays');
    return {
      path: '/api/v1/bookings',
      headers,
      body: JSON.stringify({
        ...stay,
        guests: 2,
        name: `Bench Guest ${n}`,
        email: `guest.${n++}@bench.example`,
        language: 'en',
        consent: true,
        consent_version: '2026-01',
        challenge: 'XXXX.DUMMY.TOKEN.XXXX',
        website: '',
      }),
    };
  },
} as const;
type Kind = keyof typeof kinds;

async function send(kind: Kind): Promise<void> {
  const { path, headers: h, body } = kinds[kind]();
  const res = await root.request(`http://localhost${path}`, { method: 'POST', headers: h, body });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`${kind}: ${res.status} ${text}`);
  await afterResponsesSettled();
}

const totals = Object.fromEntries(Object.keys(kinds).map((k) => [k, { cpu: 0, wall: 0, trips: 0, count: 0 }])) as Record<
  Kind,
  { cpu: number; wall: number; trips: number; count: number }
>;
const order = Object.keys(kinds) as Kind[];
for (const kind of order) for (let i = 0; i < 20; i++) await send(kind); // warm-up (JIT, caches, the key's last use)

const session = profile ? new Session() : undefined;
if (session) {
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 50 });
}
for (let round = 0; round < rounds; round++) {
  for (const kind of order) {
    const profiled = session && kind === profile;
    if (profiled) await session.post('Profiler.start');
    const startTrips = trips;
    const start = process.cpuUsage();
    const startWall = performance.now();
    for (let i = 0; i < batch; i++) await send(kind);
    const used = process.cpuUsage(start);
    const t = totals[kind];
    t.wall += performance.now() - startWall;
    t.cpu += (used.user + used.system) / 1000;
    t.trips += trips - startTrips;
    t.count += batch;
    if (profiled) {
      const { profile: p } = await session.post('Profiler.stop');
      if (round === rounds - 1) await report(p);
    }
  }
}

const base = totals.insert.cpu / totals.insert.count;
console.log(`engine ${process.env.DATABASE_URL ? 'postgres' : 'pglite'}, ${rounds} × ${batch} of each, one at a time`);
console.log('| request | CPU ms/request | ÷ bare insert (CPU) | wall ms/request | round trips/request |');
console.log('|---|---:|---:|---:|---:|');
for (const kind of order) {
  const t = totals[kind];
  const cpu = t.cpu / t.count;
  console.log(
    `| ${kind} | ${cpu.toFixed(3)} | ${(base / cpu).toFixed(3)} | ${(t.wall / t.count).toFixed(3)} | ${(t.trips / t.count).toFixed(2)} |`,
  );
}

type Node = {
  id: number;
  callFrame: { url: string; functionName: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
};
async function report(p: { nodes: Node[]; samples?: number[] }) {
  await writeFile(`${tmpdir()}/forms-${profile}.cpuprofile`, JSON.stringify(p));
  const byId = new Map(p.nodes.map((node) => [node.id, node]));
  const byFile = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  for (const id of p.samples ?? []) {
    const node = byId.get(id);
    if (!node) continue;
    total++;
    const url = node.callFrame.url.replace(/^file:\/\//, '').replace(process.cwd(), '.');
    const file = url.includes('node_modules/')
      ? url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, '$1')
      : url || `(${node.callFrame.functionName || 'native'})`;
    byFile.set(file, (byFile.get(file) ?? 0) + 1);
    const fn = `${node.callFrame.functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + 1);
  }
  const top = (m: Map<string, number>, k: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, k)
      .map(([name, hits]) => `${((100 * hits) / total).toFixed(1).padStart(5)} %  ${name}`)
      .join('\n');
  console.log(`profile of ${profile} (last round, ${total} samples): self time by file\n${top(byFile, 30)}`);
  console.log(`by function\n${top(byFunction, 30)}`);
  // Inclusive time of our own functions (what they and everything they call used, within one synchronous run).
  const parent = new Map<number, number>();
  for (const node of p.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const inclusive = new Map<string, number>();
  for (const id of p.samples ?? []) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at);
      if (!node) break;
      const url = node.callFrame.url.replace(/^file:\/\//, '').replace(process.cwd(), '.');
      if (!url.startsWith('./lib') && !url.startsWith('./functions') && !url.startsWith('./schema')) continue;
      const fn = `${node.callFrame.functionName || '(anonymous)'} ${url}:${node.callFrame.lineNumber + 1}`;
      if (seen.has(fn)) continue;
      seen.add(fn);
      inclusive.set(fn, (inclusive.get(fn) ?? 0) + 1);
    }
  }
  console.log(`our functions, inclusive\n${top(inclusive, 40)}`);
}

await platform.handle.close();
await drop();
