/**
 * `npm run bench:growth`: how the public reads grow from 1,000 to 100,000 published listings (and as many
 * contacts). One Node server (bench/server.ts, a forked child) over a fresh PostgreSQL database. A control
 * company stays at 1,000 listings and 1,000 contacts; the demo company is grown with set-based SQL to 1,000
 * (the control's twin: their ratio is the noise of the machine), then to 100,000. Each route is asked one
 * request at a time with the response cache off (`/uncached/…`, CATALOGUE_RESPONSE_CACHE_MB=0), the two
 * companies in turn, so a loaded machine slows both alike; the ratio is demo's median ÷ control's median in
 * the same window. See docs/performance.md.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import http from 'node:http';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { listingSorts } from '../functions/catalogue/listings';
import { sitemapSort } from '../functions/catalogue/pages';
import { createCompany } from '../functions/admin/companies';
import { seedCatalogueDemo } from '../functions/catalogue/demo';
import { createKey } from '../lib/keys';
import { fillSearchText } from '../lib/listing-search';
import { CreateCompanyInput } from '../schema/platform/admin';
import { syncSort } from '../lib/sync';
import type { Database } from '../schema/db';
import { freshDatabase } from './database';
import { cursorAfter, growContacts, growListings } from './growth-data';
import { round } from './report';
import { runServer } from './server';
import { envInt, type FromServer, type ToServer } from './shared';

const SCRIPT = fileURLToPath(import.meta.url);
/** Rows before the deep page: page 1,000 at 24 a page (at 1,000 listings, the last full page). */
const DEEP_ROWS = 999 * 24;
const PAGE = 'page_size=24';

type Route = { name: string; path: string; server?: boolean };

/** The facets route and the page it is compared with (the same page without facets). */
const facetsRoute = 'listings sort=featured facets=type,area,bedrooms,price';
const facetsBaseline = 'listings sort=featured';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/** The routes at one size: first pages, the deep page of every sort, and the contacts of the server key. */
async function routesAt(client: pg.Client, companyId: string, size: number): Promise<Route[]> {
  const deep = Math.min(DEEP_ROWS, size - 24);
  const published = `from listings l where l.company_id = $1 and l.status = 'published'`;
  const routes: Route[] = [];
  for (const sort of Object.values(listingSorts)) {
    routes.push({ name: `listings sort=${sort.name}`, path: `/listings?${PAGE}&sort=${sort.name}` });
    const cursor = await cursorAfter(client, sort, published, companyId, deep);
    routes.push({ name: `listings sort=${sort.name}, page 1,000`, path: `/listings?${PAGE}&sort=${sort.name}&cursor=${cursor}` });
  }
  routes.push({ name: 'listings type=sale sort=newest', path: `/listings?${PAGE}&type=sale&sort=newest` });
  // Issue 36: words (by relevance, and newest first), a word one letter off, Arabic with its article; the plain filter
  // above is their baseline (goal: at most 2× it).
  routes.push({ name: 'listings q=marina', path: `/listings?${PAGE}&q=marina` });
  routes.push({ name: 'listings q=marina sort=newest', path: `/listings?${PAGE}&q=marina&sort=newest` });
  routes.push({ name: 'listings q=marena (one letter off)', path: `/listings?${PAGE}&q=marena` });
  routes.push({ name: 'listings q=المارينا', path: `/listings?${PAGE}&q=${encodeURIComponent('المارينا')}` });
  // A word one listing holds (its number in the grown titles, as a visitor types a reference): a rare word.
  const { rows: middle } = await client.query<{ slug_en: string }>(
    `select l.slug_en ${published} and l.slug_en like 'growth-%' order by l.published_at, l.id offset $2 limit 1`,
    [companyId, Math.floor(size / 2)],
  );
  const own = middle[0]?.slug_en.slice('growth-'.length);
  if (own) routes.push({ name: "listings q=<one listing's number>", path: `/listings?${PAGE}&q=${own}` });
  // A rare word of letters (one edit finds it too): the first, in code point order, of the words of six letters or more
  // that one published listing holds. The grown titles hold none, so it is the same word at every size.
  const { rows: rare } = await client.query<{ word: string }>(
    `select w.word from (select distinct l.id, unnest(string_to_array(l.search_text, ' ')) as word ${published}) w
      where w.word ~ '^[a-z]{6,}$' group by w.word having count(*) = 1 order by w.word collate "C" limit 1`,
    [companyId],
  );
  const word = rare[0]?.word;
  if (word) routes.push({ name: 'listings q=<a word one listing holds>', path: `/listings?${PAGE}&q=${word}` });
  // Issue 36: the facets' counts in the page's statement, against the same page without them (`sort=featured` above).
  routes.push({ name: facetsRoute, path: `/listings?${PAGE}&sort=featured&facets=type,area,bedrooms,price` });
  routes.push({ name: 'listings/map', path: `/listings/map?${PAGE}` });
  routes.push({ name: 'areas', path: '/areas' });
  routes.push({ name: 'filters', path: '/filters' });
  routes.push({ name: 'sitemap', path: `/sitemap?${PAGE}` });
  const sitemapCursor = await cursorAfter(client, sitemapSort, published, companyId, deep);
  routes.push({ name: 'sitemap, page 1,000', path: `/sitemap?${PAGE}&cursor=${sitemapCursor}` });
  routes.push({ name: 'contacts (server key)', path: `/contacts?${PAGE}`, server: true });
  const contactsSort = syncSort('contacts', 'uuid');
  const people = 'from contacts where contacts.company_id = $1';
  const contactsCursor = await cursorAfter(client, contactsSort, people, companyId, Math.min(DEEP_ROWS, size - 24));
  routes.push({ name: 'contacts, page 1,000', path: `/contacts?${PAGE}&cursor=${contactsCursor}`, server: true });
  return routes;
}

