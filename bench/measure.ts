/** autocannon as `npm run bench` drives it: its options and result, and one scenario's warm-up and measured run. */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Scenario } from './scenarios';
import { type Cpu, minorFaults, type Reply, type ToServer } from './shared';

type Histogram = { average: number; mean: number; stddev: number; min: number; max: number; total: number } & Record<
  string,
  number
>;
export type AutocannonResult = {
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
/** A run: its result once done, and an event per response (autocannon's tracker). */
type AutocannonRun = Promise<AutocannonResult> & { on(event: 'response', listener: () => void): unknown };
const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as (options: AutocannonOptions) => AutocannonRun;

/**
 * autocannon keeps every response's body as a string (its lib/pipelinedRequestsQueue.js `addBody`: `body += chunk`, a
 * UTF-8 decode of each chunk read) for options this bench never sets (`verifyBody`, `expectBody`, a request's
 * `onResponse`); it counts bytes apart (`addByteCount`). Decoding the catalogue's 77 KB page, Arabic in it, took
 * 114–193 µs a response (issue 39, 2026-12-01; 8–15 µs were it ASCII): on two cores shared with the server, the kept
 * page's figure measured autocannon's decoding. So the bench drops the bodies unread, for every scenario and
 * baseline alike; BENCH_KEEP_BODIES=1 keeps autocannon as it is (to compare). A version of autocannon without this
 * method stops the bench rather than measuring otherwise unnoticed.
 */
if (process.env.BENCH_KEEP_BODIES !== '1') {
  const queue = require('autocannon/lib/pipelinedRequestsQueue') as { prototype: { addBody?: unknown } };
  if (typeof queue.prototype.addBody !== 'function') {
    throw new Error("autocannon's PipelinedRequestsQueue has no addBody: see bench/measure.ts");
  }
  queue.prototype.addBody = () => {};
}

export const perSecond = (result: AutocannonResult) => result.requests.total / result.duration;

/**
 * A run of a fixed number of requests, its duration the time to its last response. autocannon ends such a run at its
 * next whole-second tick and says so: 648 payments answered in 0.4 s or in 0.9 s both read 648 per second.
 */
async function countedRun(options: AutocannonOptions): Promise<AutocannonResult> {
  const started = performance.now();
  let last = started;
  const run = autocannon(options);
  run.on('response', () => {
    last = performance.now();
  });
  const result = await run;
  return { ...result, duration: (last - started) / 1000 };
}
/** Lets requests still in flight when autocannon stopped finish their queries. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 250));
const cpuSeconds = (a: Cpu, b: Cpu) => (b.user - a.user + b.system - a.system) / 1e6;

export type Measured = {
  result: AutocannonResult;
  /** The connections used (the run's, or fewer for a route with a fixed number of requests). */
  connections: number;
  /** Statements the server counted during the run. */
  queries: number;
  /** Server and load generator CPU during the run, in cores; the server's CPU seconds in all. */
  serverCpu: number;
  serverCpuSeconds: number;
  driverCpu: number;
  /** Minor page faults of the server and of the load generator during the run (null where /proc cannot be read). */
  serverFaults: number | null;
  driverFaults: number | null;
  /** The local PostgreSQL server's CPU seconds during the run (null on PGlite, inside the server, or without /proc). */
  databaseCpuSeconds: number | null;
  /** The server's largest rss during the run. */
  peakRss: number;
  /** Rows the run added to the scenario's table; null when it stores none. */
  stored: number | null;
};

/**
 * CPU seconds used so far by the local PostgreSQL server (Linux: utime + stime of /proc/<pid>/stat, at 100 ticks a
 * second, and cutime + cstime: the reaped children's, so a backend ending during a run keeps its CPU counted): with `postmaster`, that process and its children only (one cluster: its backends, the bench's pool keeps
 * its connections, so their CPU is counted); without, every process of the machine whose command is `postgres`.
 * Null where /proc cannot be read. Other clients of the same cluster count too: read it on a quiet cluster.
 */
export function databaseCpuSeconds(postmaster?: number): number | null {
  let ticks = 0;
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      let stat: string;
      try {
        stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      } catch {
        continue; // ended meanwhile
      }
      const close = stat.lastIndexOf(')');
      if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
      const fields = stat.slice(close + 2).split(' ');
      // fields[1] is the parent's pid (field 4 of the line)
      if (postmaster !== undefined && Number(entry) !== postmaster && Number(fields[1]) !== postmaster) continue;
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of the line)
      // cutime, cstime (fields 16 and 17): the CPU of its children that ended and were reaped (a backend whose
      // connection closed during a run), which would otherwise leave the sum and make a run's CPU negative.
      ticks += Number(fields[13]) + Number(fields[14]);
    }
  } catch {
    return null;
  }
  return ticks / 100;
}

