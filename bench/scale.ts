/**
 * `npm run bench:scale` (issue 39, "At scale"): a company of 1,000 then 10,000 leases (bench/scale-seed.ts: 12 monthly
 * payments each, those due up to last month received, an owner per 3 leases), on a fresh PostgreSQL database, served by
 * the production app in a server process of its own (so its memory is the export's alone). At each size, last month:
 *   1. GET /exports/journal?month=… as JSON, and as Xero's CSV (`format=xero`);
 *   2. every owner's statement in one streamed answer: GET /exports/owner-statements?month=…;
 *   3. with BENCH_SCALE_WALK=1 only (it takes minutes at 10,000 leases), the walk it replaces, as an accounting
 *      integration read them before it: GET /owner-statements/months?from=…&to=… page by page (100 a page), and
 *      GET /owner-statements?owner=…&month=… for each owner listed (BENCH_SCALE_CONCURRENCY at a time, default 1).
 * Each is timed BENCH_SCALE_REPEATS times (default 5) from the first request to the last byte read: median and p90,
 * with the bytes, rows, and the server's peak RSS (Linux's VmHWM, reset before each) and peak `heapUsed` (sampled
 * every 5 ms) above their level before it (after a full GC). The answers are checked against SQL (every line of the
 * month once). Results go to bench/results/scale-latest.json. See docs/performance.md, "A company of 10,000 leases".
 */
import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CompiledQuery, sql } from 'kysely';
import { seedDemo } from '../functions/seed';
import {
  type JournalAccount,
  bookingAccounts,
  dirhamAccounts,
  journalAccounts,
  paymentAccounts,
  vatAccounts,
} from '../functions/statements/journal-accounts';
import { lineBatch } from '../functions/statements/journal-month';
import { batchLines, monthOwners, ownerBatches, statementsBatchLines } from '../functions/statements/statements-month';
import { todayIn } from '../lib/dates';
import { monthSpan } from '../lib/statement-months';
import { openPostgres } from '../lib/db/postgres';
import { createKey } from '../lib/keys';
import { createNodePlatform } from '../lib/node/platform';
import { MemoryRateLimiter } from '../lib/ratelimit/memory';
import { closeServer, freshDatabase } from './database';
import { mb, postgresMachine, round, toJson } from './report';
import { scaleSeedSql } from './scale-seed';
import { envInt, exitWith } from './shared';

const SCRIPT = fileURLToPath(import.meta.url);
type Peak = { rss_before: number; rss_peak: number; heap_before: number; heap_peak: number };
type ToChild = { type: 'reset' | 'peak' | 'stop' };
type FromChild = { type: 'ready'; port: number } | ({ type: 'peak' } & Peak) | { type: 'reset' };

const vmHwm = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;

/** The server process: the production app on the bench's database, answering the parent's memory questions. */
async function serveChild(url: string): Promise<void> {
  const [{ serve }, { buildApp }] = await Promise.all([import('@hono/node-server'), import('../functions/app')]);
  process.on('disconnect', () => process.exit(1));
  const handle = openPostgres(url);
  const platform = await createNodePlatform(
    { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '100000000' },
    { handle, limiter: new MemoryRateLimiter() },
  );
  const app = buildApp(platform.provide, { maxBodyBytes: platform.config.MAX_BODY_BYTES });
  const gc = (globalThis as { gc?: () => void }).gc;
  let before = { rss: 0, heap: 0 };
  let heapPeak = 0;
  setInterval(() => {
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  }, 5).unref();
  let server: Server | undefined;
  process.on('message', (message: ToChild) => {
    const send = (reply: FromChild) => process.send?.(reply);
    if (message.type === 'reset') {
      gc?.();
      const { rss, heapUsed } = process.memoryUsage();
      before = { rss, heap: heapUsed };
      heapPeak = heapUsed;
      writeFileSync('/proc/self/clear_refs', '5'); // VmHWM back to the current RSS
      send({ type: 'reset' });
    } else if (message.type === 'peak') {
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
      const peak = { rss_before: before.rss, rss_peak: vmHwm(), heap_before: before.heap, heap_peak: heapPeak };
      send({ type: 'peak', ...peak });
    } else if (server) {
      void closeServer(server)
        .then(() => handle.close())
        .then(() => process.exit(0));
    }
  });
  server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
    process.send?.({ type: 'ready', port: info.port }),
  ) as Server;
}