type Target = { host: string; serverKey: string; routes: Route[] };
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** One GET on the server as the given host: milliseconds until the whole body has arrived. */
function timeOne(port: number, host: string, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.get({ host: '127.0.0.1', port, path, agent, headers: { ...headers, Host: host } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const elapsed = performance.now() - started;
        if (response.statusCode !== 200)
          reject(new Error(`${host}${path}: ${response.statusCode} ${Buffer.concat(chunks).toString().slice(0, 300)}`));
        else resolve(elapsed);
      });
    });
    request.on('error', reject);
  });
}

/** Each route of both companies, in turn (which goes first alternates), `runs` times after three warm-ups. */
async function measure(port: number, control: Target, grown: Target, runs: number) {
  const out: Record<string, { control_ms: number; grown_ms: number; ratio: number }> = {};
  for (const [i, route] of grown.routes.entries()) {
    const twin = control.routes[i] as Route;
    const times: { control: number[]; grown: number[] } = { control: [], grown: [] };
    const ask = (target: Target, r: Route) =>
      timeOne(port, target.host, `/uncached/api/v1${r.path}`, r.server ? { Authorization: `Bearer ${target.serverKey}` } : {});
    for (let n = 0; n < runs + 3; n++) {
      const order = n % 2 === 0 ? (['control', 'grown'] as const) : (['grown', 'control'] as const);
      for (const which of order) {
        const elapsed = await ask(which === 'control' ? control : grown, which === 'control' ? twin : route);
        if (n >= 3) times[which].push(elapsed); // the first three warm the plans and the connection
      }
    }
    const [c, g] = [median(times.control), median(times.grown)];
    out[route.name] = { control_ms: round(c, 2), grown_ms: round(g, 2), ratio: round(g / c, 2) };
    console.log(`  ${route.name}: ${out[route.name]?.grown_ms} ms, control ${out[route.name]?.control_ms} ms`);
  }
  return out;
}

