/**
 * A built catalogue page against a bare `select 1` through the same pool, in one process (`app.request()`, no HTTP,
 * one request at a time, the rendered-answer cache off): server CPU per request (process.cpuUsage) and wall time,
 * on PostgreSQL (`BENCH_ENGINE=postgres`, `BENCH_DATABASE_URL` a fresh database) or PGlite (a new data folder).
 * Rounds interleave the scenarios and each figure is the median of the rounds, so a burst of load on a shared
 * machine moves one round, not one scenario. Usage:
 *
 *   BENCH_ENGINE=pglite npx tsx bench/render-page.ts
 *   BENCH_ENGINE=postgres BENCH_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/fresh npx tsx bench/render-page.ts
 *
 * Options (environment): RENDER_BENCH_REQUESTS per scenario and round (default 300), RENDER_BENCH_ROUNDS (7).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { sql } from 'kysely';
import { buildApp } from '../functions/app';
import { seedDemo } from '../functions/seed';
import type { DatabaseHandle } from '../lib/db/index';
import { openPGlite } from '../lib/db/pglite';
import { openPostgres } from '../lib/db/postgres';
import { createNodePlatform } from '../lib/node/platform';

const engine = process.env.BENCH_ENGINE === 'postgres' ? 'postgres' : 'pglite';
const requests = Number(process.env.RENDER_BENCH_REQUESTS ?? 300);
const rounds = Number(process.env.RENDER_BENCH_ROUNDS ?? 7);

let dataDir: string | undefined;
let handle: DatabaseHandle;
if (engine === 'postgres') {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) throw new Error('BENCH_DATABASE_URL is not set');
  handle = openPostgres(url, { max: 4 });
} else {
  dataDir = await mkdtemp(join(tmpdir(), 'render-bench-'));
  handle = await openPGlite({ dataDir: join(dataDir, 'pglite') });
}

const platform = await createNodePlatform(
  {
    ...process.env,
    CATALOGUE_RESPONSE_CACHE_MB: '0',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000000',
    UPSTASH_REDIS_REST_URL: '',
    UPSTASH_REDIS_REST_TOKEN: '',
  },
  { handle, clientAddress: () => '192.0.2.1' },
);
// (The base commit's seedDemo takes no third argument and ignores it.)
await seedDemo(handle.db, new Date(), platform.config.MEDIA_BASE_URL);
const app = buildApp(platform.provide, { maxBodyBytes: platform.config.MAX_BODY_BYTES });
const bare = new Hono()
  .get('/bare/hello', (c) => c.text('Hello Hono!'))
  .get('/bare/select1', async (c) => {
    const result = await sql<{ one: number }>`select 1 as one`.execute(handle.db);
    return c.json({ one: result.rows[0]?.one ?? null });
  });

const host = { Host: 'localhost' };
const scenarios: Array<{ name: string; run: () => Response | Promise<Response> }> = [
  { name: 'GET /bare/hello', run: () => bare.request('http://localhost/bare/hello') },
  { name: 'GET /bare/select1', run: () => bare.request('http://localhost/bare/select1') },
  {
    name: 'GET /listings?page_size=24, built',
    run: () => app.request('http://localhost/api/v1/listings?page_size=24', { headers: host }),
  },
  {
    name: 'GET /listings/map?cover=1&page_size=100, built',
    run: () => app.request('http://localhost/api/v1/listings/map?cover=1&page_size=100', { headers: host }),
  },
  {
    name: 'GET /listings/{slug}, built',
    run: () => app.request('http://localhost/api/v1/listings/marina-gate-2br-sea-view', { headers: host }),
  },
  {
    name: 'GET /sitemap?page_size=100, built',
    run: () => app.request('http://localhost/api/v1/sitemap?page_size=100', { headers: host }),
  },
];

async function measure(run: () => Response | Promise<Response>, n: number) {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const res = await run();
    if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
  }
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000 / n, wallMs: (performance.now() - wall) / n };
}

await platform.companyCache.settled();
for (const scenario of scenarios) await measure(scenario.run, Math.max(50, requests / 3)); // warm-up (and the first fills)
const results = new Map<string, Array<{ cpuMs: number; wallMs: number }>>();
for (let round = 0; round < rounds; round++) {
  for (const scenario of scenarios) {
    const list = results.get(scenario.name) ?? [];
    list.push(await measure(scenario.run, requests));
    results.set(scenario.name, list);
  }
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};
const figures = new Map(
  [...results].map(([name, list]) => [
    name,
    { cpuMs: median(list.map((r) => r.cpuMs)), wallMs: median(list.map((r) => r.wallMs)) },
  ]),
);
const base = figures.get('GET /bare/select1')!;
const load = (await import('node:os')).loadavg().map((v) => v.toFixed(2));
console.log(`engine ${engine}, ${rounds} rounds of ${requests} requests per scenario, load average ${load.join(' ')}`);
console.log('| Request | CPU ms/req | bare select 1 CPU ÷ this | wall ms/req | bare select 1 wall ÷ this |');
console.log('|---|---:|---:|---:|---:|');
for (const [name, f] of figures) {
  console.log(
    `| ${name} | ${f.cpuMs.toFixed(3)} | ${(base.cpuMs / f.cpuMs).toFixed(3)} | ${f.wallMs.toFixed(3)} | ${(base.wallMs / f.wallMs).toFixed(3)} |`,
  );
}
await handle.close();
if (dataDir) await rm(dataDir, { recursive: true, force: true });
process.exit(0);
