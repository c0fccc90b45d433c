/**
 * The BUILT Worker bundles (npm run build:worker) in workerd, through Miniflare, reading a freshly migrated
 * and seeded database on the local PostgreSQL with the Neon driver over a WebSocket-to-TCP proxy and a stand-in of
 * Neon's SQL over HTTP (a visitor's reads): the same code path as production (Neon Pool per request, closed after
 * the response via waitUntil).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildApp, type GroupName, routeGroups } from '../../functions/app';
import { importCatalogue } from '../../functions/catalogue/content';
import { createCompany } from '../../functions/admin/companies';
import { randomToken, sha256 } from '../../lib/crypto';
import type { DatabaseHandle } from '../../lib/db/index';
import demoCatalogue from '../../functions/catalogue/demo-catalogue.json' with { type: 'json' };
import { CatalogueImportInput } from '../../schema/catalogue/admin';
import { CreateCompanyInput } from '../../schema/platform/admin';
import { bundleOf, startWorkerd, type Workerd, workerClient } from './support';

// Every route group's own Worker (functions/<group>/worker.ts), from the one list of groups.
const groupNames: GroupName[] = routeGroups.map((group) => group.name as GroupName);
const withJobs = routeGroups.filter((group) => (group.jobs ?? []).length > 0).map((group) => group.name);
const bundles = ['default' as const, ...groupNames].map(bundleOf);

const suffix = randomBytes(4).toString('hex');
const databaseName = `pa_workerd_${suffix}`;
const host = `w${suffix}.workerd.test`;
const adminToken = `adm_${randomToken(40)}`;
const workerApplicationName = 'pa_workerd_worker';
const demoSlugs = new Set(demoCatalogue.listings.map((l) => l.slug.en));

type Listing = { slug: { en: string; ar: string }; title?: unknown };
type Page = { results: Listing[]; next_cursor: string | null };
type Problem = { type: string; title: string; status: number; code: string; request_id: string };

let workerd: Workerd | undefined;
let mf: Miniflare | undefined;
let handle: DatabaseHandle | undefined;

/** A request to one of the Workers (Miniflare keeps the URL, so the Host is the company's). */
async function call(worker: string, path: string, init: { host?: string; headers?: Record<string, string> } = {}) {
  if (!mf) throw new Error('Miniflare is not running');
  const fetcher = await mf.getWorker(worker);
  // raw: one Worker of Miniflare's by name (which Worker mounts which path, the health routes, unknown hosts, CF
  // headers, the documents); the typed client is `clientOn` below
  return fetcher.fetch(`http://${init.host ?? host}${path}`, { headers: init.headers });
}

/** The typed public client on one of the Workers, on the company's host. */
const clientOn = (worker: string) => workerClient(() => mf, worker, { host });

/** A typed answer that is a problem of `status` and `code`, its request id the one in its header. */
function expectRefused(res: { response: Response; error?: unknown }, status: number, code: string) {
  expect(res.response.status).toBe(status);
  expect(res.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = res.error as Problem;
  expect(body).toMatchObject({ status, code });
  expect(body.request_id).toBe(res.response.headers.get('request-id'));
  return body;
}

// raw (the calls through `call` below): which Worker mounts which path, the health routes, unknown hosts, CF headers
// and the documents, as each bundle answers them
async function expectProblem(response: Awaited<ReturnType<typeof call>>, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await response.json()) as Problem;
  expect(body).toMatchObject({ status, code });
  expect(body.request_id).toBe(response.headers.get('request-id'));
  return body;
}

