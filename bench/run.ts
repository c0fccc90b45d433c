/**
 * `npm run bench`: the catalogue list, its 304 revalidation, a listing's detail and the visitor forms against bare
 * routes (hello world, `select 1`, one-row insert, JSON parse), on one Node server over a fresh PostgreSQL database
 * and over PGlite in the server's own process (`npm start`'s default). BENCH_ENGINES picks them (default
 * `postgres,pglite`). See docs/performance.md.
 *
 * Two processes per engine: this one creates and drops the database and drives autocannon; a forked child (the
 * bundle of bench/server-main.ts, run by plain Node as `npm start` runs its bundle) runs the server, so the load
 * generator never shares the server's event loop.
 * The child counts every SQL statement it sends; the parent asks for the counts over IPC.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BenchDatabase, freshDatabase } from './database';
import { benchDeals } from './deals';
import { benchLeases } from './lease-writes';
import { benchJobs } from './maintenance';
import { type Measured, measure, postmasterPid } from './measure';
import { type Goal, goalsOf, goalsTable, markdown, mb, round, type ScenarioResult, resultOf, toJson } from './report';
import { bareHello, onlyScenarios, type Scenario, scenarios as scenariosFor } from './scenarios';
import { captureWrite } from './write-baselines';
import { withTunedHeap } from './driver-heap';
import { type BenchImports, benchImports } from './calendar-imports';
// @ts-expect-error: plain JavaScript, no declarations
import { bundleOf } from '../bin/build-server.mjs';
import { benchStays } from './stays';
import { measureStartUp, type StartUp, startGoals, startRatios } from './startup';
import {
  type BenchEngine,
  type Counts,
  envInt,
  type FromServer,
  type Memory,
  memoryNow,
  type Ready,
  type Reply,
  type ToServer,
} from './shared';

/** This file (its folder holds the results). */
const SCRIPT = fileURLToPath(import.meta.url);
type Settings = { seconds: number; warmupSeconds: number; connections: number };

const memoryMb = (memory: Memory) => ({ rss: mb(memory.rss), heap_used: mb(memory.heapUsed) });

