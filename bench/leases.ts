/**
 * `npm run bench:leases` (and the last part of `npm run bench`): the lease routes against the bare `select 1` route,
 * measured in the same run, on a fresh PostgreSQL database with the demo company (`seedDemo`):
 *   1. POST /leases with a 12-cheque explicit schedule, each request a new lease (its own external id);
 *   2. PATCH /rent-payments/{id} {status: 'received'}, each request another payment still due (those of 1);
 *   3. a month's accounting export of 10,000 payments (BENCH_LEASE_PAYMENTS, written in SQL: bench/leases-seed.ts):
 *      GET /rent-payments?booked_from=…&booked_to=…&page_size=100, its first and its last page, with EXPLAIN
 *      (ANALYZE, BUFFERS) of the list query the route sent for each.
 * One request at a time from this process (so the client never competes with the server for the event loop), each
 * right after a request of the bare route: the figures are latencies, median and p99, and their ratios to the bare
 * route's of the same moments. BENCH_LEASE_TRY_INDEX: an index to create after the export's pages were measured, which
 * are measured again with it. Results go to bench/results/leases-latest.json. See docs/performance.md, "Leases and rent payments".
 */
import { mkdir, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { CompiledQuery, type LogEvent, sql } from 'kysely';
import { buildApp } from '../functions/app';
import { seedDemo } from '../functions/seed';
import { addDays, todayIn } from '../lib/dates';
import { openPostgres } from '../lib/db/postgres';
import { createKey } from '../lib/keys';
import { createNodePlatform } from '../lib/node/platform';
import { MemoryRateLimiter } from '../lib/ratelimit/memory';
import { median, quantile } from './crm-analysis';
import { closeServer, freshDatabase } from './database';
import { insertReceivedSql } from './leases-seed';
import { postgresMachine, round, toJson } from './report';
import { envInt, exitWith } from './shared';

const SCRIPT = fileURLToPath(import.meta.url);
const home = 'jvc-studio-unfurnished';
const firstOfMonth = (day: string, months: number) => {
  const index = Number(day.slice(0, 4)) * 12 + Number(day.slice(5, 7)) - 1 + months;
  return `${Math.floor(index / 12)}-${String((index % 12) + 1).padStart(2, '0')}-01`;
};

/** A route's times and those of the bare route, each request right after a bare one (same load, same moment). */
type Measured = { name: string; request: string; times: number[]; bare: number[] };
type Timed = Pick<Measured, 'times' | 'bare'>;

async function main(): Promise<number> {
  const requests = envInt('BENCH_LEASE_REQUESTS', 300);
  const warmup = envInt('BENCH_LEASE_WARMUP', 30);
  const repeats = envInt('BENCH_LEASE_PAGE_REPEATS', 50);
  const volume = envInt('BENCH_LEASE_PAYMENTS', 10_000);
  let server: Server | undefined;
  let closeApp: (() => Promise<void>) | undefined;
  const database = await freshDatabase('pa_bench_leases', async () => {
    if (server) await closeServer(server);
    await closeApp?.();
  });
  try {
    // The list query of the request in flight (one at a time), from Kysely's log on the app's own pool.
    let listQuery: CompiledQuery | undefined;
    const log = (event: LogEvent) => {
      if (/from "rent_payments"/.test(event.query.sql) && /\blimit\b/.test(event.query.sql)) listQuery = event.query;
    };
    const handle = openPostgres(database.url, { log });
    closeApp = () => handle.close();
    const platform = await createNodePlatform(
      { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '100000000' },
      { handle, limiter: new MemoryRateLimiter() },
    );
    const now = new Date();
    const demo = await seedDemo(handle.db, now);
    const company = await handle.db
      .selectFrom('companies')
      .selectAll()
      .where('id', '=', demo.companyId)
      .executeTakeFirstOrThrow();
    const scopes = ['read:leases' as const, 'write:leases' as const];
    const { secret } = await handle.db
      .transaction()
      .execute((trx) => createKey(trx, company.id, { kind: 'server', name: 'Lease bench', scopes }, 'admin'));
    const app = buildApp(platform.provide, { maxBodyBytes: platform.config.MAX_BODY_BYTES });
    // The baseline: one `select 1` through the same Kysely instance and pool, no middleware.
    const root = new Hono<{ Bindings: Record<string, unknown> }>()
      .get('/bare/select1', async (c) => {
        const result = await sql<{ one: number }>`select 1 as one`.execute(handle.db);
        return c.json({ one: result.rows[0]?.one ?? null });
      })
      .all('*', (c) => app.fetch(c.req.raw, c.env));
    const port = await new Promise<number>((resolve) => {
      server = serve({ fetch: root.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)) as Server;
    });
    const origin = `http://127.0.0.1:${port}`;
    const headers = { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' };
    console.log(`server on ${origin}; ${warmup} warm-up + ${requests} requests per route, one at a time`);

    /** One request, checked for `expected`: its time from sending to the whole answer read. */
    const once = async (send: () => Promise<Response>, expected: number, what: string) => {
      const start = performance.now();
      const res = await send();
      const text = await res.text();
      const elapsed = performance.now() - start;
      if (res.status !== expected) throw new Error(`${what}: expected ${expected}, got ${res.status}: ${text}`);
      return elapsed;
    };
    const bare = () => fetch(`${origin}/bare/select1`);
    /**
     * `warm` then `count` requests one after another, each right after a request of the bare route (so the two share
     * the machine's load of that moment); the times of the last `count`, the route's and the bare route's.
     */
    const timed = async (warm: number, count: number, send: (i: number) => Promise<Response>, expected: number) => {
      const out: Timed = { times: [], bare: [] };
      for (let i = 0; i < warm + count; i++) {
        out.bare.push(await once(bare, 200, 'bare select 1'));
        out.times.push(await once(() => send(i), expected, `request ${i}`));
      }
      return { times: out.times.slice(warm), bare: out.bare.slice(warm) };
    };
    // Warms the server and the pool (not counted).
    for (let i = 0; i < 200; i++) await once(bare, 200, 'bare select 1');
    const measured: Measured[] = [];

    // 1. New leases, each with 12 monthly post-dated cheques.
    const parties = await handle.db
      .selectFrom('contacts')
      .select(['reference', 'roles'])
      .where('company_id', '=', company.id)
      .orderBy('created_at')
      .execute();
    const renter = parties.find((p) => p.roles.includes('tenant'))!.reference;
    const landlord = parties.find((p) => p.roles.includes('landlord'))!.reference;
    const today = todayIn(company.time_zone, now);
    const start = firstOfMonth(today, 1);
    const rows = (i: number) =>
      Array.from({ length: 12 }, (_, k) => ({
        due_on: firstOfMonth(start, k),
        amount: '5000.00',
        cheque: { number: String(i * 100 + k + 1).padStart(8, '0'), bank: 'Emirates NBD' },
      }));
    const leaseBody = (i: number) =>
      JSON.stringify({
        home,
        renter,
        landlord,
        term: { start, end: addDays(firstOfMonth(start, 12), -1) },
        rent: { amount: '60000.00', period: 'year' },
        deposit: '3000.00',
        schedule: { rows: rows(i) },
        fee: { kind: 'percent', value: '5' },
        external: { source: 'bench', id: `lease-${process.pid}-${i}` },
      });
    const post = (i: number) => fetch(`${origin}/api/v1/leases`, { method: 'POST', headers, body: leaseBody(i) });
    measured.push({
      name: 'lease create',
      request: 'POST /api/v1/leases (12 cheques)',
      ...(await timed(warmup, requests, post, 201)),
    });

    // 2. Receipts, each of another payment still due.
    const listing = await handle.db
      .selectFrom('listings')
      .select('id')
      .where('company_id', '=', company.id)
      .where('slug_en', '=', home)
      .executeTakeFirstOrThrow();
    const due = await handle.db
      .selectFrom('rent_payments')
      .innerJoin('leases', 'leases.id', 'rent_payments.lease_id')
      .select('rent_payments.id')
      .where('leases.listing_id', '=', listing.id)
      .where('rent_payments.status', '=', 'due')
      .orderBy('leases.created_at')
      .orderBy('rent_payments.due_on')
      .limit(warmup + requests)
      .execute();
    const receive = (i: number) =>
      fetch(`${origin}/api/v1/rent-payments/${due[i]!.id}`, { method: 'PATCH', headers, body: '{"status":"received"}' });
    measured.push({
      name: 'payment receipt',
      request: 'PATCH /api/v1/rent-payments/{id} received',
      ...(await timed(warmup, requests, receive, 200)),
    });

    // 3. A month's export: `volume` payments booked in the month before last and in last month; last month exported.
    const exported = firstOfMonth(today, -1);
    const seedStart = performance.now();
    const params = [company.id, listing.id, volume, firstOfMonth(today, -2), exported, today];
    const inserted = (await handle.db.executeQuery(CompiledQuery.raw(insertReceivedSql, params))).numAffectedRows;
    await sql`analyze rent_payments`.execute(handle.db);
    console.log(`seeded ${inserted} received payments in ${round((performance.now() - seedStart) / 1000, 1)} s (with analyze)`);
    const to = addDays(firstOfMonth(today, 0), -1);
    const exportPath = `/api/v1/rent-payments?booked_from=${exported}&booked_to=${to}&page_size=100`;
    const page = async (cursor: string | null) => {
      const res = await fetch(`${origin}${exportPath}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers });
      if (res.status !== 200) throw new Error(`export answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as {
        results: Array<{ payment_id: string; amount: string; booked_on: string }>;
        next_cursor: string | null;
      };
    };
    // The whole export once: every payment of the month exactly once, and each page's cursor and size.
    const seen = new Set<string>();
    let cents = 0n;
    let cursor: string | null = null;
    let pages = 0;
    const cursors: Array<string | null> = [];
    const sizes: number[] = [];
    const walkStart = performance.now();
    do {
      cursors.push(cursor);
      const body: Awaited<ReturnType<typeof page>> = await page(cursor);
      sizes.push(body.results.length);
      pages++;
      for (const p of body.results) {
        if (p.booked_on < exported || p.booked_on > to) throw new Error(`${p.payment_id} booked on ${p.booked_on}`);
        seen.add(p.payment_id);
        cents += BigInt(p.amount.replace('.', ''));
      }
      cursor = body.next_cursor;
    } while (cursor !== null);
    const walkSeconds = (performance.now() - walkStart) / 1000;
    const expected = (
      await sql<{ n: number; cents: string }>`select count(*)::int as n, (sum(amount) * 100)::bigint::text as cents
        from rent_payments where company_id = ${company.id} and booked_on between ${exported} and ${to}`.execute(handle.db)
    ).rows[0]!;
    const problems: string[] = [];
    // The demo company's own receipts of that month are exported too: the month holds `volume` and those.
    if (seen.size !== expected.n || expected.n < volume) {
      problems.push(`${seen.size} payments exported, ${expected.n} booked in the month (${volume} seeded)`);
    }
    if (cents.toString() !== expected.cents) problems.push(`the export sums to ${cents} cents, the month to ${expected.cents}`);
    console.log(
      `export of ${exported}..${to}: ${seen.size} payments (${volume} seeded, ${expected.n - volume} of the demo) in ${pages}` +
        ` pages, ${round(walkSeconds, 2)} s for the whole walk`,
    );

    const plans: Record<string, string[]> = {};
    const pageTimes = async (name: string, at: string | null) => {
      const times = await timed(
        warmup,
        repeats,
        async () => {
          listQuery = undefined;
          return fetch(`${origin}${exportPath}${at ? `&cursor=${encodeURIComponent(at)}` : ''}`, { headers });
        },
        200,
      );
      const query = listQuery as CompiledQuery | undefined;
      if (!query) throw new Error(`the list query of ${name} was not seen in the log`);
      const explain = CompiledQuery.raw(`explain (analyze, buffers) ${query.sql}`, [...query.parameters]);
      plans[name] = (await handle.db.executeQuery<{ 'QUERY PLAN': string }>(explain)).rows.map((r) => r['QUERY PLAN']);
      return times;
    };
    // The first page, the deepest full page, and the last page when it holds fewer rows (10,002 rows: page 101 holds 2).
    const lastFull = sizes.lastIndexOf(100);
    const depths = [...new Set([0, lastFull, pages - 1])].filter((n) => n >= 0);
    const label = (n: number) =>
      n === 0 ? 'first page' : `${n === pages - 1 ? 'last' : 'last full'} page (${n + 1}, ${sizes[n]} rows)`;
    const measureExport = async (suffix: string) => {
      for (const n of depths) {
        const name = `${label(n)}${suffix}`;
        const request = `GET ${exportPath}${n === 0 ? '' : '&cursor=…'}`;
        measured.push({ name: `export, ${name}`, request, ...(await pageTimes(name, cursors[n] ?? null)) });
      }
    };
    await measureExport('');
    // A candidate index, tried on the same data (BENCH_LEASE_TRY_INDEX='create index … on rent_payments …'): the two
    // pages measured again with it, for a before/after in one run.
    const candidate = process.env.BENCH_LEASE_TRY_INDEX;
    if (candidate) {
      await sql.raw(candidate).execute(handle.db);
      await sql`analyze rent_payments`.execute(handle.db);
      console.log(`with the candidate index: ${candidate}`);
      await measureExport(', with the candidate index');
    }

    const results = measured.map((m) => ({
      name: m.name,
      request: m.request,
      requests: m.times.length,
      median_ms: round(median(m.times), 3),
      p99_ms: round(quantile(m.times, 0.99), 3),
      bare_median_ms: round(median(m.bare), 3),
      bare_p99_ms: round(quantile(m.bare, 0.99), 3),
      median_ratio_to_bare: round(median(m.times) / median(m.bare), 2),
      p99_ratio_to_bare: round(quantile(m.times, 0.99) / quantile(m.bare, 0.99), 2),
    }));
    console.log(
      '\n| Request | Requests | median ms | p99 ms | bare median ms | bare p99 ms | median ÷ bare | p99 ÷ bare |' +
        '\n|---|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const r of results) {
      const bare = `${r.bare_median_ms} | ${r.bare_p99_ms} | ${r.median_ratio_to_bare} | ${r.p99_ratio_to_bare}`;
      console.log(`| ${r.name}: ${r.request} | ${r.requests} | ${r.median_ms} | ${r.p99_ms} | ${bare} |`);
    }
    console.log('(bare: GET /bare/select1, one `select 1` on the same pool, sent right before each request of the row)');
    const first = results.find((r) => r.name === 'export, first page')!;
    console.log('');
    for (const n of depths.slice(1)) {
      const deep = results.find((r) => r.name === `export, ${label(n)}`)!;
      const ratio = `median ${round(deep.median_ms / first.median_ms, 2)}, p99 ${round(deep.p99_ms / first.p99_ms, 2)}`;
      console.log(`${label(n)} ÷ first page: ${ratio}`);
    }
    for (const [name, plan] of Object.entries(plans)) {
      console.log(`\nEXPLAIN (ANALYZE, BUFFERS) of the list query of the ${name}:`);
      for (const line of plan) console.log(`  ${line}`);
    }
    const report = {
      date: new Date().toISOString(),
      ok: problems.length === 0,
      machine: await postgresMachine(database.admin),
      settings: {
        requests,
        warmup,
        page_repeats: repeats,
        payments_per_month: volume,
        page_size: 100,
        candidate_index: candidate ?? null,
      },
      results,
      export: { month: exported, payments: seen.size, pages, walk_seconds: round(walkSeconds, 2) },
      plans,
    };
    const file = join(dirname(SCRIPT), 'results', 'leases-latest.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, `${toJson(report)}\n`);
    console.log(
      `\nMachine: ${report.machine.cpus} × ${report.machine.cpu_model}, Node ${report.machine.node}, PostgreSQL ${report.machine.postgres};` +
        ` load average (1 min) ${report.machine.load_average_1m}\nResults written to ${file}`,
    );
    if (problems.length > 0) {
      console.error(`FAILED:\n  ${problems.join('\n  ')}`);
      return 1;
    }
    console.log(
      `OK: every payment of the month exported once, in ${pages} pages; the amounts sum to the month's (${cents} cents)`,
    );
    return 0;
  } finally {
    await database.cleanup();
  }
}

await exitWith(main);
