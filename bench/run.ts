/**
 * `npm run bench`: the catalogue list, its 304 revalidation and a listing's detail against a bare
 * `select 1` route, on one Node server over a fresh PostgreSQL database. See docs/performance.md.
 *
 * Two processes: this one creates and drops the database and drives autocannon; a forked child (this same
 * file with BENCH_ROLE=server) runs the server, so the load generator never shares the server's event loop.
 * The child counts every SQL statement its pg clients send; the parent asks for the counts over IPC.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { markdown, mb, round, type ScenarioResult, toJson } from './report';
import { type Scenario, scenarios as scenariosFor } from './scenarios';
import { benchDeals } from './deals';
import { benchJobs } from './maintenance';
import { benchStays } from './stays';
import { runServer } from './server';
import { freshDatabase } from './database';
import { type Counts, type Cpu, envInt, type FromServer, type Memory, memoryNow, type ToServer } from './shared';

/** This file: forked again as the server (BENCH_ROLE=server). */
const SCRIPT = fileURLToPath(import.meta.url);

type Histogram = { average: number; mean: number; stddev: number; min: number; max: number; total: number } & Record<
  string,
  number
>;
type AutocannonResult = {
  duration: number;
  requests: Histogram;
  latency: Histogram;
  throughput: Histogram;
  errors: number;
  timeouts: number;
  mismatches: number;
  non2xx: number;
  resets: number;
  '1xx': number;
  '2xx': number;
  '3xx': number;
  '4xx': number;
  '5xx': number;
  statusCodeStats: Record<string, { count: number }>;
};
type AutocannonOptions = {
  url: string;
  connections: number;
  duration: number;
  /** Requests to send; overrides the duration. */
  amount?: number;
  method?: string;
  headers?: Record<string, string>;
  requests?: Array<{ setupRequest: (request: { body?: string; path?: string }) => { body?: string; path?: string } }>;
  pipelining?: number;
  timeout?: number;
};
const autocannon = createRequire(import.meta.url)('autocannon') as (options: AutocannonOptions) => Promise<AutocannonResult>;

