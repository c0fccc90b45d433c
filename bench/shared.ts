import { readFileSync } from 'node:fs';
/** What the bench's two processes share: the IPC messages and how memory is read. */
export type Counts = { queries: number; transactionControl: number; recent: string[] };
export type Memory = { rss: number; heapUsed: number; heapTotal: number; external: number };
/** CPU time the process has used so far (user + system), in microseconds. */
export type Cpu = { user: number; system: number };

/** Every message is answered with the counts, memory and CPU so far; `reset` zeroes the counts first. */
export type ToServer = { id: number; type: 'reset' | 'counts' | 'rows' | 'stop' };
/** The database the bench's server runs on: PostgreSQL over a pool, or PGlite in its own process (`npm start`'s default). */
export type BenchEngine = 'postgres' | 'pglite';
export type Reply = {
  id: number;
  type: 'reply';
  counts: Counts;
  memory: Memory;
  /** The largest rss since the last reset (sampled every 100 ms). */
  peak_rss: number;
  /** The largest rss since the process started, as the kernel kept it (Linux's VmHWM; null elsewhere). */
  lifetime_peak_rss: number | null;
  cpu: Cpu;
  /** Minor page faults of the process so far (Linux; null elsewhere). */
  faults: number | null;
  /** `rows` only: the forms' tables. */
  rows?: { leads: number; bookings: number };
};
export type Ready = {
  type: 'ready';
  port: number;
  /** The same API with the rendered-answer cache off, on a port of its own. */
  uncached_port: number;
  engine: BenchEngine;
  pool_max: number;
  publishable_key: string;
  server_key: string;
  /** The company's WhatsApp receiver (its channel's token in the path). */
  whatsapp_path: string;
  /** The operator's admin token (registered by the bench server) and the demo company's id: the admin API's routes. */
  admin_token: string;
  company_id: string;
  /** Right after start (migrated, seeded, listening), before any request. */
  memory: Memory;
};
export type FromServer = Ready | { type: 'failed'; message: string } | Reply;

export const POOL_MAX = 10; // openPostgres's default: the pool the Node server has in production.

export function memoryNow(): Memory {
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  return { rss, heapUsed, heapTotal, external };
}

/**
 * A process's largest resident set since it started, in bytes (Linux: VmHWM of /proc/<pid>/status; this process by
 * default), or null where it cannot be read.
 */
export function highWaterRss(pid: number | 'self' = 'self'): number | null {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) * 1024;
  } catch {
    return null;
  }
}

/**
 * Minor page faults of a process so far (Linux: `minflt`, field 10 of /proc/<pid>/stat), or null where it cannot be
 * read. A page first touched costs a fault; on a virtual machine each is dear (12.9 µs measured here, issue 39), and
 * memory given back to the system and touched again pays it again.
 */
export function minorFaults(pid: number | 'self' = 'self'): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const value = Number(fields[7]);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

/** A positive whole number from the environment, or `fallback` when unset. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** Runs a bench's `main` and exits with its code (1 and the error printed when it throws). */
export async function exitWith(main: () => Promise<number>): Promise<never> {
  const code = await main().catch((error: unknown) => {
    console.error(error);
    return 1;
  });
  process.exit(code);
}

/** What `npm run bench` (bench/run.ts) measures: the routes, what each must answer, and its baseline. */
export type Scenario = {
  name: string;
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers: Record<string, string>;
  expectedStatus: number;
  /** POST: a body for each request (built per request, so every one is another visitor). */
  body?: () => string;
  /**
   * Under load: the path and body of each request (e.g. a move of another deal each time), and its headers when they
   * depend on the body (a signature); `path` and `body` check it.
   */
  request?: () => { path: string; body: string; headers?: Record<string, string> };
  /** `uncached`: sent to the API with the rendered-answer cache off (its own port), so every request builds the page. */
  server?: 'uncached';
  /** The scenario this one is compared with; the baselines themselves have none. */
  baseline?: string;
  /** A table whose rows the scenario adds, one per success: counted before and after its run. */
  stores?: 'leads' | 'bookings';
  /** A fixed number of requests for the warm-up and the run, instead of their durations (each uses up a stay). */
  amount?: { warmup: number; run: number };
  /** At most this many connections (autocannon sends at least one request per connection: no more than `amount`). */
  maxConnections?: number;
  /**
   * A write measured against its own baseline (bench/scenarios.ts `ownBaselineOf`): the rows its check request stores are captured
   * (bench/write-baselines.ts) and written again by one statement per request.
   */
  own?: true;
};
