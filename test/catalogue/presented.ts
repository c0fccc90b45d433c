import { expect } from 'vitest';
import { listingSorts, selectListingRecord } from '../../functions/catalogue/listings';
import { publishedListings } from '../../lib/listing-filters';
import { type ListingRecord, presenter } from '../../functions/catalogue/listings.present';
import { sitemapSort } from '../../functions/catalogue/pages';
import { type KeysetSort, pageOf, paginate } from '../../lib/pagination';
import { type TestClient, testClient } from '../support/client';
import type { TestApi } from '../support/harness';

/**
 * The oracle of the stored renders: each public answer as the presenter makes it from the rows as they are now,
 * the way the routes built every answer before render on write (one query, every row presented, `c.json`).
 */

/** A listing's id by its English slug. */
export const listingIdOf = async (api: TestApi, companyId: string, slug: string) =>
  (
    await api.db
      .selectFrom('listings')
      .select('id')
      .where('company_id', '=', companyId)
      .where('slug_en', '=', slug)
      .executeTakeFirstOrThrow()
  ).id;

/** A listing's stored forms (one of them) and their tag. */
export const storedRender = (api: TestApi, listingId: string) =>
  api.db
    .selectFrom('listing_renders')
    .select(['rendered_for', 'detail'])
    .where('listing_id', '=', listingId)
    .executeTakeFirstOrThrow();

const list = async (api: TestApi, mediaBaseUrl: string, companyId: string) => {
  const company = await api.db.selectFrom('companies').selectAll().where('id', '=', companyId).executeTakeFirstOrThrow();
  return { company, present: presenter(company, mediaBaseUrl), published: publishedListings(api.db, company) };
};

const text = (results: unknown[], next_cursor: string | null) => JSON.stringify({ results, next_cursor });

async function page<T extends Record<string, unknown>>(query: { execute(): Promise<T[]> }, sort: KeysetSort, size: number) {
  return pageOf(await query.execute(), sort, size);
}

/** Every public answer of the company (lists of 100, so one page each) as JSON text, keyed by its request path. */
export async function presentedAnswers(api: TestApi, mediaBaseUrl: string, companyId: string): Promise<Map<string, string>> {
  const { company, present, published } = await list(api, mediaBaseUrl, companyId);
  const answers = new Map<string, string>();
  const size = 100;
  const records = (query: typeof published, photos: 'all' | 'first' | 'none') =>
    paginate(selectListingRecord(query, { description: false, photos }), listingSorts.featured, { page_size: size });
  const cards = await page(records(published, 'all'), listingSorts.featured, size);
  answers.set(
    '/listings?page_size=100',
    text((cards.rows as unknown as ListingRecord[]).map(present.summary), cards.next_cursor),
  );
  const mapped = published.where('l.latitude', 'is not', null);
  for (const cover of [false, true]) {
    const points = await page(records(mapped, cover ? 'first' : 'none'), listingSorts.featured, size);
    const results = (points.rows as unknown as ListingRecord[]).map((row) => present.mapPoint(row, cover));
    answers.set(`/listings/map?${cover ? 'cover=1&' : ''}page_size=100`, text(results, points.next_cursor));
  }
  const entries = await page(
    paginate(published.select(['l.id', 'l.slug_en', 'l.slug_ar', 'l.listing_type', 'l.updated_at']), sitemapSort, {
      page_size: size,
    }),
    sitemapSort,
    size,
  );
  answers.set(
    '/sitemap?page_size=100',
    text((entries.rows as unknown as ListingRecord[]).map(present.sitemapEntry), entries.next_cursor),
  );
  const all = await selectListingRecord(api.db.selectFrom('listings as l').where('l.company_id', '=', company.id), {
    description: true,
    photos: 'all',
  })
    .select('l.status')
    .execute();
  for (const row of all) {
    const path = `/listings/${encodeURIComponent(row.slug_en)}`;
    if (row.status === 'draft') answers.set(path, 'not found');
    else if (row.status === 'withdrawn') answers.set(path, JSON.stringify(present.withdrawn(row)));
    else answers.set(path, JSON.stringify(present.detail(row as unknown as ListingRecord)));
  }
  return answers;
}

/** The lists' answers of {@link presentedAnswers} by their key, each read through the typed client as text. */
const lists: Record<string, (client: TestClient) => Promise<{ data?: string; error?: unknown; response: Response }>> = {
  '/listings?page_size=100': (c) => c.GET('/api/v1/listings', { params: { query: { page_size: 100 } }, parseAs: 'text' }),
  '/listings/map?page_size=100': (c) => c.GET('/api/v1/listings/map', { params: { query: { page_size: 100 } }, parseAs: 'text' }),
  '/listings/map?cover=1&page_size=100': (c) =>
    c.GET('/api/v1/listings/map', { params: { query: { cover: '1', page_size: 100 } }, parseAs: 'text' }),
  '/sitemap?page_size=100': (c) => c.GET('/api/v1/sitemap', { params: { query: { page_size: 100 } }, parseAs: 'text' }),
};

/** The typed read of one answer of {@link presentedAnswers} (a list, or `/listings/{slug}`), its body as text. */
const readOf = (client: TestClient, path: string) =>
  lists[path]?.(client) ??
  client.GET('/api/v1/listings/{slug}', {
    params: { path: { slug: decodeURIComponent(path.slice('/listings/'.length)) } },
    parseAs: 'text',
  });

/**
 * Asks the API for every answer of {@link presentedAnswers} and expects each to be the same JSON text (and, for a
 * readable difference, the same value parsed). Returns the answers.
 */
export async function expectAnswersAsPresented(api: TestApi, host: string, companyId: string, mediaBaseUrl: string) {
  const expected = await presentedAnswers(api, mediaBaseUrl, companyId);
  expect(expected.size).toBeGreaterThan(4);
  const client = testClient(api, { host });
  for (const [path, body] of expected) {
    const { data: text, error, response: res } = await readOf(client, path);
    if (body === 'not found') {
      expect(res.status, path).toBe(404);
      continue;
    }
    expect(res.status, `${path}: ${JSON.stringify(error)}`).toBe(200);
    expect(res.headers.get('content-type'), path).toBe('application/json');
    expect(JSON.parse(text ?? 'null'), path).toEqual(JSON.parse(body));
    expect(text, path).toBe(body);
  }
  return expected;
}
