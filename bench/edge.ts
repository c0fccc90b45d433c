/**
 * The edge bench (issue 39, "At the edge"): CPU milliseconds per request of every public route family in the BUILT
 * Workers, run by workerd (Miniflare, as test/workerd runs them; the Neon driver → the local PostgreSQL through the
 * WebSocket proxy). Cloudflare bills and limits a Worker's CPU time (10 ms a request on the Free plan), not its wait
 * on the database; workerd does not report a request's CPU, so the bench reads the workerd process's own CPU time
 * (`/proc/<pid>/stat`, user + system) before and after a run of requests sent one at a time, and divides.
 *
 * What that counts beyond the billed figure: workerd's HTTP handling of each request (Miniflare hands a request to a
 * Worker through workerd's loopback server) and the Neon driver's WebSocket frames. A Worker that answers "hello" at
 * once, in the same workerd and through the same path, is measured in the same run: its CPU per request is that
 * floor, and the table shows each route with and without it.
 *
 *   npm run bench:edge                 # builds the Workers, then 200 requests per route (EDGE_REQUESTS)
 *   EDGE_PROFILE='GET /contacts' npm run bench:edge   # a V8 CPU profile of the routes named instead (bench/edge-profile.ts)
 *
 * Writes `bench/results/edge-latest.json` and prints the goals: catalogue reads ≤ 1 ms, every write ≤ 5 ms, nothing
 * near the Free plan's 10 ms (net of the floor).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { build } from 'esbuild';
import type { Miniflare } from 'miniflare';
import { createKey } from '../lib/keys';
import { seedDemo } from '../functions/seed';
import { bundleOf, startWorkerd, type Workerd } from '../test/workerd/support';
import { benchStays, type BenchStay } from './stays';
import { enquiryFields, formOrigin } from './scenarios';
import { round } from './report';
import { cpuMs, profileWorker, workerdPid } from './edge-profile';

const REQUESTS = Number(process.env.EDGE_REQUESTS ?? 200);
const WARMUP = Math.max(5, Math.floor(REQUESTS / 10));
const HOST = 'localhost';
const unlimited = {
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000000',
  RATE_LIMIT_PUBLISHABLE_KEY_PER_MINUTE: '100000000',
  RATE_LIMIT_SERVER_KEY_PER_MINUTE: '100000000',
};
const groups = ['catalogue', 'crm', 'forms', 'stay', 'leases', 'maintenance', 'pipelines', 'events'] as const;
type Worker = (typeof groups)[number] | 'hello' | 'bare' | 'bare-pool';

type Kind = 'floor' | 'read' | 'catalogue read' | 'write';
type Route = {
  name: string;
  kind: Kind;
  worker: Worker;
  method: 'GET' | 'POST';
  status: number;
  /** The n-th request (each write another visitor, another stay). */
  request: (n: number) => { path: string; headers?: Record<string, string>; body?: unknown };
};

async function send(mf: Miniflare, route: Route, n: number): Promise<void> {
  const { path, headers, body } = route.request(n);
  const worker = await mf.getWorker(route.worker);
  const response = await worker.fetch(`http://${HOST}${path}`, {
    method: route.method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== route.status) {
    throw new Error(`${route.name} (request ${n}): ${response.status}, expected ${route.status}: ${text.slice(0, 400)}`);
  }
}

type Measured = { name: string; kind: Kind; worker: Worker; requests: number; cpu_ms_per_request: number; net_ms: number | null };

async function measureRoute(mf: Miniflare, pid: number, route: Route, offset: number): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await send(mf, route, offset + i);
  const before = cpuMs(pid);
  for (let i = 0; i < REQUESTS; i++) await send(mf, route, offset + WARMUP + i);
  return (cpuMs(pid) - before) / REQUESTS;
}