/** One operation's runs at one size. */
type Run = { seconds: number; bytes: number; requests: number; peak: Peak };
type Operation = { size: number; name: string; rows: number; runs: Run[] };

const quantile = (values: number[], q: number) => values.toSorted((a, b) => a - b)[Math.ceil(q * values.length) - 1] ?? NaN;

async function main(): Promise<number> {
  const sizes = (process.env.BENCH_SCALE_SIZES ?? '1000,10000').split(',').map(Number);
  const repeats = envInt('BENCH_SCALE_REPEATS', 5);
  const concurrency = envInt('BENCH_SCALE_CONCURRENCY', 1);
  // BENCH_SCALE_WALK=1: also the walk of the owners' statements, one request per owner.
  const walk = process.env.BENCH_SCALE_WALK === '1';
  let child: ReturnType<typeof fork> | undefined;
  let closeApp: (() => Promise<void>) | undefined;
  const database = await freshDatabase('pa_bench_scale', async () => {
    child?.send({ type: 'stop' });
    await closeApp?.();
  });
  try {
    const handle = openPostgres(database.url);
    closeApp = () => handle.close();
    await createNodePlatform({}, { handle, limiter: new MemoryRateLimiter() }); // migrates
    const now = new Date();
    const { companyId } = await seedDemo(handle.db, now);
    const accounts: JournalAccount[] = [
      ...journalAccounts,
      ...paymentAccounts,
      ...bookingAccounts,
      ...vatAccounts,
      ...dirhamAccounts,
    ];
    const mapped = Object.fromEntries(accounts.map((k, i) => [k, { code: String(200 + i), name: k }]));
    await sql`update companies set settings = settings || ${JSON.stringify({ accounting_accounts: mapped })}::jsonb
      where id = ${companyId}::uuid`.execute(handle.db);
    const company = await handle.db.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow();
    const { secret } = await handle.db
      .transaction()
      .execute((trx) => createKey(trx, companyId, { kind: 'server', name: 'Scale bench', scopes: ['read:leases'] }, 'admin'));
    const today = todayIn(company.time_zone, now);
    const [year, month] = today.slice(0, 7).split('-').map(Number) as [number, number];
    const last = new Date(Date.UTC(year, month - 2, 1)).toISOString().slice(0, 7);
    const firstDay = `${last}-01`;

    // The server process: plain Node with tsx's loader and a GC the bench calls before each measurement.
    // BENCH_SCALE_PROFILE=<folder>: the server's CPU profile (node --cpu-prof), written there when it stops.
    const profile = process.env.BENCH_SCALE_PROFILE;
    const execArgv = ['--import', 'tsx', '--expose-gc', ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [])];
    child = fork(SCRIPT, ['--server', database.url], { execArgv });
    const replies: Array<(reply: FromChild) => void> = [];
    const ready = new Promise<number>((resolve, reject) => {
      child!.on('exit', (code) => reject(new Error(`the server process exited (${code})`)));
      child!.on('message', (reply: FromChild) => (reply.type === 'ready' ? resolve(reply.port) : replies.shift()?.(reply)));
    });
    const ask = (type: ToChild['type']) =>
      new Promise<FromChild>((resolve) => {
        replies.push(resolve);
        child!.send({ type });
      });
    const origin = `http://127.0.0.1:${await ready}`;
    const headers = { Authorization: `Bearer ${secret}` };
    console.log(`server process ${child.pid} on ${origin}; month ${last}; ${repeats} runs of each, concurrency ${concurrency}`);

    /** One GET read to its last byte: its bytes, and its text when `keep`. */
    const get = async (path: string, keep = false) => {
      const res = await fetch(`${origin}/api/v1${path}`, { headers });
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
      let bytes = 0;
      const chunks: Buffer[] = [];
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.byteLength;
        if (keep) chunks.push(Buffer.from(chunk));
      }
      return { bytes, text: keep ? Buffer.concat(chunks).toString('utf8') : '' };
    };
    /** Every owner of the month, from the months list, page by page. */
    const owners = async (keep: boolean) => {
      const out: string[] = [];
      let cursor: string | null = null;
      let bytes = 0;
      let requests = 0;
      do {
        const page = await get(
          `/owner-statements/months?from=${last}&to=${last}&page_size=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          true,
        );
        const body = JSON.parse(page.text) as { results: Array<{ owner: string }>; next_cursor: string | null };
        out.push(...body.results.map((r) => r.owner));
        bytes += page.bytes;
        requests++;
        cursor = body.next_cursor;
      } while (cursor !== null);
      return { owners: out, bytes, requests, keep };
    };
    /** Every owner's statement of the month: the bytes, the requests and (checked) the lines. */
    const statements = async (check: boolean) => {
      const list = await owners(false);
      let bytes = list.bytes;
      let lines = 0;
      let next = 0;
      const worker = async () => {
        while (next < list.owners.length) {
          const owner = list.owners[next++]!;
          const answer = await get(`/owner-statements?owner=${owner}&month=${last}`, check);
          bytes += answer.bytes;
          if (check) lines += (JSON.parse(answer.text) as { lines: unknown[] }).lines.length;
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      return { bytes, requests: list.requests + list.owners.length, rows: lines, owners: list.owners.length };
    };
    const operations: Operation[] = [];
    const problems: string[] = [];
    const measure = async (size: number, name: string, rows: number, run: () => Promise<{ bytes: number; requests: number }>) => {
      const op: Operation = { size, name, rows, runs: [] };
      for (let i = 0; i < repeats; i++) {
        await ask('reset');
        const start = performance.now();
        const { bytes, requests } = await run();
        const seconds = (performance.now() - start) / 1000;
        const peak = (await ask('peak')) as Peak;
        op.runs.push({ seconds, bytes, requests, peak });
      }
      operations.push(op);
      const times = op.runs.map((r) => r.seconds);
      console.log(
        `  ${name}: median ${round(quantile(times, 0.5), 3)} s, p90 ${round(quantile(times, 0.9), 3)} s, ` +
          `${rows} rows, ${mb(op.runs[0]!.bytes)} MiB, peak RSS +${mb(Math.max(...op.runs.map((r) => r.peak.rss_peak - r.peak.rss_before)))} MiB` +
          ` (load ${os.loadavg()[0]!.toFixed(2)})`,
      );
    };

    const plans: Record<number, string[]> = {};
    const statementPlans: Record<number, string[]> = {};
    let seeded = 0;
    for (const size of sizes) {
      const started = performance.now();
      for (const text of scaleSeedSql) {
        const count = Math.max(...[...text.matchAll(/\$(\d)/g)].map((m) => Number(m[1])));
        const params = [companyId, seeded, size - seeded, firstDay, company.time_zone].slice(0, count);
        await handle.db.executeQuery(CompiledQuery.raw(text, params));
      }
      await sql`analyze`.execute(handle.db);
      seeded = size;
      const counted = (
        await sql<{ leases: number; payments: number; lines: number; owners: number }>`select
          (select count(*)::int from leases where company_id = ${companyId}::uuid) as leases,
          (select count(*)::int from rent_payments where company_id = ${companyId}::uuid) as payments,
          (select count(*)::int from owner_statement_lines where company_id = ${companyId}::uuid
            and day >= ${firstDay}::date and day < ${firstDay}::date + interval '1 month') as lines,
          (select count(*)::int from owner_statements where company_id = ${companyId}::uuid and month = ${firstDay}::date) as owners`.execute(
          handle.db,
        )
      ).rows[0]!;
      console.log(
        `\n${size} leases: seeded in ${round((performance.now() - started) / 1000, 1)} s; ${counted.leases} leases, ` +
          `${counted.payments} payments, ${counted.lines} statement lines of ${counted.owners} owners in ${last}`,
      );
      // Checked once: the journal has an entry per line of the month (the month has no online payment), the statements
      // every owner once and every line once.
      const journal = JSON.parse((await get(`/exports/journal?month=${last}`, true)).text) as { entries: unknown[] };
      if (journal.entries.length !== counted.lines)
        problems.push(`${size}: journal ${journal.entries.length} entries, ${counted.lines} lines`);
      const exported = JSON.parse((await get(`/exports/owner-statements?month=${last}`, true)).text) as {
        statements: Array<{ lines: unknown[] }>;
      };
      const all = walk ? [await statements(true)] : [{ owners: counted.owners, rows: counted.lines, requests: 0, bytes: 0 }];
      all.push({
        owners: exported.statements.length,
        rows: exported.statements.reduce((n, statement) => n + statement.lines.length, 0),
        requests: 1,
        bytes: 0,
      });
      for (const { owners: n, rows } of all) {
        if (n !== counted.owners || rows !== counted.lines)
          problems.push(`${size}: statements of ${n} owners with ${rows} lines; ${counted.owners} and ${counted.lines} in SQL`);
      }
      // The plan of a batch of the journal's lines (the middle one): a keyset read, never the whole month's join.
      const middle = (
        await sql<{ day: string; id: string }>`select day::text as day, id::text as id from owner_statement_lines
          where company_id = ${companyId}::uuid and day >= ${firstDay}::date and day < ${firstDay}::date + interval '1 month'
          order by day, id offset ${Math.floor(counted.lines / 2)} limit 1`.execute(handle.db)
      ).rows[0];
      const batch = lineBatch(handle.db, companyId, monthSpan(last), undefined, 2n ** 62n, middle).compile();
      const explain = CompiledQuery.raw(`explain (analyze, buffers) ${batch.sql}`, [...batch.parameters]);
      plans[size] = (await handle.db.executeQuery<{ 'QUERY PLAN': string }>(explain)).rows.map((r) => r['QUERY PLAN']);
      console.log(`  a batch of the journal's lines: ${plans[size]!.at(-1)}`);
      // The plan of a batch of the owner statements' lines (the middle batch of owners): by the owners' index.
      const span = monthSpan(last);
      const batches = ownerBatches(await monthOwners(handle.db, companyId, span), statementsBatchLines);
      const owned = batchLines(
        handle.db,
        companyId,
        span,
        batches[Math.floor(batches.length / 2)]!.map((o) => o.id),
      ).compile();
      const ownedPlan = CompiledQuery.raw(`explain (analyze, buffers) ${owned.sql}`, [...owned.parameters]);
      statementPlans[size] = (await handle.db.executeQuery<{ 'QUERY PLAN': string }>(ownedPlan)).rows.map((r) => r['QUERY PLAN']);
      console.log(`  a batch of the owner statements' lines (${batches.length} batches): ${statementPlans[size]!.at(-1)}`);
      await measure(size, 'journal JSON', counted.lines, async () => ({
        ...(await get(`/exports/journal?month=${last}`)),
        requests: 1,
      }));
      await measure(size, 'journal Xero CSV', counted.lines, async () => ({
        ...(await get(`/exports/journal?month=${last}&format=xero`)),
        requests: 1,
      }));
      await measure(size, `all owner statements, export (${counted.owners} owners)`, counted.lines, async () => ({
        ...(await get(`/exports/owner-statements?month=${last}`)),
        requests: 1,
      }));
      if (walk)
        await measure(size, `all owner statements, walk (${counted.owners} owners)`, counted.lines, () => statements(false));
    }

    const results = operations.map((op) => {
      const times = op.runs.map((r) => r.seconds);
      const growth = (key: 'rss' | 'heap') => Math.max(...op.runs.map((r) => r.peak[`${key}_peak`] - r.peak[`${key}_before`]));
      return {
        leases: op.size,
        operation: op.name,
        rows: op.rows,
        requests: op.runs[0]!.requests,
        bytes: op.runs[0]!.bytes,
        median_s: round(quantile(times, 0.5), 3),
        p90_s: round(quantile(times, 0.9), 3),
        peak_rss_growth_mib: mb(growth('rss')),
        peak_heap_growth_mib: mb(growth('heap')),
        rss_before_mib: mb(op.runs[0]!.peak.rss_before),
      };
    });
    console.log(
      '\n| leases | operation | rows | requests | MiB | median s | p90 s | peak RSS growth MiB | peak heap growth MiB |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const r of results) {
      console.log(
        `| ${r.leases} | ${r.operation} | ${r.rows} | ${r.requests} | ${mb(r.bytes)} | ${r.median_s} | ${r.p90_s} | ${r.peak_rss_growth_mib} | ${r.peak_heap_growth_mib} |`,
      );
    }
    const report = {
      date: new Date().toISOString(),
      ok: problems.length === 0,
      machine: await postgresMachine(database.admin),
      settings: { sizes, repeats, concurrency, walk, month: last },
      goal: 'the month’s journal and all its owner statements within 2 s each at 10,000 leases; memory flat from 1,000 to 10,000',
      results,
      plans,
      statement_plans: statementPlans,
    };
    const file = join(dirname(SCRIPT), 'results', 'scale-latest.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${toJson(report)}\n`);
    console.log(`\nLoad average (1 min) ${report.machine.load_average_1m}; results written to ${file}`);
    if (problems.length > 0) {
      console.error(`FAILED:\n  ${problems.join('\n  ')}`);
      return 1;
    }
    return 0;
  } finally {
    await database.cleanup();
  }
}

const at = process.argv.indexOf('--server');
if (at >= 0) await serveChild(process.argv[at + 1]!);
else await exitWith(main);
