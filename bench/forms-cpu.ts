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
 * FORMS_CPU_CONCURRENCY (default 1) requests in flight. FORMS_CPU_ROUNDS (default 5) × FORMS_CPU_BATCH (default 100) requests of each kind; FORMS_CPU_KINDS (e.g.
 * `leads,bookings`) measures only those beside the two baselines.
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { Session } from 'node:inspector/promises';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { sql } from 'kysely';
import { buildApp } from '../functions/app';
import { seedDemo } from '../functions/seed';
import { afterResponsesSettled } from '../lib/request-lifecycle';
import { randomToken } from '../lib/crypto';
import type { DatabaseHandle } from '../lib/db/index';
import { openPGlite } from '../lib/db/pglite';
import { openPostgres } from '../lib/db/postgres';
import { createKey } from '../lib/keys';
import { createNodePlatform } from '../lib/node/platform';
import { newSecretKey } from '../lib/webhooks/secrets';
import { newDetailsKey } from '../lib/crypto-jwe';
import { enquiryFields, formOrigin } from './scenarios';
import { benchStays } from './stays';

const rounds = Number(process.env.FORMS_CPU_ROUNDS ?? 5);
const batch = Number(process.env.FORMS_CPU_BATCH ?? 100);
const profile = process.env.PROFILE;
// Requests in flight at once (1: one at a time; the bench runs 20 connections).
const concurrency = Number(process.env.FORMS_CPU_CONCURRENCY ?? 1);

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
root.post('/bare/hello', (c) => c.text('Hello Hono!', 201));
root.all('*', (c) => app.fetch(c.req.raw, c.env));

// The free stays, as the bench finds them (over HTTP, once).
const server = serve({ fetch: root.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((resolve) => server.once('listening', resolve));
const port = (server.address() as { port: number }).port;
const stays = await benchStays(`http://localhost:${port}`);
server.close();
const only = process.env.FORMS_CPU_KINDS?.split(',');
const measuresBookings = !only || only.includes('bookings');
if (measuresBookings && stays.length < rounds * batch + 20)
  throw new Error(`only ${stays.length} free stays for ${rounds * batch + 20} bookings`);

const headers = { 'Content-Type': 'application/json', 'X-Api-Key': publishableKey, Origin: formOrigin };
const enquiry = enquiryFields;
let n = 0;
const kinds = {
  // Hono's hello world (the ceiling of any route) and the bare insert (the issue's baseline of the forms).
  hello: () => ({ path: '/bare/hello', headers: { 'Content-Type': 'application/json' }, body: `{"n":${n++}}` }),
  insert: () => ({ path: '/bare/insert', headers: { 'Content-Type': 'application/json' }, body: `{"n":${n++}}` }),
  // An enquiry whose hidden field is filled: the whole way of a form (CORS, key, limits, validation, the spam
  // check's first rule) and a 201, but no statement: what the form costs besides its database work.
  'leads-bot': () => ({ path: '/api/v1/leads', headers, body: JSON.stringify({ ...enquiry(), website: 'bot' }) }),
  leads: () => ({ path: '/api/v1/leads', headers, body: JSON.stringify(enquiry()) }),
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
  // Content-Length as a client sends it (without it, the body limit would have to count the body as it streams).
  const sent = { ...h, 'Content-Length': String(Buffer.byteLength(body)) };
  const res = await root.request(`http://localhost${path}`, { method: 'POST', headers: sent, body });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`${kind}: ${res.status} ${text}`);
}

const totals = Object.fromEntries(
  Object.keys(kinds).map((k) => [k, { cpu: 0, wall: 0, trips: 0, count: 0, rounds: [] as number[] }]),
) as Record<Kind, { cpu: number; wall: number; trips: number; count: number; rounds: number[] }>;
const order = (Object.keys(kinds) as Kind[]).filter(
  (kind) => !only || only.includes(kind) || kind === 'insert' || kind === 'hello',
);
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
    let left = batch;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (left-- > 0) await send(kind);
      }),
    );
    // What runs after the answers (the webhook hand-off) is the requests' work too.
    await afterResponsesSettled();
    const used = process.cpuUsage(start);
    const t = totals[kind];
    t.wall += performance.now() - startWall;
    t.cpu += (used.user + used.system) / 1000;
    t.rounds.push((used.user + used.system) / 1000 / batch);
    t.trips += trips - startTrips;
    t.count += batch;
    if (profiled) {
      const { profile: p } = await session.post('Profiler.stop');
      if (round === rounds - 1) await report(p);
    }
  }
}

// The median round of each kind, and the median of its rounds' ratios to the bare insert of the same round: the
// machine's load moves every figure, the ratios of one round much less.
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const ratios = (kind: Kind, baseline: Kind) =>
  median(totals[kind].rounds.map((cpu, i) => (totals[baseline].rounds[i] as number) / cpu));
console.log(
  `engine ${process.env.DATABASE_URL ? 'postgres' : 'pglite'}, ${rounds} rounds × ${batch} of each, ${concurrency} at a time`,
);
console.log(
  '| request | CPU ms/request (median round) | ÷ bare insert (median of rounds) | ÷ hello | wall ms/request | round trips/request |',
);
console.log('|---|---:|---:|---:|---:|---:|');
for (const kind of order) {
  const t = totals[kind];
  console.log(
    `| ${kind} | ${median(t.rounds).toFixed(3)} | ${ratios(kind, 'insert').toFixed(3)} | ${ratios(kind, 'hello').toFixed(3)} | ${(t.wall / t.count).toFixed(3)} | ${(t.trips / t.count).toFixed(2)} |`,
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
  // Busy time only (idle left out), by where the code lives.
  const category = (file: string) =>
    file === '((idle))'
      ? 'idle'
      : /^\.\/(lib|functions|schema)\//.test(file)
        ? 'ours (lib/, functions/, schema/)'
        : /^(hono|@hono\/)/.test(file)
          ? 'Hono, @hono/*'
          : /undici|webstreams|abort_controller|js_transferable|event_target|url|buffer|encoding/.test(file)
            ? "Node's web Request/Response/Headers/streams"
            : /^(pg|pg-protocol|pg-pool|postgres-|@electric-sql)/.test(file) || /writev|writeBuffer|stream_base/.test(file)
              ? 'database driver and socket'
              : file === 'zod' || file.startsWith('@zod')
                ? 'zod'
                : file === 'kysely'
                  ? 'kysely'
                  : /garbage/.test(file)
                    ? 'garbage collection'
                    : /HashJob|RandomBytesJob|crypto/.test(file)
                      ? 'hashing and random bytes'
                      : 'other (runtime, microtasks, timers)';
  const byCategory = new Map<string, number>();
  let busy = 0;
  for (const [file, hits] of byFile) {
    const name = category(file);
    if (name === 'idle') continue;
    busy += hits;
    byCategory.set(name, (byCategory.get(name) ?? 0) + hits);
  }
  console.log(
    `busy time of ${profile} by category\n${[...byCategory.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([name, hits]) => `${((100 * hits) / busy).toFixed(1).padStart(5)} %  ${name}`)
      .join('\n')}`,
  );
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
