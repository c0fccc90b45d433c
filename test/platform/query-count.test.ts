import type { LogEvent } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, openTestDatabase, type TestApi } from '../support/harness';

/**
 * A page of N listings costs a fixed number of SQL statements, whatever N: photos, areas and the like come
 * in the same query, never one query per row (N+1). Counted at the driver by Kysely's `log` hook.
 */

let statements: string[] = [];

const log = (event: LogEvent) => {
  // Failed statements were sent too; transaction control is not a query of the request's own.
  if (!/^\s*(begin|commit|rollback|savepoint|release)\b/i.test(event.query.sql)) statements.push(event.query.sql);
};

let api: TestApi;
let host: string;

beforeAll(async () => {
  // Pages are built each time here: the rendered-answer cache is off (its own test is below).
  api = await createTestApi({ handle: await openTestDatabase({ log }), env: { CATALOGUE_RESPONSE_CACHE_MB: '0' } });
  ({ host } = await api.demoCompany());
});
afterAll(() => api.close());

async function counted(path: string) {
  statements = [];
  const res = await api.request(path, { host });
  const sent = statements;
  expect(res.status, res.text).toBe(200);
  return { statements: sent, results: res.json.results as unknown[] };
}

const pageSizes = [1, 5, 24, 100];

describe('SQL queries per catalogue request', () => {
  it.each([
    ['/api/v1/listings', ''],
    ['/api/v1/listings/map', ''],
    ['/api/v1/listings/map', '&cover=1'],
    ['/api/v1/sitemap', ''],
  ])('%s%s sends as many queries for page_size 1, 5, 24 and 100', async (path, extra) => {
    await counted(`${path}?page_size=1${extra}`); // anything done once per process is not per request
    const measured = [];
    for (const size of pageSizes) measured.push({ size, ...(await counted(`${path}?page_size=${size}${extra}`)) });

    // The page sizes really gave pages of different lengths (the demo has 29 published listings).
    const all = measured.at(-1)!.results.length;
    expect(all, 'page_size=100 must return more rows than page_size=24').toBeGreaterThan(24);
    for (const m of measured) expect(m.results.length).toBe(Math.min(m.size, all));

    const counts = measured.map((m) => m.statements.length);
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts, `statements per page size ${pageSizes.join(', ')}`).toEqual(pageSizes.map(() => counts[0]));
  });
});

describe('conditional GETs', () => {
  it('answers a matching If-None-Match with 304 after the company lookup alone, without building the page', async () => {
    const first = await api.request('/api/v1/listings?page_size=24', { host });
    const etag = first.headers.get('etag') as string;
    statements = [];
    const res = await api.request('/api/v1/listings?page_size=24', { host, headers: { 'If-None-Match': etag } });
    expect(res.status).toBe(304);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toContain('company_hosts');
  });

  it('changes the ETag on any write to the catalogue, even one made straight in SQL', async () => {
    const etag = async () => (await api.request('/api/v1/listings', { host })).headers.get('etag');
    const { company_id } = await api.db
      .selectFrom('company_hosts')
      .select('company_id')
      .where('host', '=', host)
      .executeTakeFirstOrThrow();
    const before = await etag();
    await api.db
      .updateTable('listing_photos')
      .set({ alt: JSON.stringify({ en: 'Changed outside the API' }) })
      .where('listing_id', 'in', api.db.selectFrom('listings').select('id').where('company_id', '=', company_id))
      .execute();
    const afterPhoto = await etag();
    expect(afterPhoto).not.toBe(before);
    await api.db
      .updateTable('companies')
      .set({ settings: JSON.stringify({ hide_prices: true }) })
      .where('id', '=', company_id)
      .execute();
    expect(await etag()).not.toBe(afterPhoto);
  });
});

describe('the rendered-answer cache', () => {
  it('serves a repeated page from memory after the company lookup, and rebuilds it after a change', async () => {
    const cached = await createTestApi({ handle: await openTestDatabase({ log }) });
    const company = await cached.demoCompany();
    const get = async () => {
      statements = [];
      const res = await cached.request('/api/v1/listings?page_size=24&sort=newest', { host: company.host });
      return { res, statements };
    };
    const first = await get();
    expect(first.statements).toHaveLength(2);
    const second = await get();
    expect(second.statements).toHaveLength(1);
    expect(second.res.text).toBe(first.res.text);
    expect(second.res.headers.get('etag')).toBe(first.res.headers.get('etag'));
    const slug = first.res.json.results[0].slug.en;
    await cached.admin(`/companies/${company.id}/listings/${slug}/withdraw`, { method: 'POST' });
    const third = await get();
    expect(third.statements).toHaveLength(2);
    expect(third.res.json.results.map((l: { slug: { en: string } }) => l.slug.en)).not.toContain(slug);
    await cached.close();
  });
});
