/**
 * `npm run bench:crm` (and the last part of `npm run bench`): a CRM's full `updated_since` sync of 100,000
 * contacts (`BENCH_CRM_CONTACTS`), page by page, against the real app on a Node server over a fresh PostgreSQL
 * database. Checks that every contact came exactly once, prints the page times (first, last, median, p99, how the
 * last 50 pages compare with the first 50, and by tenth of depth: paging cost must not grow with depth), where a
 * page's time goes, then EXPLAIN (ANALYZE, BUFFERS) of the list query the route sent at several depths, with a
 * WARNING when deep pages read the rows before the cursor. See docs/performance.md.
 *
 * One process: the client reads one page at a time, so it never competes with the server for the event loop,
 * and the statements the route sends are caught with Kysely's `log` hook on the app's own pool.
 */
import type { Server } from 'node:http';
import os from 'node:os';
import { serve } from '@hono/node-server';
import type { CompiledQuery, LogEvent } from 'kysely';
import pg from 'pg';
import { buildApp } from '../functions/app';
import { randomToken, sha256 } from '../lib/crypto';
import { openPostgres } from '../lib/db/postgres';
import { createNodePlatform } from '../lib/node/platform';
import { MemoryRateLimiter } from '../lib/ratelimit/memory';
import { insertContactsSql, insertExternalSql, insertLeadsSql, referencePattern } from './crm-seed';
import { median, ms, planSummary, quantile, statementKind } from './crm-analysis';
import { closeServer, freshDatabase } from './database';
import { round } from './report';
import { envInt, exitWith } from './shared';

const int = envInt;

type Contact = { reference: string; updated_at: string; leads: string[]; external: unknown[]; erased: boolean };
type Page = { ms: number; count: number; statements: number; dbMs: number; listMs: number; byKind: Map<string, number> };