async function runDriver(): Promise<number> {
  const sizes = (process.env.GROWTH_SIZES ?? '1000,100000').split(',').map(Number);
  const runs = envInt('GROWTH_RUNS', 21);
  let child: ChildProcess | undefined;
  let client: pg.Client | undefined;
  const database = await freshDatabase('pa_growth', async () => {
    await client?.end().catch(() => {});
    if (child && child.exitCode === null && child.signalCode === null) {
      const running = child;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.send({ id: -1, type: 'stop' } satisfies ToServer);
      const timer = setTimeout(() => running.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
  });
  try {
    const server = fork(SCRIPT, [], {
      env: { ...process.env, BENCH_ROLE: 'server', BENCH_DATABASE_URL: database.url, CATALOGUE_RESPONSE_CACHE_MB: '0' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child = server;
    const ready = await new Promise<{ port: number }>((resolve, reject) => {
      server.on('message', (message: FromServer) => {
        if (message.type === 'ready') resolve(message);
        if (message.type === 'failed') reject(new Error(`server failed to start:\n${message.message}`));
      });
      server.once('exit', (code) => reject(new Error(`server exited with code ${code} before it was ready`)));
    });
    client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const company = await client.query<{ company_id: string }>(`select company_id from company_hosts where host = 'localhost'`);
    const demoId = company.rows[0]?.company_id as string;
    const kysely = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: database.url, max: 1 }) }),
    });
    const controlHost = 'control.localhost';
    const controlId = await kysely.transaction().execute(async (trx) => {
      const input = {
        name: 'Growth control',
        hosts: [controlHost],
        environment: 'development',
        currency: 'AED',
        time_zone: 'Asia/Dubai',
      };
      const created = await createCompany(trx, CreateCompanyInput.parse(input));
      await seedCatalogueDemo(trx, created.id, new Date());
      return created.id;
    });
    const keyOf = (id: string) =>
      kysely
        .transaction()
        .execute(async (trx) => (await createKey(trx, id, { kind: 'server', scopes: ['read:contacts'] }, 'admin')).secret);
    const [demoKey, controlKey] = [await keyOf(demoId), await keyOf(controlId)];
    const searchDb = kysely;

    const control = { size: 1000, listings: await growListings(client, controlId, 1000) };
    await growContacts(client, controlId, 1000, 'C');
    await fillSearchText(searchDb, controlId);
    const load = { before: os.loadavg()[0] as number, after: 0 };
    const results: Array<{ size: number; grow_seconds: number; routes: Awaited<ReturnType<typeof measure>> }> = [];
    for (const size of sizes) {
      const started = performance.now();
      const listings = await growListings(client, demoId, size);
      const contacts = await growContacts(client, demoId, size, 'G');
      // The grown listings' search text, as every writer of a listing writes it (lib/listing-search.ts).
      await fillSearchText(searchDb, demoId);
      // What autovacuum does to a grown table in time: statistics and the visibility map (index-only scans).
      await client.query('vacuum analyze listings, listing_photos, contacts, areas, listing_search_words');
      const grow = round((performance.now() - started) / 1000, 1);
      console.log(
        `demo: ${listings} published listings, ${contacts} contacts (grown in ${grow} s); control: ${control.listings}`,
      );
      const grown = { host: 'localhost', serverKey: demoKey, routes: await routesAt(client, demoId, size) };
      const twin = { host: controlHost, serverKey: controlKey, routes: await routesAt(client, controlId, 1000) };
      results.push({ size, grow_seconds: grow, routes: await measure(ready.port, twin, grown, runs) });
    }
    load.after = os.loadavg()[0] as number;
    await kysely.destroy();

    const header = results.map((r) => `demo at ${r.size} ÷ control | demo at ${r.size} ms (control ms)`).join(' | ');
    const lines = [
      `| Route (one request at a time, cache off) | ${header} | goal ≤ 1.5× |`,
      `|---|${results.map(() => '---:|---:|').join('')}---|`,
    ];
    for (const name of Object.keys(results[0]?.routes ?? {})) {
      const cells = results.map((r) => {
        const at = r.routes[name];
        return at ? `${at.ratio}× | ${at.grown_ms} (${at.control_ms})` : ' | ';
      });
      const last = results[results.length - 1]?.routes[name]?.ratio ?? Number.NaN;
      lines.push(`| ${name} | ${cells.join(' | ')} | ${last <= 1.5 ? 'met' : 'not met'} |`);
    }
    // Issue 36: each word search ÷ the plain filter of the same page size, at each size (goal ≤ 2×).
    const plain = 'listings type=sale sort=newest';
    const searches = Object.keys(results[0]?.routes ?? {}).filter((name) => name.startsWith('listings q='));
    lines.push(
      '',
      `| Word search ÷ \`${plain}\` (same company, same size) | ${results.map((r) => `at ${r.size}`).join(' | ')} | goal ≤ 2× |`,
    );
    lines.push(`|---|${results.map(() => '---:|').join('')}---|`);
    const searchRatios: Record<string, Record<number, number>> = {};
    for (const name of searches) {
      const ratios = results.map((r) =>
        round((r.routes[name]?.grown_ms ?? Number.NaN) / (r.routes[plain]?.grown_ms ?? Number.NaN), 2),
      );
      searchRatios[name] = Object.fromEntries(results.map((r, i) => [r.size, ratios[i] as number]));
      lines.push(`| ${name} | ${ratios.map((x) => `${x}×`).join(' | ')} | ${ratios.every((x) => x <= 2) ? 'met' : 'not met'} |`);
    }
    const facetRatios = results.map((r) =>
      round((r.routes[facetsRoute]?.grown_ms ?? Number.NaN) / (r.routes[facetsBaseline]?.grown_ms ?? Number.NaN), 2),
    );
    lines.push(
      '',
      `| Facets ÷ \`${facetsBaseline}\` (same company, same size) | ${results.map((r) => `at ${r.size}`).join(' | ')} |`,
      `|---|${results.map(() => '---:|').join('')}`,
      `| ${facetsRoute} | ${facetRatios.map((x) => `${x}×`).join(' | ')} |`,
    );
    console.log(`\n${lines.join('\n')}\n`);
    const { rows: version } = await database.admin.query<{ server_version: string }>('show server_version');
    console.log(
      `Node ${process.version}, PostgreSQL ${version[0]?.server_version}, ${os.cpus().length} cores; load average (1 min) ` +
        `${load.before.toFixed(2)} before, ${load.after.toFixed(2)} after; ${runs} requests per route and company (median)`,
    );
    const file = join(dirname(SCRIPT), 'results', 'growth-latest.json');
    await mkdir(dirname(file), { recursive: true });
    await writeFile(
      file,
      `${JSON.stringify({ load_average_1m: load, runs, results, search_ratios: searchRatios, facets_ratios: Object.fromEntries(results.map((r, i) => [r.size, facetRatios[i]])) }, null, 2)}\n`,
    );
    console.log(`Results written to ${file}`);
    return 0;
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
