/**
 * Start-up of `npm start` on an existing data folder (issue 14: ≤ 1 s; issue 39: ≤ 1.3× PGlite alone opening the same
 * folder, and a later start's peak memory ≤ 1.15× PGlite alone's with the same buffers), in the same run.
 * `node bin/start.mjs` is what `npm start` runs (npm's own start-up is not counted). A first start creates and seeds
 * the folder; then each counted start is timed from spawn to its "Property API on" line (with the base URL after it)
 * and to its first answer, and stopped (SIGTERM) before the next; PGlite alone is `PGlite.create` with the server's
 * extensions (btree_gist and pg_trgm: the folder's indexes need both) on the same folder, then `select 1`, timed
 * inside its process from before the import (so both include loading modules). `npx tsx bench/startup.ts` runs it
 * alone (BENCH_STARTS starts, 5 by default) and prints the two ratios against their goals with the load average.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { round } from './report';
import { highWaterRss } from './shared';
import { defaultSharedBuffers } from '../lib/db/pglite';
// @ts-expect-error: plain JavaScript (bin/build-server.mjs), no declarations
import { serverBundle } from '../bin/build-server.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Runs `args` with node until it prints `line`, then (if given) awaits `next` with what it printed, then stops it
 * (SIGTERM: the server closes its database) or lets it end by itself; answers the milliseconds from spawn to the
 * line and to the end of `next`, once the process has ended.
 */
function untilLine(
  args: string[],
  env: NodeJS.ProcessEnv,
  line: string | RegExp,
  options: { stop?: boolean; next?: (output: string) => Promise<unknown> } = {},
): Promise<{ ms: number; nextMs: number; output: string; peakRssMb: number | null }> {
  const { stop = true, next } = options;
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let ms: number | undefined;
    let nextMs = 0;
    let peakRssMb: number | null = null;
    let failed: unknown;
    const timer = setTimeout(() => child.kill('SIGKILL'), 180_000);
    const seen = (chunk: Buffer) => {
      output += chunk.toString();
      if (ms === undefined && (typeof line === 'string' ? output.includes(line) : line.test(output))) {
        ms = performance.now() - started;
        void (next ? next(output) : Promise.resolve())
          .then(
            () => {
              nextMs = performance.now() - started;
            },
            (error: unknown) => {
              failed = error;
            },
          )
          .finally(() => {
            // The child's largest resident set so far (Linux: VmHWM), read just before it is stopped.
            peakRssMb = highWaterMb(child.pid);
            if (stop) child.kill('SIGTERM');
          });
      }
    };
    child.stdout.on('data', seen);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', () => {
      clearTimeout(timer);
      if (failed !== undefined) reject(failed);
      else if (ms === undefined) reject(new Error(`${args.join(' ')} ended before "${line}":\n${output}`));
      else resolve({ ms, nextMs, output, peakRssMb });
    });
  });
}

/** A child's largest resident set since it started, in MB (bench/shared.ts), or null where it cannot be read. */
function highWaterMb(pid: number | undefined): number | null {
  const bytes = pid === undefined ? null : highWaterRss(pid);
  return bytes === null ? null : round(bytes / 1e6, 1);
}

/** The first answer of a server that printed its base URL: a catalogue page. */
async function firstAnswer(output: string): Promise<void> {
  const port = /Base URL:\s+http:\/\/localhost:(\d+)/.exec(output)?.[1];
  const res = await fetch(`http://127.0.0.1:${port}/api/v1/listings?page_size=1`);
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`the first request after the start answered ${res.status}`);
}

const pgliteAlone = `
const started = performance.now();
const { PGlite } = await import('@electric-sql/pglite');
const { btree_gist } = await import('@electric-sql/pglite/contrib/btree_gist');
const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
const buffers = process.env.PGLITE_ALONE_SHARED_BUFFERS;
const startParams = buffers ? [...PGlite.defaultStartParams, '-c', 'shared_buffers=' + buffers] : undefined;
const db = await PGlite.create({ dataDir: process.env.PGLITE_DIR, extensions: { btree_gist, pg_trgm }, startParams });
await db.query('select 1');
const hwm = (await import('node:fs')).readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\\s+(\\d+) kB/)?.[1];
console.log('opened after ' + (performance.now() - started).toFixed(1) + ' ms, peak rss ' + (hwm ? (Number(hwm) * 1024 / 1e6).toFixed(1) : '?') + ' MB');
await db.close();
`;

