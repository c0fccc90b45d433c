import fc from 'fast-check';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { demo } from '../support/harness';
import { importDoc, qs, walk } from './support';
import { createCompany, useApi } from '../support/world';

/**
 * Keyset pages lose nothing and repeat nothing, in every sort's full order including the id tiebreak: a company
 * whose listings share featured flags, publication instants and sort orders (so most rows tie on all but the id),
 * walked with random page sizes, sorts and a type filter, against the order worked out here from the stored rows.
 */
let host: string;
let rows: Array<{ id: string; slug: string; type: string; featured: boolean; at: bigint; order: number }>;

const instants = ['2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000001Z', '2026-03-01T12:00:00Z'];

const api = useApi();
beforeAll(async () => {
  const company = await createCompany(api);
  host = company.host;
  const listings = Array.from({ length: 45 }, (_, i) => ({
    slug: { en: `tie-${i}` },
    listing_type: (['sale', 'lease', 'holiday_home'] as const)[i % 3],
    status: i % 11 === 5 ? 'draft' : 'published',
    title: { en: `Tie ${i}` },
    city: 'dubai',
    featured: i % 4 === 0,
    sort_order: i % 2,
    published_at: instants[i % instants.length],
  }));
  const res = await importDoc(api, company.id, { areas: demo.areas, listings });
  expect(res.response.status, JSON.stringify(res.error)).toBe(200);
  const stored = await api.db
    .selectFrom('listings')
    .select(['id', 'slug_en', 'listing_type', 'featured', 'sort_order'])
    .select(sql<string>`(extract(epoch from published_at) * 1000000)::bigint::text`.as('us'))
    .where('company_id', '=', company.id)
    .where('status', '=', 'published')
    .execute();
  rows = stored.map((r) => ({
    id: r.id,
    slug: r.slug_en,
    type: r.listing_type,
    featured: r.featured,
    at: BigInt(r.us),
    order: r.sort_order,
  }));
});

type Row = (typeof rows)[number];
/** Ties go to the id, as in SQL (a uuid's order is its lower-case text's order); instants in microseconds. */
const cmp = <T>(a: T, b: T) => (a < b ? -1 : a > b ? 1 : 0);
const byId = (a: Row, b: Row) => cmp(a.id, b.id);
const expected = {
  featured: (a: Row, b: Row) => Number(b.featured) - Number(a.featured) || cmp(b.at, a.at) || -byId(a, b),
  newest: (a: Row, b: Row) => cmp(b.at, a.at) || -byId(a, b),
  sort_order: (a: Row, b: Row) => a.order - b.order || byId(a, b),
  sitemap: (a: Row, b: Row) => cmp(a.at, b.at) || byId(a, b),
};

describe('keyset pages of every sort', () => {
  it('give every published listing once, in the full order, whatever the page size and filter', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('featured', 'newest', 'sort_order', 'sitemap'),
        fc.integer({ min: 1, max: 17 }),
        fc.constantFrom(undefined, 'sale', 'lease'),
        async (sort, pageSize, type) => {
          const sitemap = sort === 'sitemap';
          const query = sitemap ? { page_size: pageSize } : { page_size: pageSize, sort, ...(type ? { type } : {}) };
          const { pages } = await walk(api, host, sitemap ? '/api/v1/sitemap' : '/api/v1/listings', query);
          const seen = pages.flat().map((r: any) => (sitemap ? r.paths.en.split('/').pop() : r.slug.en));
          const want = rows
            .filter((r) => sitemap || !type || r.type === type)
            .sort(expected[sort as keyof typeof expected])
            .map((r) => r.slug);
          expect(seen, `${sort}${qs(query)}`).toEqual(want);
          expect(pages.every((page, i) => page.length === pageSize || i === pages.length - 1)).toBe(true);
        },
      ),
      { numRuns: 20 },
    );
  });
});