beforeAll(async () => {
  workerd = await startWorkerd({
    template: inject('workerdTemplate'),
    databaseName,
    applicationName: workerApplicationName,
    // The default Worker as wrangler.jsonc deploys it (ADMIN_API "off"), the same bundle with the admin API
    // switched on (the control that proves the 404s below come from the switch), and each group alone
    // (ADMIN_API "on" there too: a group's entry must ignore it).
    workers: [
      { name: 'default', bundle: bundleOf('default'), bindings: { ADMIN_API: 'off' } },
      { name: 'admin', bundle: bundleOf('default'), bindings: { ADMIN_API: 'on' } },
      ...groupNames.map((name) => ({ name, bundle: bundleOf(name), bindings: { ADMIN_API: 'on' } })),
    ],
    seed: async (db) => {
      await db.db.transaction().execute(async (trx) => {
        const company = await createCompany(
          trx,
          CreateCompanyInput.parse({
            name: 'Workerd Test Properties',
            hosts: [host],
            environment: 'production',
            currency: 'AED',
            time_zone: 'Asia/Dubai',
            settings: { team_module: true, bookings_enabled: true, site_url: 'https://www.example.com' },
          }),
        );
        // Not rendered here: the Worker's first reads render and store the forms (functions/catalogue/renders.ts).
        await importCatalogue(trx, company, CatalogueImportInput.parse(demoCatalogue), { render: null, now: new Date() });
      });
      await db.db
        .insertInto('admin_tokens')
        .values({ token_hash: await sha256(adminToken) })
        .execute();
    },
  });
  ({ mf, handle } = workerd);
});

afterAll(async () => {
  await workerd?.close();
});