async function main(): Promise<number> {
  const total = int('BENCH_CRM_CONTACTS', 100_000);
  const pageSize = 100;
  const warmup = int('BENCH_CRM_WARMUP', 20);
  let server: Server | undefined;
  let closeApp: (() => Promise<void>) | undefined;
  let seedClient: pg.Client | undefined;
  const database = await freshDatabase('pa_bench_crm', async () => {
    if (server) await closeServer(server);
    await closeApp?.().catch(() => {});
    await seedClient?.end().catch(() => {});
  });
  const { admin } = database;
  const benchUrl = database.url;

  try {
    // The statements of the request in flight (one at a time): how many, their time, and the list query itself.
    let current:
      | { statements: number; dbMs: number; listMs: number; list?: CompiledQuery; byKind: Map<string, number> }
      | undefined;
    const log = (event: LogEvent) => {
      if (!current) return;
      current.statements++;
      current.dbMs += event.queryDurationMillis;
      const kind = statementKind(event.query.sql);
      current.byKind.set(kind, (current.byKind.get(kind) ?? 0) + event.queryDurationMillis);
      if (/from "contacts"/.test(event.query.sql) && /\blimit\b/.test(event.query.sql)) {
        current.listMs += event.queryDurationMillis;
        current.list = event.query;
      }
    };
    const handle = openPostgres(benchUrl.toString(), { log });
    closeApp = () => handle.close();
    const platform = await createNodePlatform(
      // The in-memory limiter runs on every request; its server-key limit (1200/min by default) is raised so that a
      // sync faster than 1200 pages a minute is measured rather than refused.
      { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '100000000' },
      { handle, limiter: new MemoryRateLimiter() },
    );
    const app = buildApp(platform.provide, { admin: true, maxBodyBytes: platform.config.MAX_BODY_BYTES });
    const adminToken = `adm_${randomToken(40)}`;
    await handle.db
      .insertInto('admin_tokens')
      .values({ token_hash: await sha256(adminToken) })
      .execute();

    const port = await new Promise<number>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve(info.port)) as Server;
    });
    const origin = `http://127.0.0.1:${port}`;
    console.log(`server on ${origin}`);

    const adminCall = async (path: string, body: unknown) => {
      const res = await fetch(`${origin}/admin/v1${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      if (res.status !== 201) throw new Error(`POST /admin/v1${path} answered ${res.status}: ${JSON.stringify(json)}`);
      return json;
    };
    // The company answers on the host the client connects to.
    const company = await adminCall('/companies', {
      name: 'CRM Sync Bench Properties',
      hosts: ['127.0.0.1'],
      environment: 'production',
      currency: 'AED',
      time_zone: 'Asia/Dubai',
      settings: { phone_country: 'AE' },
    });
    const companyId = company.id as string;
    const key = await adminCall(`/companies/${companyId}/keys`, { kind: 'server', name: 'CRM sync', scopes: ['read:contacts'] });
    const secret = key.secret as string;

    // Seed in SQL: a day of changes ending an hour ago.
    seedClient = new pg.Client({ connectionString: benchUrl.toString() });
    await seedClient.connect();
    const seedStart = performance.now();
    const base = new Date(Date.now() - 25 * 3600_000);
    const params = [companyId, total, base];
    const contactsInserted = (await seedClient.query(insertContactsSql, params)).rowCount;
    const leadsInserted = (await seedClient.query(insertLeadsSql, params)).rowCount;
    const externalInserted = (await seedClient.query(insertExternalSql, params)).rowCount;
    await seedClient.query('analyze contacts, leads, external_ids');
    const seedSeconds = (performance.now() - seedStart) / 1000;
    const expected = (
      await seedClient.query<{ with_leads: number; with_external: number; tied: number; erased: number }>(
        `select count(*) filter (where exists (select 1 from leads l where l.contact_id = c.id))::int as with_leads,
           count(*) filter (where exists (select 1 from external_ids e where e.record_type = 'contact' and e.record_id = c.id::text))::int as with_external,
           count(*) filter (where erased)::int as erased,
           (select count(*)::int from (select updated_at from contacts group by updated_at having count(*) > 1) t) as tied
         from contacts c where company_id = $1`,
        [companyId],
      )
    ).rows[0]!;
    console.log(
      `seeded ${contactsInserted} contacts, ${leadsInserted} leads (${expected.with_leads} people), ${externalInserted} external ids` +
        ` (${expected.with_external} people), ${expected.erased} erased, ${expected.tied} groups of equal updated_at` +
        ` in ${round(seedSeconds, 1)} s (with analyze)`,
    );

    const since = new Date(base.getTime() - 1000).toISOString();
    const headers = { Authorization: `Bearer ${secret}` };
    const getPage = async (cursor: string | null) => {
      const url = `${origin}/api/v1/contacts?updated_since=${encodeURIComponent(since)}&page_size=${pageSize}${
        cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''
      }`;
      current = { statements: 0, dbMs: 0, listMs: 0, byKind: new Map() };
      const start = performance.now();
      const res = await fetch(url, { headers });
      const body = (await res.json()) as { results: Contact[]; next_cursor: string | null };
      const elapsed = performance.now() - start;
      const stats = current;
      current = undefined;
      if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${JSON.stringify(body)}`);
      return { body, elapsed, stats };
    };

    // Warm-up (not counted): the first page a few times, so the first measured page is not also the first request.
    for (let i = 0; i < warmup; i++) await getPage(null);

    const pages: Page[] = [];
    const seen = new Set<string>();
    let duplicates = 0;
    let malformed = 0;
    let outOfOrder = 0;
    let withLeads = 0;
    let withExternal = 0;
    let erased = 0;
    let lastUpdatedAt = '';
    const lists: (CompiledQuery | undefined)[] = [];
    let cursor: string | null = null;
    const loadBefore = os.loadavg();
    const syncStart = performance.now();
    do {
      const { body, elapsed, stats }: Awaited<ReturnType<typeof getPage>> = await getPage(cursor);
      pages.push({
        ms: elapsed,
        count: body.results.length,
        statements: stats.statements,
        dbMs: stats.dbMs,
        listMs: stats.listMs,
        byKind: stats.byKind,
      });
      lists.push(stats.list);
      for (const contact of body.results) {
        if (seen.has(contact.reference)) duplicates++;
        seen.add(contact.reference);
        if (!referencePattern.test(contact.reference)) malformed++;
        if (contact.updated_at < lastUpdatedAt) outOfOrder++;
        lastUpdatedAt = contact.updated_at;
        if (contact.leads.length > 0) withLeads++;
        if (contact.external.length > 0) withExternal++;
        if (contact.erased) erased++;
      }
      cursor = body.next_cursor;
    } while (cursor !== null);
    const syncSeconds = (performance.now() - syncStart) / 1000;
    const loadAfter = os.loadavg();

    const received = pages.reduce((sum, p) => sum + p.count, 0);
    const audited = (
      await seedClient.query<{ n: number }>(
        `select count(*)::int as n from audit_log where company_id = $1 and action = 'personal_data.read'`,
        [companyId],
      )
    ).rows[0]!.n;
    const problems: string[] = [];
    if (received !== total) problems.push(`received ${received} contacts, expected ${total}`);
    if (seen.size !== total) problems.push(`${seen.size} distinct references, expected ${total}`);
    if (duplicates) problems.push(`${duplicates} references seen more than once`);
    if (malformed) problems.push(`${malformed} references not of the form P- + 10 Crockford characters`);
    if (outOfOrder) problems.push(`${outOfOrder} contacts out of updated_at order`);
    if (withLeads !== expected.with_leads) problems.push(`${withLeads} people with leads, expected ${expected.with_leads}`);
    if (withExternal !== expected.with_external) {
      problems.push(`${withExternal} people with external ids, expected ${expected.with_external}`);
    }
    if (erased !== expected.erased) problems.push(`${erased} erased people, expected ${expected.erased}`);
    if (audited !== warmup + pages.length) problems.push(`${audited} audit rows, expected ${warmup + pages.length}`);
    if (pages.slice(0, -1).some((p) => p.count !== pageSize)) problems.push('a page before the last was not full');

    // The plans of the list query the route sent, at several depths.
    const explain = async (query: CompiledQuery) => {
      const { rows } = await seedClient!.query<{ 'QUERY PLAN': string }>(
        `explain (analyze, buffers) ${query.sql}`,
        query.parameters as unknown[],
      );
      return rows.map((r) => r['QUERY PLAN']);
    };
    if (lists.some((q) => q === undefined)) throw new Error('the list query of a page was not seen in the log');
    const depths = [
      ...new Set(
        [0.1, 0.25, 0.5, 0.75, 0.9, 0.95].map((f) => Math.round(f * pages.length)).concat([1, 2, pages.length - 1, pages.length]),
      ),
    ]
      .filter((n) => n >= 1 && n <= pages.length)
      .sort((a, b) => a - b);
    const plans = new Map<number, string[]>();
    for (const n of depths) plans.set(n, await explain(lists[n - 1]!));

    const times = pages.map((p) => p.ms);
    const first = pages[0]!;
    const last = pages[pages.length - 1]!;
    const window = Math.min(50, Math.floor(pages.length / 2));
    const firstMedian = median(times.slice(0, window));
    const lastMedian = median(times.slice(-window));
    const listFirstMedian = median(pages.slice(0, window).map((p) => p.listMs));
    const listLastMedian = median(pages.slice(-window).map((p) => p.listMs));
    const cpus = os.cpus();
    const postgres = (await admin.query<{ server_version: string }>('show server_version')).rows[0]?.server_version;

    console.log(`\nFull sync: GET /api/v1/contacts?updated_since=…&page_size=${pageSize}, following next_cursor`);
    console.log(`  contacts received      ${received} (${seen.size} distinct references)`);
    console.log(`  pages                  ${pages.length} (after ${warmup} warm-up requests of the first page)`);
    console.log(`  total time             ${round(syncSeconds, 2)} s`);
    console.log(`  contacts/s             ${Math.round(received / syncSeconds)}`);
    console.log(`  first page             ${ms(first.ms)}`);
    console.log(`  last page              ${ms(last.ms)}`);
    console.log(`  median page            ${ms(median(times))}`);
    console.log(`  p99 page               ${ms(quantile(times, 0.99))}`);
    console.log(`  max page               ${ms(Math.max(...times))}`);
    console.log(`  last ÷ first           ${round(last.ms / first.ms, 2)}`);
    console.log(
      `  median of last ${window} ÷ median of first ${window}   ${round(lastMedian / firstMedian, 2)}` +
        ` (${ms(lastMedian)} ÷ ${ms(firstMedian)})`,
    );
    console.log(
      `  list query alone (Kysely's log: pg round trip): first ${ms(first.listMs)}, last ${ms(last.listMs)},` +
        ` median of last ${window} ÷ first ${window} ${round(listLastMedian / listFirstMedian, 2)}` +
        ` (${ms(listLastMedian)} ÷ ${ms(listFirstMedian)})`,
    );
    console.log(
      `  statements per page    first ${first.statements}, last ${last.statements}, max ${Math.max(...pages.map((p) => p.statements))}` +
        ` (all statements of a page: median ${ms(median(pages.map((p) => p.dbMs)))})`,
    );
    console.log(`  audit rows written     ${audited} (one per request, personal data read)`);

    // Where a page's time goes: each statement (pg round trip as Kysely's log measures it), and the rest.
    const kinds = [...new Set(pages.flatMap((p) => [...p.byKind.keys()]))];
    console.log("\n| A page's time | median ms (all pages) | median ms (first 50) | median ms (last 50) |\n|---|---:|---:|---:|");
    const row = (name: string, of: (p: Page) => number | undefined) => {
      const values = (list: Page[]) => list.map(of).filter((v): v is number => v !== undefined);
      const cell = (list: Page[]) => (values(list).length ? round(median(values(list)), 2) : '–');
      console.log(`| ${name} | ${cell(pages)} | ${cell(pages.slice(0, window))} | ${cell(pages.slice(-window))} |`);
    };
    for (const kind of kinds) row(kind, (p) => p.byKind.get(kind));
    row('everything else (HTTP, routing, validation, limiter, presentation, JSON both ways)', (p) => p.ms - p.dbMs);
    row('whole page (request to parsed JSON)', (p) => p.ms);

    console.log('\n| Pages (by depth) | median page ms | p99 page ms | median list query ms |\n|---|---:|---:|---:|');
    const tenth = Math.max(1, Math.ceil(pages.length / 10));
    for (let from = 0; from < pages.length; from += tenth) {
      const slice = pages.slice(from, from + tenth);
      console.log(
        `| ${from + 1}–${from + slice.length} | ${round(median(slice.map((p) => p.ms)), 1)} | ` +
          `${round(
            quantile(
              slice.map((p) => p.ms),
              0.99,
            ),
            1,
          )} | ${round(median(slice.map((p) => p.listMs)), 1)} |`,
      );
    }

    console.log(
      "\nEXPLAIN (ANALYZE, BUFFERS) of the list query the route sent (its SQL and parameters from Kysely's log):\n" +
        '| Page | Rows before the cursor | Plan | Rows removed by filter | Shared buffers hit | Execution ms |\n|---:|---:|---|---:|---:|---:|',
    );
    for (const [n, plan] of plans) {
      const summary = planSummary(plan);
      console.log(
        `| ${n} | ${(n - 1) * pageSize} | ${summary.shape} | ${summary.removed} | ${summary.buffers} | ${round(summary.time, 2)} |`,
      );
    }
    const deepPage = depths.filter((n) => n < pages.length - 1).at(-1) ?? pages.length;
    const deepPlan = plans.get(deepPage)!;
    const deep = planSummary(deepPlan);
    console.log(`\nThe plan at page ${deepPage} (a deep cursor: ${(deepPage - 1) * pageSize} rows before it):`);
    for (const line of deepPlan) console.log(`  ${line}`);
    console.log(
      `  → ${deep.indexScan ? 'uses the contacts_sync index (Index Scan)' : 'does NOT use an Index Scan of contacts_sync'}` +
        `${deep.sort ? ', with a Sort of the rows it found' : ', without a Sort'}; ${deep.removed} rows read and removed by the filter`,
    );
    const grows = deep.removed > 10 * pageSize || lastMedian / firstMedian > 2;
    if (grows) {
      console.log(
        '\nWARNING: paging cost grows with depth. The cursor condition (updated_at > x OR (updated_at = x AND id > y)) is not\n' +
          'an index condition: the scan starts at updated_since and reads and discards every row before the cursor.\n' +
          'See docs/performance.md, "CRM sync".',
      );
    }

    console.log(
      `\nMachine: ${cpus.length} × ${cpus[0]?.model ?? 'unknown'}, Node ${process.version}, PostgreSQL ${postgres ?? 'unknown'};` +
        ` load average (1 min) ${round(loadBefore[0] ?? 0)} before the sync, ${round(loadAfter[0] ?? 0)} after`,
    );
    if (problems.length > 0) {
      console.error(`FAILED:\n  ${problems.join('\n  ')}`);
      return 1;
    }
    console.log(
      `OK: ${total} contacts, each reference once, in order; leads, external ids and erasures as seeded; one audit row per page`,
    );
    return 0;
  } finally {
    await database.cleanup();
  }
}

await exitWith(main);