const perSecond = (result: AutocannonResult) => result.requests.total / result.duration;
/** Lets requests still in flight when autocannon stopped finish their queries. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 250));
async function runDriver(): Promise<number> {
  const seconds = envInt('BENCH_SECONDS', 10);
  const connections = envInt('BENCH_CONNECTIONS', 50);
  const warmupSeconds = envInt('BENCH_WARMUP_SECONDS', 2);

  let child: ChildProcess | undefined;
  let rows: pg.Client | undefined;
  const database = await freshDatabase('pa_bench', async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const running = child;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      try {
        running.send({ id: -1, type: 'stop' } satisfies ToServer);
      } catch {
        running.kill('SIGKILL');
      }
      const timer = setTimeout(() => running.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    await rows?.end().catch(() => {});
  });
  const { admin } = database;
  const benchUrl = database.url;

  try {
    // Counts what the forms stored, on the bench's own database.
    const counter = new pg.Client({ connectionString: benchUrl });
    rows = counter;
    counter.on('error', (error) => console.error('bench database connection:', error.message));
    await counter.connect();
    const countNow = async (table: 'leads' | 'bookings') => {
      const result = await counter.query<{ n: string }>(`select count(*) as n from ${table}`);
      return Number(result.rows[0]?.n ?? 0);
    };
    /** The count once writes still in flight have landed (it stays the same for 300 ms). */
    const countRows = async (table: 'leads' | 'bookings') => {
      for (let last = -1; ; ) {
        const now = await countNow(table);
        if (now === last) return now;
        last = now;
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    };

    const server = fork(SCRIPT, [], {
      env: { ...process.env, BENCH_ROLE: 'server', BENCH_DATABASE_URL: benchUrl },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child = server;
    const ready = await new Promise<{ port: number; pool_max: number; publishable_key: string; server_key: string }>(
      (resolve, reject) => {
        server.on('message', (message: FromServer) => {
          if (message.type === 'ready') resolve(message);
          if (message.type === 'failed') reject(new Error(`server failed to start:\n${message.message}`));
        });
        server.once('exit', (code) => reject(new Error(`server exited with code ${code} before it was ready`)));
      },
    );

    let nextId = 0;
    const ask = (type: ToServer['type']) =>
      new Promise<{ counts: Counts; memory: Memory; cpu: Cpu }>((resolve, reject) => {
        const id = ++nextId;
        const onExit = (code: number | null, signal: string | null) =>
          reject(new Error(`the server exited (${signal ?? `code ${code}`}) during the bench`));
        const onMessage = (message: FromServer) => {
          if ('id' in message && message.id === id) {
            server.off('message', onMessage);
            server.off('exit', onExit);
            resolve(message);
          }
        };
        if (server.exitCode !== null || server.signalCode !== null) return onExit(server.exitCode, server.signalCode);
        server.on('message', onMessage);
        server.once('exit', onExit);
        server.send({ id, type } satisfies ToServer, (error) => error && reject(error));
      });

    const origin = `http://127.0.0.1:${ready.port}`;
    console.log(`server on ${origin} (pool max ${ready.pool_max}); ${seconds} s per route, ${connections} connections`);

    // Preconditions: the answers the bench expects, an ETag to revalidate and a slug to read.
    const list = await fetch(`${origin}/api/v1/listings?page_size=24`);
    const listBody = (await list.json()) as { results?: Array<{ slug: { en: string } }> };
    const etag = list.headers.get('etag');
    if (list.status !== 200 || !etag) throw new Error(`GET /api/v1/listings answered ${list.status} (ETag ${etag})`);
    if (listBody.results?.length !== 24) throw new Error(`expected 24 listings, got ${listBody.results?.length}`);
    const slug = listBody.results[0]!.slug.en;

    const stays = await benchStays(origin);
    const deals = await benchDeals(origin, ready.server_key, envInt('BENCH_DEALS', 400));
    const jobs = await benchJobs(origin, ready.server_key);
    const scenarios: Scenario[] = scenariosFor({
      etag,
      slug,
      publishableKey: ready.publishable_key,
      serverKey: ready.server_key,
      stays,
      deals,
      jobs,
    });

    // Queries for one request alone, and a check that each answers what is benched.
    const single = new Map<string, Counts>();
    for (const scenario of scenarios) {
      await ask('reset');
      const res = await fetch(`${origin}${scenario.path}`, {
        method: scenario.method,
        headers: scenario.headers,
        body: scenario.body?.(),
      });
      await res.arrayBuffer();
      if (res.status !== scenario.expectedStatus) {
        throw new Error(`${scenario.name}: expected ${scenario.expectedStatus}, got ${res.status}`);
      }
      const { counts } = await ask('counts');
      single.set(scenario.name, counts);
      const control = counts.transactionControl ? ` (+${counts.transactionControl} transaction control)` : '';
      console.log(`${scenario.name}: ${res.status}, ${counts.queries} SQL queries for one request${control}`);
      for (const text of counts.recent) console.log(`    ${text.slice(0, 110)}${text.length > 110 ? '…' : ''}`);
    }

    const loadBefore = os.loadavg();
    const memoryBefore = (await ask('counts')).memory;
    const driverMemoryBefore = memoryNow();
    const raw = new Map<
      string,
      { result: AutocannonResult; queries: number; serverCpu: number; driverCpu: number; stored: number | null }
    >();
    const cpuSeconds = (a: Cpu, b: Cpu) => (b.user - a.user + b.system - a.system) / 1e6;
    for (const scenario of scenarios) {
      const { body, request } = scenario;
      const setup = request ?? (body ? () => ({ body: body() }) : undefined);
      const options: Omit<AutocannonOptions, 'duration'> = {
        url: `${origin}${scenario.path}`,
        connections,
        method: scenario.method,
        headers: scenario.headers,
        ...(setup ? { requests: [{ setupRequest: (sent) => ({ ...sent, ...setup() }) }] } : {}),
      };
      const { amount } = scenario;
      process.stdout.write(`${scenario.name}: warm-up ${amount ? `${amount.warmup} requests` : `${warmupSeconds} s`}, `);
      await autocannon({ ...options, duration: warmupSeconds, ...(amount ? { amount: amount.warmup } : {}) });
      await settle();
      const storedBefore = scenario.stores ? await countRows(scenario.stores) : 0;
      const start = await ask('reset');
      const driverStart = process.cpuUsage();
      const wallStart = performance.now();
      process.stdout.write(`run ${amount ? `${amount.run} requests` : `${seconds} s`} … `);
      const result = await autocannon({ ...options, duration: seconds, ...(amount ? { amount: amount.run } : {}) });
      await settle();
      const end = await ask('counts');
      const wall = (performance.now() - wallStart) / 1000;
      const stored = scenario.stores ? (await countRows(scenario.stores)) - storedBefore : null;
      raw.set(scenario.name, {
        result,
        queries: end.counts.queries,
        serverCpu: cpuSeconds(start.cpu, end.cpu) / wall,
        driverCpu: cpuSeconds(driverStart, process.cpuUsage()) / wall,
        stored,
      });
      console.log(`${Math.round(perSecond(result))} req/s`);
    }
    const memoryAfter = (await ask('counts')).memory;
    const driverMemoryAfter = memoryNow();

    const results: ScenarioResult[] = scenarios.map((scenario) => {
      const { result, queries, serverCpu, driverCpu, stored } = raw.get(scenario.name)!;
      const bare = scenario.baseline ? raw.get(scenario.baseline)!.result : undefined;
      const counts = single.get(scenario.name)!;
      const statusCounts = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count]));
      const responses = Object.values(statusCounts).reduce((a, b) => a + b, 0);
      const expected = statusCounts[String(scenario.expectedStatus)] ?? 0;
      return {
        name: scenario.name,
        request: `${scenario.method} ${scenario.path}${Object.keys(scenario.headers).length ? ` (${Object.keys(scenario.headers).join(', ')})` : ''}`,
        expected_status: scenario.expectedStatus,
        requests_per_second: round(perSecond(result), 1),
        requests_per_second_sample_mean: round(result.requests.average, 1),
        duration_s: result.duration,
        requests_total: result.requests.total,
        latency_ms: {
          p50: result.latency.p50 ?? Number.NaN,
          p90: result.latency.p90 ?? Number.NaN,
          p99: result.latency.p99 ?? Number.NaN,
          average: round(result.latency.average),
          max: result.latency.max,
        },
        throughput_bytes_per_second: Math.round(result.throughput.average),
        status_counts: statusCounts,
        non_2xx_3xx: result['1xx'] + result['4xx'] + result['5xx'] + result.errors + result.timeouts,
        errors: result.errors,
        timeouts: result.timeouts,
        unexpected_status: responses - expected,
        queries_per_request: counts.queries,
        queries: counts.recent,
        queries_per_request_under_load: responses ? round(queries / responses, 3) : 0,
        server_cpu_cores: round(serverCpu),
        load_generator_cpu_cores: round(driverCpu),
        baseline: scenario.baseline ?? null,
        req_per_s_ratio_to_bare: bare ? round(perSecond(result) / perSecond(bare), 3) : null,
        p50_ratio_to_bare: bare ? round((result.latency.p50 ?? 0) / (bare.latency.p50 || 1), 2) : null,
        rows_stored: stored,
      };
    });

    const postgresVersion = (await admin.query<{ server_version: string }>('show server_version')).rows[0]?.server_version;
    const cpus = os.cpus();
    // A form that answers 201 stored its row: between the 201s counted and those plus the requests still in
    // flight when autocannon stopped (at most one per connection).
    const storedAll = results.every(
      (r) => r.rows_stored === null || (r.rows_stored >= r.requests_total && r.rows_stored <= r.requests_total + connections),
    );
    const ok = storedAll && results.every((r) => r.non_2xx_3xx === 0 && r.unexpected_status === 0);
    const report = {
      date: new Date().toISOString(),
      ok,
      machine: {
        cpus: cpus.length,
        cpu_model: cpus[0]?.model ?? 'unknown',
        total_memory_mb: mb(os.totalmem()),
        platform: `${os.platform()} ${os.release()}`,
        node: process.version,
        postgres: postgresVersion ?? 'unknown',
        // Other work on the machine skews the figures: the 1-minute load average before and after the runs.
        load_average_1m: { before: round(loadBefore[0] ?? 0), after: round(os.loadavg()[0] ?? 0) },
      },
      settings: {
        seconds,
        warmup_seconds: warmupSeconds,
        connections,
        pipelining: 1,
        pool_max: ready.pool_max,
        database: 'PostgreSQL on 127.0.0.1 (fresh database, demo seed: 32 listings, 29 published)',
        load_generator: 'autocannon in a separate process on the same machine (loopback)',
      },
      server_memory_mb: {
        before: { rss: mb(memoryBefore.rss), heap_used: mb(memoryBefore.heapUsed) },
        after: { rss: mb(memoryAfter.rss), heap_used: mb(memoryAfter.heapUsed) },
      },
      driver_memory_mb: {
        before: { rss: mb(driverMemoryBefore.rss) },
        after: { rss: mb(driverMemoryAfter.rss) },
      },
      results,
    };

    const file = join(dirname(SCRIPT), 'results', 'latest.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${toJson(report)}\n`);

    console.log(`\n${markdown(report.results)}`);
    for (const r of report.results.filter((x) => x.rows_stored !== null)) {
      console.log(
        `${r.name}: ${r.status_counts[String(r.expected_status)] ?? 0} answered ${r.expected_status}, ${r.rows_stored} rows stored`,
      );
    }
    console.log(
      `\nServer process memory: rss ${report.server_memory_mb.before.rss} MB before → ${report.server_memory_mb.after.rss} MB after` +
        ` (heap used ${report.server_memory_mb.before.heap_used} → ${report.server_memory_mb.after.heap_used} MB);` +
        ` load generator rss ${report.driver_memory_mb.before.rss} → ${report.driver_memory_mb.after.rss} MB`,
    );
    console.log(
      `Machine: ${report.machine.cpus} × ${report.machine.cpu_model}, Node ${report.machine.node}, PostgreSQL ${report.machine.postgres};` +
        ` load average (1 min) ${report.machine.load_average_1m.before} before, ${report.machine.load_average_1m.after} after`,
    );
    console.log(`Results written to ${file}`);
    if (!ok) console.error('FAILED: some responses were errors or had an unexpected status (see the table).');
    return ok ? 0 : 1;
  } finally {
    await database.cleanup();
  }
}

if (process.env.BENCH_ROLE === 'server') {
  await runServer();
} else {
  const code = await runDriver().catch((error: unknown) => {
    console.error(error);
    return 1;
  });
  process.exit(code);
}