export type StartUp = {
  /** From spawn to the "Property API on" line of `node bin/start.mjs` on an existing data folder, ms. */
  start_ms: { median: number; runs: number[] };
  /** From spawn to the first answer (a catalogue page of one listing), asked as soon as the line is printed, ms. */
  first_answer_ms: { median: number; runs: number[] };
  /** PGlite alone opening the same folder (import, create, `select 1`), ms, measured from inside its process. */
  pglite_open_ms: { median: number; runs: number[] };
  /** The first start on an empty folder (from the pre-initialised one; migrated, seeded, listening): peak rss, MB. */
  first_start_peak_rss_mb: number | null;
  /** The later starts, to their first answer: peak rss, MB. */
  start_peak_rss_mb: { median: number; runs: number[] };
  /** PGlite alone opening the folder with its defaults (128 MB of shared buffers), peak rss, MB. */
  pglite_peak_rss_mb: { median: number; runs: number[] };
  /** PGlite alone with the server's shared buffers (defaultSharedBuffers), peak rss, MB: the like-for-like baseline. */
  pglite_same_settings_peak_rss_mb: { median: number; runs: number[] };
};

const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return round(sorted[Math.floor(sorted.length / 2)] ?? Number.NaN, 0);
};

/** `runs` starts of the server and `runs` openings by PGlite alone, alternated, on one new data folder. */
export async function measureStartUp(runs: number): Promise<StartUp> {
  const dataDir = await mkdtemp(join(tmpdir(), 'pa-bench-start-'));
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' };
  delete env.DATABASE_URL;
  delete env.ADMIN_TOKEN;
  try {
    // The first start builds the bundle when stale, migrates and seeds: not timed; its memory is measured (a bundle
    // built first is built again only after a source changed: the bench builds it before, see below).
    await serverBundle();
    const first = await untilLine(['bin/start.mjs'], env, 'Admin:');
    const start: number[] = [];
    const answered: number[] = [];
    const alone: number[] = [];
    const startRss: number[] = [];
    const aloneRss: number[] = [];
    const aloneSameRss: number[] = [];
    const peakOf = (output: string) => Number(/peak rss ([\d.]+) MB/.exec(output)?.[1]);
    for (let i = 0; i < runs; i++) {
      // The line is complete once the base URL is printed after it.
      const started = await untilLine(['bin/start.mjs'], env, /Base URL:\s+\S+/, { next: firstAnswer });
      start.push(round(started.ms, 0));
      answered.push(round(started.nextMs, 0));
      if (started.peakRssMb !== null) startRss.push(started.peakRssMb);
      const opened = await untilLine(
        ['--input-type=module', '-e', pgliteAlone],
        { ...env, PGLITE_DIR: join(dataDir, 'pglite') },
        /opened after [\d.]+ ms, peak rss \S+ MB/,
        { stop: false },
      );
      alone.push(round(Number(/opened after ([\d.]+) ms/.exec(opened.output)?.[1]), 0));
      aloneRss.push(peakOf(opened.output));
      const same = await untilLine(
        ['--input-type=module', '-e', pgliteAlone],
        { ...env, PGLITE_DIR: join(dataDir, 'pglite'), PGLITE_ALONE_SHARED_BUFFERS: defaultSharedBuffers },
        /opened after [\d.]+ ms, peak rss \S+ MB/,
        { stop: false },
      );
      aloneSameRss.push(peakOf(same.output));
    }
    const mid = (xs: number[]) => ({ median: round(median(xs.map((x) => x * 10)) / 10, 1), runs: xs });
    return {
      start_ms: { median: median(start), runs: start },
      first_answer_ms: { median: median(answered), runs: answered },
      pglite_open_ms: { median: median(alone), runs: alone },
      first_start_peak_rss_mb: first.peakRssMb,
      start_peak_rss_mb: mid(startRss),
      pglite_peak_rss_mb: mid(aloneRss),
      pglite_same_settings_peak_rss_mb: mid(aloneSameRss),
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Issue 39's goals for the start: time and a later start's peak memory, each ÷ PGlite alone (same run). */
export const startGoals = { time: 1.3, memory: 1.15 } as const;

/** The two ratios of a measured start-up, rounded to three places. */
export function startRatios(startUp: StartUp): { time: number; memory: number; first_answer: number } {
  const of = (x: number, y: number) => round(x / y, 3);
  return {
    time: of(startUp.start_ms.median, startUp.pglite_open_ms.median),
    memory: of(startUp.start_peak_rss_mb.median, startUp.pglite_same_settings_peak_rss_mb.median),
    first_answer: of(startUp.first_answer_ms.median, startUp.pglite_open_ms.median),
  };
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const load = () =>
    loadavg()
      .map((x) => x.toFixed(2))
      .join(' ');
  const before = load();
  const startUp = await measureStartUp(Number(process.env.BENCH_STARTS ?? 5));
  const ratios = startRatios(startUp);
  console.log(JSON.stringify(startUp, null, 2));
  console.log(
    `start ÷ PGlite alone: ${ratios.time} (goal ≤ ${startGoals.time}: ${ratios.time <= startGoals.time ? 'met' : 'not met'}; ` +
      `first answer ${ratios.first_answer}); later start's peak rss ÷ PGlite alone with the same buffers: ${ratios.memory} ` +
      `(goal ≤ ${startGoals.memory}: ${ratios.memory <= startGoals.memory ? 'met' : 'not met'}); ` +
      `load average before ${before}, after ${load()}`,
  );
}