describe('default Worker bundle in workerd (Neon driver → local PostgreSQL)', () => {
  let firstPage: Page;

  it('lists published demo listings with a cursor', async () => {
    const { data, response } = await clientOn('default').GET('/api/v1/listings', { params: { query: { page_size: 5 } } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('request-id')).toBeTruthy();
    expect(response.headers.get('cache-control')).toContain('s-maxage=');
    firstPage = data as Page;
    expect(firstPage.results).toHaveLength(5);
    for (const listing of firstPage.results) expect(demoSlugs).toContain(listing.slug.en);
    expect(typeof firstPage.next_cursor).toBe('string');
    expect(firstPage.next_cursor).not.toBe('');
  });

  it('follows the cursor to the next page on a new request (and a new pool)', async () => {
    const { data, response } = await clientOn('default').GET('/api/v1/listings', {
      params: { query: { page_size: 5, cursor: firstPage.next_cursor ?? '' } },
    });
    expect(response.status).toBe(200);
    const page = data as Page;
    expect(page.results).toHaveLength(5);
    const seen = new Set(firstPage.results.map((l) => l.slug.en));
    for (const listing of page.results) {
      expect(demoSlugs).toContain(listing.slug.en);
      expect(seen).not.toContain(listing.slug.en);
    }
  });

  it('reads one listing by its English and its Arabic slug', async () => {
    const first = firstPage.results[0];
    if (!first) throw new Error('no listing on the first page');
    const read = (slug: string) => clientOn('default').GET('/api/v1/listings/{slug}', { params: { path: { slug } } });
    const english = await read(first.slug.en);
    expect(english.response.status).toBe(200);
    expect(english.data?.slug).toEqual(first.slug);

    const arabic = await read(first.slug.ar);
    expect(arabic.response.status).toBe(200);
    expect(arabic.data?.slug).toEqual(first.slug);

    expectRefused(await read('no-such-listing'), 404, 'not_found');
  });

  it("answers a holiday home's availability and quote, dates read as calendar days through the Neon driver", async () => {
    if (!handle) throw new Error('no database');
    const slug = 'palm-5br-villa-private-beach-holiday';
    const listing = await handle.db
      .selectFrom('listings')
      .select(['id', 'company_id'])
      .where('slug_en', '=', slug)
      .executeTakeFirstOrThrow();
    await handle.db
      .insertInto('calendar_blocks')
      .values({
        company_id: listing.company_id,
        listing_id: listing.id,
        reason: 'owner',
        starts_on: '2027-02-10',
        ends_on: '2027-02-14',
      })
      .execute();
    const client = clientOn('default');
    const availability = await client.GET('/api/v1/listings/{slug}/availability', {
      params: { path: { slug }, query: { from: '2027-02-01', to: '2027-03-01' } },
    });
    expect(availability.response.status).toBe(200);
    const body = availability.data as NonNullable<typeof availability.data>;
    expect(body.blocked).toEqual([{ start: '2027-02-10', end: '2027-02-14' }]);
    expect(body.check_in_time).toBe('15:00');

    const quoteOf = (checkIn: string, checkOut: string) =>
      client.GET('/api/v1/listings/{slug}/quote', {
        params: { path: { slug }, query: { check_in: checkIn, check_out: checkOut, guests: 2 } },
      });
    const quote = await quoteOf('2027-02-20', '2027-02-23');
    expect(quote.response.status).toBe(200);
    const priced = quote.data as NonNullable<typeof quote.data>;
    expect(priced.nights.map((n) => n.date)).toEqual(['2027-02-20', '2027-02-21', '2027-02-22']);
    expect(priced.total).toMatch(/^\d+\.\d{2}$/);
    expectRefused(await quoteOf('2027-02-12', '2027-02-16'), 400, 'unavailable');
  });

  it('answers an unknown host with a 404 problem', async () => {
    const body = await expectProblem(
      await call('default', '/api/v1/listings', { host: `nobody-${suffix}.test` }),
      404,
      'unknown_host',
    );
    expect(body.type).toBeTruthy();
  });

  it('answers GET /health and GET /health/ready on every Worker, on any host (issue 23)', async () => {
    for (const worker of ['default', 'admin', ...groupNames]) {
      const live = await call(worker, '/health', { host: `nobody-${suffix}.test` });
      expect([worker, live.status, await live.json()]).toEqual([worker, 200, { status: 'ok' }]);
      const ready = await call(worker, '/health/ready', { host: `nobody-${suffix}.test` });
      expect([worker, ready.status, ((await ready.json()) as { status: string }).status]).toEqual([worker, 200, 'ready']);
    }
  });

  it('limits anonymous reads per CF-Connecting-IP with an isolate-wide limiter', async () => {
    const read = async (ip: string) => {
      const response = await call('default', '/api/v1/areas', { headers: { 'CF-Connecting-IP': ip } });
      expect(response.status).toBe(200);
      const header = response.headers.get('ratelimit') ?? '';
      const match = /;r=(\d+);t=(\d+)$/.exec(header);
      if (!match?.[1] || !match[2]) throw new Error(`no RateLimit header: "${header}"`);
      return { remaining: Number(match[1]), reset: Number(match[2]) };
    };
    // The limiter's window is the real clock's: three calls that straddle a window's end see the next window's
    // count (the last one's weighs on it, rounded down), so such a try is read again with fresh addresses.
    for (let attempt = 0; ; attempt++) {
      const [a, b] = [`203.0.113.${7 + 2 * attempt}`, `203.0.113.${8 + 2 * attempt}`];
      const a1 = await read(a);
      const a2 = await read(a);
      const b1 = await read(b);
      const sameWindow = a2.reset <= a1.reset && b1.reset <= a2.reset;
      if (!sameWindow && attempt < 3) continue;
      expect(sameWindow).toBe(true);
      expect(a2.remaining).toBe(a1.remaining - 1);
      expect(b1.remaining).toBe(a1.remaining);
      break;
    }
  });

  it('has no admin API unless ADMIN_API is "on"', async () => {
    await expectProblem(await call('default', '/admin/v1/companies'), 404, 'not_found');
    await expectProblem(await call('default', '/admin/v1/openapi.json'), 404, 'not_found');
  });

  it('mounts the admin API with ADMIN_API "on" (control)', async () => {
    await expectProblem(await call('admin', '/admin/v1/companies'), 403, 'admin_token_invalid');
    const response = await call('admin', '/admin/v1/companies', { headers: { Authorization: `Bearer ${adminToken}` } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { results: Array<{ hosts: string[] }> };
    expect(body.results.some((company) => company.hosts.includes(host))).toBe(true);
  });
});

describe('per-request Neon pools', () => {
  it('serve concurrent requests, each on its own pool', async () => {
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, i) => call(i % 2 ? 'catalogue' : 'default', `/api/v1/listings?page_size=${i + 1}`)),
    );
    const pages = await Promise.all(responses.map(async (r) => ({ status: r.status, body: (await r.json()) as Page })));
    pages.forEach((page, i) => {
      expect(page.status).toBe(200);
      expect(page.body.results).toHaveLength(i + 1);
    });
  });

  it('are closed after the response (no Worker connection stays open)', async () => {
    const open = async () => {
      if (!handle) throw new Error('no database handle');
      const { rows } = await sql<{ n: string }>`
        select count(*) as n from pg_stat_activity
        where datname = ${databaseName} and application_name = ${workerApplicationName}`.execute(handle.db);
      return Number(rows[0]?.n);
    };
    let count = await open();
    for (let i = 0; i < 50 && count > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      count = await open();
    }
    expect(count).toBe(0);
  });
});