/**
 * The postmaster's pid of the cluster `admin` is connected to, when it runs on this machine and its data folder can
 * be read (`postmaster.pid`'s first line), so the database's CPU counts that cluster alone; undefined otherwise.
 */
export async function postmasterPid(admin: {
  query: (text: string) => Promise<{ rows: Array<Record<string, unknown>> }>;
}): Promise<number | undefined> {
  try {
    const dir = (await admin.query('show data_directory')).rows[0]?.data_directory;
    const pid = Number(readFileSync(`${String(dir)}/postmaster.pid`, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 && readFileSync(`/proc/${pid}/stat`, 'utf8').includes('(postgres)') ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The count once writes still in flight have landed (it stays the same for 300 ms). */
async function rowsOf(ask: (type: ToServer['type']) => Promise<Reply>, table: 'leads' | 'bookings'): Promise<number> {
  for (let last = -1; ; ) {
    const now = (await ask('rows')).rows?.[table] ?? 0;
    if (now === last) return now;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

/** Warms the scenario up, then measures it: autocannon on `origin`, the server's CPU, statements and memory around it. */
export async function measure(
  origin: string,
  scenario: Scenario,
  settings: { seconds: number; warmupSeconds: number; connections: number; localDatabase?: boolean; postmaster?: number },
  ask: (type: ToServer['type']) => Promise<Reply>,
): Promise<Measured> {
  const { body, request } = scenario;
  const connections = Math.min(settings.connections, scenario.maxConnections ?? settings.connections);
  // autocannon refuses an amount below the connections: each takes at least one request.
  const amount = scenario.amount && {
    warmup: Math.max(scenario.amount.warmup, connections),
    run: Math.max(scenario.amount.run, connections),
  };
  const setup = request ?? (body ? () => ({ body: body() }) : undefined);
  const options: Omit<AutocannonOptions, 'duration'> = {
    url: `${origin}${scenario.path}`,
    connections,
    method: scenario.method,
    headers: scenario.headers,
    ...(setup ? { requests: [{ setupRequest: (sent) => ({ ...sent, ...setup() }) }] } : {}),
  };
  process.stdout.write(`${scenario.name}: warm-up ${amount ? `${amount.warmup} requests` : `${settings.warmupSeconds} s`}, `);
  await autocannon({ ...options, duration: settings.warmupSeconds, ...(amount ? { amount: amount.warmup } : {}) });
  await settle();
  const storedBefore = scenario.stores ? await rowsOf(ask, scenario.stores) : 0;
  const start = await ask('reset');
  const driverStart = process.cpuUsage();
  const databaseStart = settings.localDatabase ? databaseCpuSeconds(settings.postmaster) : null;
  const wallStart = performance.now();
  process.stdout.write(`run ${amount ? `${amount.run} requests` : `${settings.seconds} s`} … `);
  const driverFaultsStart = minorFaults();
  const result = amount
    ? await countedRun({ ...options, duration: settings.seconds, amount: amount.run })
    : await autocannon({ ...options, duration: settings.seconds });
  await settle();
  const end = await ask('counts');
  const wall = (performance.now() - wallStart) / 1000;
  const stored = scenario.stores ? (await rowsOf(ask, scenario.stores)) - storedBefore : null;
  console.log(`${Math.round(perSecond(result))} req/s`);
  const serverCpuSeconds = cpuSeconds(start.cpu, end.cpu);
  const databaseEnd = databaseStart === null ? null : databaseCpuSeconds(settings.postmaster);
  return {
    result,
    connections,
    queries: end.counts.queries,
    serverCpu: serverCpuSeconds / wall,
    serverCpuSeconds,
    driverCpu: cpuSeconds(driverStart, process.cpuUsage()) / wall,
    serverFaults: start.faults === null || end.faults === null ? null : end.faults - start.faults,
    driverFaults: driverFaultsStart === null ? null : (minorFaults() ?? driverFaultsStart) - driverFaultsStart,
    databaseCpuSeconds: databaseStart === null || databaseEnd === null ? null : databaseEnd - databaseStart,
    peakRss: end.peak_rss,
    stored,
  };
}