/** Stops the server child: `stop` over IPC (it closes its database), SIGKILL if it does not exit within 5 s. */
async function stopServer(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    child.send({ id: -1, type: 'stop' } satisfies ToServer);
  } catch {
    child.kill('SIGKILL');
  }
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** One engine's run: a server on it, the preconditions, the statements of one request each, then every scenario. */
async function runEngine(engine: BenchEngine, settings: Settings) {
  let child: ChildProcess | undefined;
  let database: BenchDatabase | undefined;
  // The calendar feeds' loopback server (PostgreSQL runs), closed at the end.
  let feeds: BenchImports | undefined;
  if (engine === 'postgres') database = await freshDatabase('pa_bench', () => stopServer(child));
  try {
    // The server from its bundle, by plain Node (no tsx loader), as `npm start` runs: its memory is the product's.
    const server = fork(await bundleOf('bench/server-main.ts', 'dist/bench/server.mjs'), [], {
      // BENCH_SERVER_PROFILE=DIR: the server writes a V8 CPU profile of its whole run into DIR (node --cpu-prof).
      execArgv: [
        '--enable-source-maps',
        // BENCH_SERVER_NODE_FLAGS: more of Node's flags for the server (an A/B of a V8 setting).
        ...(process.env.BENCH_SERVER_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
        ...(process.env.BENCH_SERVER_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SERVER_PROFILE}`] : []),
      ],
      env: { ...process.env, BENCH_ROLE: 'server', BENCH_ENGINE: engine, BENCH_DATABASE_URL: database?.url ?? '' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child = server;
    const ready = await new Promise<Ready>((resolve, reject) => {
      server.on('message', (message: FromServer) => {
        if (message.type === 'ready') resolve(message);
        if (message.type === 'failed') reject(new Error(`server failed to start:\n${message.message}`));
      });
      server.once('exit', (code) => reject(new Error(`server exited with code ${code} before it was ready`)));
    });

    let nextId = 0;
    const ask = (type: ToServer['type']) =>
      new Promise<Reply>((resolve, reject) => {
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
    const originOf = (scenario: Scenario) =>
      scenario.server === 'uncached' ? `http://127.0.0.1:${ready.uncached_port}` : origin;
    console.log(
      `\n${engine}: server on ${origin} (pool max ${ready.pool_max}); ${settings.seconds} s per route, ${settings.connections} connections`,
    );

    // Preconditions: the answers the bench expects, an ETag to revalidate and a slug to read.
    const list = await fetch(`${origin}/api/v1/listings?page_size=24`);
    const listBody = (await list.json()) as { results?: Array<{ slug: { en: string } }> };
    const etag = list.headers.get('etag');
    if (list.status !== 200 || !etag) throw new Error(`GET /api/v1/listings answered ${list.status} (ETag ${etag})`);
    if (listBody.results?.length !== 24) throw new Error(`expected 24 listings, got ${listBody.results?.length}`);
    const slug = listBody.results[0]!.slug.en;

    // BENCH_BOOKINGS caps the booking requests (all the free stays by default: 1,326 with the demo catalogue).
    const free = await benchStays(origin);
    const stays = free.slice(0, envInt('BENCH_BOOKINGS', free.length));
    // The CRM's and the helpdesk's routes run on PostgreSQL only: PGlite measures the catalogue and the forms.
    if (engine === 'postgres') feeds = await benchImports(origin, ready.admin_token, ready.company_id);
    const integrations =
      engine === 'postgres'
        ? {
            deals: await benchDeals(origin, ready.server_key, envInt('BENCH_DEALS', 400)),
            jobs: await benchJobs(origin, ready.server_key),
            leases: await benchLeases(origin, database!.url, ready.server_key),
            whatsAppPath: ready.whatsapp_path,
            imports: feeds && { adminToken: ready.admin_token, syncs: feeds },
          }
        : {};
    const scenarios: Scenario[] = onlyScenarios(
      scenariosFor({
        etag,
        slug,
        publishableKey: ready.publishable_key,
        serverKey: ready.server_key,
        stays,
        ...integrations,
        ownBaselines: engine === 'postgres',
      }),
    );

    // Queries for one request alone, and a check that each answers what is benched.
    const single = new Map<string, Counts>();
    const baselines: Array<{ write: string; tables: string[] }> = [];
    for (const scenario of scenarios) {
      await ask('reset');
      let res: Response | undefined;
      const send = async () => {
        res = await fetch(`${originOf(scenario)}${scenario.path}`, {
          method: scenario.method,
          headers: scenario.headers,
          body: scenario.body?.(),
        });
        await res.arrayBuffer();
      };
      if (scenario.own && database) {
        // The write's own baseline: the rows this request stores, written again by one statement per request.
        const baseline = await captureWrite(database.url, scenario.name, send);
        const defined = await fetch(`${origin}/bare/define`, { method: 'POST', body: JSON.stringify(baseline) });
        if (defined.status !== 201) throw new Error(`${scenario.name}: its baseline was not defined (${defined.status})`);
        baselines.push({ write: scenario.name, tables: baseline.summary });
        console.log(`${scenario.name} stores: ${baseline.summary.join('; ')}`);
      } else await send();
      if (!res) throw new Error(`${scenario.name}: no answer`);
      if (res.status !== scenario.expectedStatus) {
        throw new Error(`${scenario.name}: expected ${scenario.expectedStatus}, got ${res.status}`);
      }
      const { counts } = await ask('counts');
      single.set(scenario.name, counts);
      const control = counts.transactionControl ? ` (+${counts.transactionControl} transaction control)` : '';
      console.log(`${scenario.name}: ${res.status}, ${counts.queries} SQL queries for one request${control}`);
      for (const text of counts.recent) console.log(`    ${text.slice(0, 110)}${text.length > 110 ? '…' : ''}`);
    }

    // The database's CPU: its cluster's processes alone when they run here (a private cluster keeps others out).
    const postmaster = database ? await postmasterPid(database.admin) : undefined;
    const loadBefore = os.loadavg()[0] ?? 0;
    const memoryBefore = (await ask('counts')).memory;
    const raw = new Map<string, Measured>();
    for (const scenario of scenarios)
      raw.set(
        scenario.name,
        await measure(originOf(scenario), scenario, { ...settings, localDatabase: engine === 'postgres', postmaster }, ask),
      );
    const after = await ask('counts');
    const memoryAfter = after.memory;

    const results: ScenarioResult[] = scenarios.map((scenario) =>
      resultOf(scenario, raw.get(scenario.name)!, single.get(scenario.name)!, {
        bare: scenario.baseline ? raw.get(scenario.baseline) : undefined,
        hello: raw.get(bareHello),
      }),
    );
    const version = database
      ? (await database.admin.query<{ server_version: string }>('show server_version')).rows[0]?.server_version
      : undefined;
    const peak = Math.max(...results.map((r) => r.server_peak_rss_mb));
    return {
      engine,
      database:
        engine === 'postgres'
          ? `PostgreSQL ${version ?? 'unknown'} on 127.0.0.1 (fresh database, pool of ${ready.pool_max})`
          : 'PGlite in the server process, in a new temporary data folder',
      database_cpu_of:
        engine === 'pglite' ? null : postmaster ? 'its cluster (postmaster and children)' : 'every postgres process',
      load_average_1m: { before: round(loadBefore), after: round(os.loadavg()[0] ?? 0) },
      // What each write's own baseline writes again (bench/write-baselines.ts).
      write_baselines: baselines,
      server_memory_mb: {
        after_start: memoryMb(ready.memory),
        before_runs: memoryMb(memoryBefore),
        peak_rss_under_load: peak,
        // From the process's start (a new folder, migrated and seeded) through every run: the kernel's high-water mark.
        peak_rss_since_start: after.lifetime_peak_rss === null ? null : mb(after.lifetime_peak_rss),
        after_runs: memoryMb(memoryAfter),
      },
      results,
    };
  } finally {
    await feeds?.close();
    if (database) await database.cleanup();
    else await stopServer(child);
  }
}

/**
 * The goals about the server itself: its memory (issue 28: at most 512 MiB from the first start on an empty folder
 * through the runs, on PGlite) and, on PGlite, `npm start`'s start-up and memory against PGlite alone.
 */
function serverGoals(
  run: {
    engine: BenchEngine;
    server_memory_mb: { after_start: { rss: number }; peak_rss_under_load: number; peak_rss_since_start: number | null };
  },
  connections: number,
  startUp: StartUp | undefined,
): Goal[] {
  const reported = (goal: string, measured: number, note?: string): Goal => ({
    goal,
    measured,
    measured_by_cpu: null,
    target: 'reported',
    met: null,
    ...(note ? { note } : {}),
  });
  const atMost = (goal: string, measured: number | null, most: number, note?: string): Goal => ({
    goal,
    measured,
    measured_by_cpu: null,
    target: `≤ ${most}`,
    met: measured === null ? null : measured <= most,
    ...(note ? { note } : {}),
  });
  const mib = (megabytes: number | null) => (megabytes === null ? null : round((megabytes * 1e6) / 2 ** 20, 1));
  const goals = [
    reported('server rss after start, MB', run.server_memory_mb.after_start.rss, 'migrated and seeded a new database'),
    reported(`server peak rss under ${connections} connections, MB`, run.server_memory_mb.peak_rss_under_load),
  ];
  if (run.engine === 'pglite') {
    goals.push(
      atMost(
        'server peak rss from a new folder through the runs, MiB',
        mib(run.server_memory_mb.peak_rss_since_start),
        512,
        `the bench's server: a new data folder, migrated, seeded, then every route under ${connections} connections`,
      ),
    );
  }
  if (run.engine === 'pglite' && startUp) {
    const ratio = (x: number | null, y: number) => (x === null || !y ? null : round(x / y, 3));
    goals.push(
      {
        goal: 'npm start on an existing data folder, ms to listening',
        measured: startUp.start_ms.median,
        measured_by_cpu: null,
        target: '≤ 1000',
        met: startUp.start_ms.median <= 1000,
        note: `first answer after ${startUp.first_answer_ms.median} ms; PGlite alone opening the same folder: ${startUp.pglite_open_ms.median} ms`,
      },
      atMost(
        'npm start on an existing folder ÷ PGlite alone opening it, time',
        startRatios(startUp).time,
        startGoals.time,
        `to the first answer: ${startRatios(startUp).first_answer}`,
      ),
      atMost('npm start, first start on an empty folder: peak rss, MiB', mib(startUp.first_start_peak_rss_mb), 512),
      atMost(
        'npm start, a later start ÷ PGlite alone on the same folder, peak rss',
        startRatios(startUp).memory,
        startGoals.memory,
        `PGlite alone with the server's shared_buffers; ÷ PGlite alone with its defaults: ${ratio(startUp.start_peak_rss_mb.median, startUp.pglite_peak_rss_mb.median)}`,
      ),
    );
  }
  return goals;
}

async function runDriver(): Promise<number> {
  const settings: Settings = {
    seconds: envInt('BENCH_SECONDS', 5),
    connections: envInt('BENCH_CONNECTIONS', 50),
    warmupSeconds: envInt('BENCH_WARMUP_SECONDS', 2),
  };
  const engines = (process.env.BENCH_ENGINES || 'postgres,pglite').split(',').map((e) => e.trim());
  for (const engine of engines) {
    if (engine !== 'postgres' && engine !== 'pglite') throw new Error(`BENCH_ENGINES: unknown engine "${engine}"`);
  }
  const driverMemoryBefore = memoryNow();
  const runs = [];
  for (const engine of engines as BenchEngine[]) runs.push(await runEngine(engine, settings));
  // `npm start` on an existing data folder (PGlite), against PGlite alone opening it: BENCH_STARTS=0 skips it.
  const starts = process.env.BENCH_STARTS === '0' ? 0 : envInt('BENCH_STARTS', 3);
  let startUp: StartUp | undefined;
  if (engines.includes('pglite') && starts > 0) {
    process.stdout.write(`\nnpm start on an existing data folder: ${starts} starts … `);
    startUp = await measureStartUp(starts);
    console.log(
      `median ${startUp.start_ms.median} ms, first answer ${startUp.first_answer_ms.median} ms (PGlite alone: ${startUp.pglite_open_ms.median} ms); ` +
        `peak rss: first start ${startUp.first_start_peak_rss_mb} MB, later starts ${startUp.start_peak_rss_mb.median} MB ` +
        `(PGlite alone ${startUp.pglite_peak_rss_mb.median} MB, with the server's shared_buffers ${startUp.pglite_same_settings_peak_rss_mb.median} MB)`,
    );
  }

  const cpus = os.cpus();
  // A form that answers 201 stored its row: between the 201s counted and those plus the requests still in
  // flight when autocannon stopped (at most one per connection).
  const stored = (r: ScenarioResult) =>
    r.rows_stored === null || (r.rows_stored >= r.requests_total && r.rows_stored <= r.requests_total + settings.connections);
  const ok = runs.every((run) => run.results.every((r) => stored(r) && r.non_2xx_3xx === 0 && r.unexpected_status === 0));
  const report = {
    date: new Date().toISOString(),
    ok,
    machine: {
      cpus: cpus.length,
      cpu_model: cpus[0]?.model ?? 'unknown',
      total_memory_mb: mb(os.totalmem()),
      platform: `${os.platform()} ${os.release()}`,
      node: process.version,
    },
    settings: {
      ...settings,
      pipelining: 1,
      seed: 'demo company: 32 listings, 29 published',
      load_generator: 'autocannon in a separate process on the same machine (loopback)',
      // Whether autocannon decoded every response's body (BENCH_KEEP_BODIES=1) or dropped it unread (bench/measure.ts).
      response_bodies: process.env.BENCH_KEEP_BODIES === '1' ? 'decoded' : 'dropped unread',
    },
    driver_memory_mb: { before: mb(driverMemoryBefore.rss), after: mb(memoryNow().rss) },
    start_up: startUp ?? null,
    runs: runs.map((run) => ({
      ...run,
      goals: [...goalsOf(run.results, settings.connections), ...serverGoals(run, settings.connections, startUp)],
    })),
  };

  // A run of some scenarios (BENCH_SCENARIOS) leaves the whole run's latest.json alone.
  const file = join(dirname(SCRIPT), 'results', process.env.BENCH_SCENARIOS ? 'scenarios.json' : 'latest.json');
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `${toJson(report)}\n`);

  for (const run of report.runs) {
    console.log(`\n### ${run.database}\n\n${markdown(run.results)}\n`);
    for (const r of run.results.filter((x) => x.rows_stored !== null)) {
      console.log(
        `${r.name}: ${r.status_counts[String(r.expected_status)] ?? 0} answered ${r.expected_status}, ${r.rows_stored} rows stored`,
      );
    }
    const m = run.server_memory_mb;
    console.log(
      `Server memory: rss ${m.after_start.rss} MB after start (heap used ${m.after_start.heap_used} MB), ` +
        `peak ${m.peak_rss_under_load} MB under ${settings.connections} connections (${m.peak_rss_since_start} MB since its start), ${m.after_runs.rss} MB after the runs; ` +
        `load average (1 min) ${run.load_average_1m.before} before, ${run.load_average_1m.after} after`,
    );
  }
  console.log(`\n${goalsTable(report.runs)}`);
  console.log(`\nMachine: ${report.machine.cpus} × ${report.machine.cpu_model}, Node ${report.machine.node}`);
  console.log(`Results written to ${file}`);
  if (!ok) console.error('FAILED: some responses were errors or had an unexpected status (see the tables).');
  return ok ? 0 : 1;
}

const code =
  (await withTunedHeap()) ??
  (await runDriver().catch((error: unknown) => {
    console.error(error);
    return 1;
  }));
process.exit(code);