describe('catalogue Worker bundle in workerd', () => {
  it('serves the catalogue', async () => {
    const response = await call('catalogue', '/api/v1/listings?page_size=5');
    expect(response.status).toBe(200);
    const page = (await response.json()) as Page;
    expect(page.results).toHaveLength(5);
    for (const listing of page.results) expect(demoSlugs).toContain(listing.slug.en);
    expect(page.next_cursor).toBeTruthy();
  });

  it('finds the holiday homes free for a stay, each with its quote, by the calendar read through the Neon driver', async () => {
    if (!handle) throw new Error('no database');
    const slug = 'palm-5br-villa-private-beach-holiday';
    const listing = await handle.db
      .selectFrom('listings')
      .select(['id', 'company_id'])
      .where('slug_en', '=', slug)
      .executeTakeFirstOrThrow();
    const block = { company_id: listing.company_id, listing_id: listing.id, reason: 'owner' as const };
    await handle.db
      .insertInto('calendar_blocks')
      .values({ ...block, starts_on: '2027-04-10', ends_on: '2027-04-14' })
      .execute();
    type Free = { results: Array<{ slug: { en: string }; quote?: { total: string; nights: unknown[] } }> };
    const free = async (checkIn: string, checkOut: string) => {
      const response = await call(
        'catalogue',
        `/api/v1/listings?check_in=${checkIn}&check_out=${checkOut}&guests=2&page_size=100`,
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      return (await response.json()) as Free;
    };
    const open = await free('2027-04-20', '2027-04-23');
    const villa = open.results.find((r) => r.slug.en === slug);
    // The stay Worker's quote (the same rules, lib/stay/): what a booking request of those dates would be priced at.
    const quote = await call('stay', `/api/v1/listings/${slug}/quote?check_in=2027-04-20&check_out=2027-04-23&guests=2`);
    expect(quote.status).toBe(200);
    expect(villa?.quote).toEqual(await quote.json());
    expect(villa?.quote?.nights).toHaveLength(3);
    const blocked = await free('2027-04-11', '2027-04-13');
    expect(blocked.results.map((r) => r.slug.en)).not.toContain(slug);
  });

  it('answers facets (issue 36) with the page: the counts of every listing the filter keeps', async () => {
    const every = (await (await call('catalogue', '/api/v1/listings?page_size=100')).json()) as Page;
    const response = await call('catalogue', '/api/v1/listings?page_size=2&facets=type,bedrooms,price');
    expect(response.status).toBe(200);
    const page = (await response.json()) as Page & { facets: Record<string, Array<{ value?: unknown; count: number }>> };
    expect(page.results).toHaveLength(2);
    const types = new Map<unknown, number>();
    for (const l of every.results as unknown as Array<{ listing_type: string }>)
      types.set(l.listing_type, (types.get(l.listing_type) ?? 0) + 1);
    expect(new Map(page.facets.type?.map((t) => [t.value, t.count]))).toEqual(types);
    expect(Object.keys(page.facets).sort()).toEqual(['bedrooms', 'price', 'type']);
  });

  it('never mounts the admin API, even with ADMIN_API "on"', async () => {
    await expectProblem(await call('catalogue', '/admin/v1/companies'), 404, 'not_found');
    await expectProblem(
      await call('catalogue', '/admin/v1/companies', { headers: { Authorization: `Bearer ${adminToken}` } }),
      404,
      'not_found',
    );
  });
});

describe('group Worker bundles in workerd', () => {
  const documentOf = async (worker: Parameters<typeof call>[0]) => {
    const response = await call(worker, '/api/v1/openapi.json');
    expect(response.status).toBe(200);
    return (await response.json()) as { paths: Record<string, unknown>; webhooks?: unknown };
  };

  it.each(groupNames)("serve the %s group's own OpenAPI document: its operations, as the whole API has them", async (name) => {
    const [own, whole] = await Promise.all([documentOf(name), documentOf('default')]);
    const expected = buildApp(async () => ({ services: {} as never }), { groups: [name], internal: false });
    // raw: the OpenAPI document of an app built in this process, which is not an operation of the document
    expect(own).toEqual(await (await expected.request('/api/v1/openapi.json')).json());
    expect(Object.keys(own.paths).length).toBeGreaterThan(0);
    for (const [path, item] of Object.entries(own.paths)) expect(whole.paths[path], path).toMatchObject(item as object);
    expect(own.webhooks).toEqual(whole.webhooks);
  });

  it("together serve every path of the whole API's document", async () => {
    const documents = await Promise.all(groupNames.map((name) => documentOf(name)));
    const paths = new Set(documents.flatMap((doc) => Object.keys(doc.paths)));
    expect([...paths].sort()).toEqual(Object.keys((await documentOf('default')).paths).sort());
  });

  it.each(groupNames)('the %s Worker never mounts the admin API nor the QStash callback', async (name) => {
    await expectProblem(
      await call(name, '/admin/v1/openapi.json', { headers: { Authorization: `Bearer ${adminToken}` } }),
      404,
      'not_found',
    );
    await expectProblem(await call(name, `/internal/v1/deliveries/${randomUUID()}`), 404, 'not_found');
  });

  it('the stay Worker serves the guest stay page; the catalogue Worker does not', async () => {
    const page = await call('stay', `/stay/${'a'.repeat(32)}`);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    await expectProblem(await call('catalogue', `/stay/${'a'.repeat(32)}`), 404, 'not_found');
  });

  it('run their own scheduled jobs where they have any, and have no scheduled handler otherwise', async () => {
    if (!mf) throw new Error('Miniflare is not running');
    for (const name of withJobs) {
      expect((await (await mf.getWorker(name)).scheduled({ cron: '* * * * *' })).outcome, name).toBe('ok');
    }
    // Without a scheduled() handler, workerd reports the Cron Trigger as an exception.
    for (const name of groupNames.filter((name) => !withJobs.includes(name))) {
      expect((await (await mf.getWorker(name)).scheduled({ cron: '* * * * *' })).outcome, name).toBe('exception');
    }
  });
});

describe('bundles', () => {
  it('contain no Node-only database or file-system modules', async () => {
    for (const path of bundles) {
      const map = JSON.parse(await readFile(`${path}.map`, 'utf8')) as { sources: string[] };
      const nodeOnly = map.sources.filter((source) =>
        /node_modules\/(pg|pg-[a-z-]+|@electric-sql\/pglite|kysely-pglite-dialect|ws)\/|lib\/db\/(pglite|postgres|migrations-fs)\.ts|lib\/node\//.test(
          source,
        ),
      );
      expect(nodeOnly, path).toEqual([]);
      const code = await readFile(path, 'utf8');
      expect(code).not.toMatch(/["']node:(fs|fs\/promises|net|child_process)["']/);
    }
  });
});