async function main(): Promise<void> {
  const suffix = randomBytes(4).toString('hex');
  // Beside the Workers' bundles (workerd reads modules below the folder it starts in, never through "..").
  const folder = fileURLToPath(new URL('../dist/bench-edge/', import.meta.url));
  await mkdir(folder, { recursive: true });
  const hello = join(folder, 'hello.js');
  await writeFile(hello, 'export default { fetch() { return new Response("hello"); } };\n');
  const bare = join(folder, 'bare.js');
  await build({
    entryPoints: [fileURLToPath(new URL('./edge-bare.ts', import.meta.url))],
    outfile: bare,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    logLevel: 'warning',
  });
  let keys = { publishable: '', server: '' };
  const profiled = process.env.EDGE_PROFILE ? new RegExp(process.env.EDGE_PROFILE) : undefined;
  const inspectorPort = profiled ? Number(process.env.EDGE_INSPECTOR_PORT ?? 9239) : undefined;
  const workerd: Workerd = await startWorkerd({
    inspectorPort,
    databaseName: `pa_bench_edge_${suffix}`,
    applicationName: 'pa_bench_edge',
    workers: [
      // The first Worker answers the Miniflare's own URL: the default one (every group), used for the set-up reads.
      { name: 'default', bundle: bundleOf('default'), bindings: { ...unlimited, ADMIN_API: 'off' } },
      ...groups.map((name) => ({ name, bundle: bundleOf(name), bindings: unlimited })),
      { name: 'hello', bundle: hello },
      { name: 'bare', bundle: bare },
      // The same Worker with its reads kept on the WebSocket (no HTTP stand-in named: lib/db/neon.ts useNeonProxy).
      { name: 'bare-pool', bundle: bare, bindings: { NEON_HTTP_PROXY: '' } },
    ],
    seed: async (handle) => {
      const demo = await seedDemo(handle.db, new Date());
      keys = await handle.db.transaction().execute(async (trx) => {
        const publishable = await createKey(
          trx,
          demo.companyId,
          { kind: 'publishable', origins: [formOrigin], leadTypes: ['enquiry', 'booking'] },
          'admin',
        );
        const server = await createKey(
          trx,
          demo.companyId,
          {
            kind: 'server',
            scopes: ['read:contacts', 'write:contacts', 'read:leases', 'read:maintenance', 'write:maintenance'].concat([
              'read:pipelines',
              'write:pipelines',
              'read:events',
              'read:bookings',
            ]) as never,
          },
          'admin',
        );
        return { publishable: publishable.secret, server: server.secret };
      });
    },
  });
  try {
    const mf = workerd.mf;
    const origin = (await mf.ready).origin;
    const pid = workerdPid();
    const server = { Authorization: `Bearer ${keys.server}` };
    const form = { 'X-Api-Key': keys.publishable, Origin: formOrigin };
    const page = (await (await fetch(`${origin}/api/v1/listings?page_size=20`)).json()) as {
      results: Array<{ slug: { en: string } }>;
    };
    const slug = page.results[0]?.slug.en;
    if (!slug) throw new Error('the demo catalogue has no listing');
    const etag = (await fetch(`${origin}/api/v1/listings?page_size=20`)).headers.get('etag') ?? '';
    const stays: BenchStay[] = await benchStays(origin);
    const quoteStay = stays[0];
    if (!quoteStay || stays.length < 2 * (WARMUP + REQUESTS)) {
      throw new Error(`only ${stays.length} free stays: too few for the booking requests (set EDGE_REQUESTS lower)`);
    }
    const job = (n: number) => ({ home: quoteStay.listing, category: 'general', problem: `Edge bench job ${n}` });
    const person = (tag: string, n: number) => ({ name: `Edge Person ${n}`, email: `${tag}.${suffix}.${n}@bench.example` });
    const consent = { consent: true, consent_version: '2026-01', challenge: 'XXXX.DUMMY.TOKEN.XXXX', website: '' };

    const routes: Route[] = [
      {
        name: 'hello world (the floor)',
        kind: 'floor',
        worker: 'hello',
        method: 'GET',
        status: 200,
        request: () => ({ path: '/' }),
      },
      {
        name: 'select 1 over HTTP (a public read)',
        kind: 'floor',
        worker: 'bare',
        method: 'GET',
        status: 200,
        request: () => ({ path: '/' }),
      },
      {
        name: 'select 1 through a Neon pool (WebSocket)',
        kind: 'floor',
        worker: 'bare-pool',
        method: 'GET',
        status: 200,
        request: () => ({ path: '/' }),
      },
      {
        name: 'GET /listings',
        kind: 'catalogue read',
        worker: 'catalogue',
        method: 'GET',
        status: 200,
        request: () => ({ path: '/api/v1/listings?page_size=20' }),
      },
      {
        name: 'GET /listings (If-None-Match: 304)',
        kind: 'catalogue read',
        worker: 'catalogue',
        method: 'GET',
        status: 304,
        request: () => ({ path: '/api/v1/listings?page_size=20', headers: { 'If-None-Match': etag } }),
      },
      {
        name: 'GET /listings/{slug}',
        kind: 'catalogue read',
        worker: 'catalogue',
        method: 'GET',
        status: 200,
        request: () => ({ path: `/api/v1/listings/${slug}` }),
      },
      {
        name: 'GET /listings?q=marina',
        kind: 'catalogue read',
        worker: 'catalogue',
        method: 'GET',
        status: 200,
        request: () => ({ path: '/api/v1/listings?q=marina' }),
      },
      {
        name: 'GET /areas',
        kind: 'catalogue read',
        worker: 'catalogue',
        method: 'GET',
        status: 200,
        request: () => ({ path: '/api/v1/areas' }),
      },
      {
        name: 'GET /listings/{slug}/quote',
        kind: 'read',
        worker: 'stay',
        method: 'GET',
        status: 200,
        request: () => ({
          path: `/api/v1/listings/${quoteStay.listing}/quote?check_in=${quoteStay.check_in}&check_out=${quoteStay.check_out}&guests=2`,
        }),
      },
      {
        name: 'GET /contacts',
        kind: 'read',
        worker: 'crm',
        method: 'GET',
        status: 200,
        request: () => ({ path: '/api/v1/contacts', headers: server }),
      },
      {
        name: 'GET /leases',
        kind: 'read',
        worker: 'leases',
        method: 'GET',
        status: 200,
        request: () => ({ path: '/api/v1/leases', headers: server }),
      },
      {
        name: 'GET /jobs',
        kind: 'read',
        worker: 'maintenance',
        method: 'GET',
        status: 200,
        request: () => ({ path: '/api/v1/jobs', headers: server }),
      },
      {
        name: 'GET /deals',
        kind: 'read',
        worker: 'pipelines',
        method: 'GET',
        status: 200,
        request: () => ({ path: '/api/v1/deals', headers: server }),
      },
      {
        name: 'GET /events',
        kind: 'read',
        worker: 'events',
        method: 'GET',
        status: 200,
        request: () => ({ path: '/api/v1/events', headers: server }),
      },
      {
        name: 'POST /leads (enquiry form)',
        kind: 'write',
        worker: 'forms',
        method: 'POST',
        status: 201,
        request: () => ({ path: '/api/v1/leads', headers: form, body: enquiryFields() }),
      },
      {
        name: 'POST /bookings (booking request)',
        kind: 'write',
        worker: 'stay',
        method: 'POST',
        status: 201,
        // Every request another stay (stays[0] is the quote's): the n-th of the tiled free stays.
        request: (n) => ({
          path: '/api/v1/bookings',
          headers: form,
          body: { ...stays[1 + n], guests: 2, ...person('guest', n), ...consent },
        }),
      },
      {
        name: 'POST /contacts',
        kind: 'write',
        worker: 'crm',
        method: 'POST',
        status: 201,
        request: (n) => ({ path: '/api/v1/contacts', headers: server, body: person('contact', n) }),
      },
      {
        name: 'POST /deals',
        kind: 'write',
        worker: 'pipelines',
        method: 'POST',
        status: 201,
        request: (n) => ({
          path: '/api/v1/deals',
          headers: server,
          body: { person: person('buyer', n), title: 'Edge deal', home: slug, value: '2450000' },
        }),
      },
      {
        name: 'POST /jobs',
        kind: 'write',
        worker: 'maintenance',
        method: 'POST',
        status: 201,
        request: (n) => ({ path: '/api/v1/jobs', headers: server, body: job(n) }),
      },
    ];

    if (profiled && inspectorPort) {
      // EDGE_PROFILE=<a regular expression on the routes' names>: a CPU profile of each such route instead of the table.
      for (const route of routes.filter((r) => profiled.test(r.name))) {
        for (let i = 0; i < WARMUP; i++) await send(mf, route, i);
        const file = join(folder, `${route.name.replace(/[^a-z0-9]+/gi, '-')}.cpuprofile`);
        const hot = await profileWorker(inspectorPort, route.worker, file, async () => {
          for (let i = 0; i < REQUESTS; i++) await send(mf, route, WARMUP + i);
        });
        console.log(`\n${route.name} (${REQUESTS} requests; the whole profile: ${file})`);
        console.table(hot);
      }
      return;
    }
    const measured: Measured[] = [];
    let floor = 0;
    for (const route of routes) {
      // The floor again at the end of the run too would be fairer under a moving load; it is measured first and last.
      const perRequest = await measureRoute(mf, pid, route, 0);
      if (route.worker === 'hello') floor = perRequest;
      measured.push({
        name: route.name,
        kind: route.kind,
        worker: route.worker,
        requests: REQUESTS,
        cpu_ms_per_request: round(perRequest),
        net_ms: route.worker === 'hello' ? null : round(Math.max(0, perRequest - floor)),
      });
      console.log(`${route.name.padEnd(40)} ${round(perRequest).toString().padStart(8)} ms CPU / request`);
    }
    const floorAgain = await measureRoute(mf, pid, routes[0]!, 0);
    const goalOf = (m: Measured) => (m.kind === 'catalogue read' ? 1 : m.kind === 'write' ? 5 : m.kind === 'read' ? 5 : null);
    console.log(`\nThe floor (hello world): ${round(floor)} ms first, ${round(floorAgain)} ms last.\n`);
    console.log('| Route | Worker | CPU ms / request | net of the floor | goal | met |');
    console.log('|---|---|---:|---:|---:|---|');
    for (const m of measured) {
      const goal = goalOf(m);
      const met = goal === null || m.net_ms === null ? '' : m.net_ms <= goal ? 'yes' : '**no**';
      console.log(
        `| ${m.name} | ${m.worker} | ${m.cpu_ms_per_request} | ${m.net_ms ?? ''} | ${goal === null ? '' : `≤ ${goal}`} | ${met} |`,
      );
    }
    const result = {
      when: new Date().toISOString(),
      machine: {
        cpus: os.cpus().length,
        load_before: os
          .loadavg()
          .map((load) => round(load))
          .join(' '),
      },
      requests_per_route: REQUESTS,
      warmup_per_route: WARMUP,
      floor_ms: { first: round(floor), last: round(floorAgain) },
      routes: measured,
    };
    const out = new URL('./results/edge-latest.json', import.meta.url);
    await writeFile(out, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`\nWritten to ${out.pathname}`);
  } finally {
    await workerd.close();
  }
}

await main();
