import { beforeAll, describe, expect, it } from 'vitest';
import { demo } from '../support/harness';
import {
  areaSlug,
  type DemoListing,
  enSlugs,
  catalogue,
  listingDoc,
  ordered,
  pageLengths,
  published,
  smallCompany,
  type Sort,
  sorted,
  sorts,
  walk,
} from './support';
import { demoCompany, importCatalogue, useApi } from '../support/world';

let host: string;

const api = useApi();
beforeAll(async () => {
  ({ host } = await demoCompany(api));
});

const list = (query: Record<string, string | number> = {}) => catalogue(api, host).listings(query);

describe('GET /listings: which listings appear', () => {
  it('lists exactly the published listings, never a draft or a withdrawn one', async () => {
    const body = await list({ page_size: 100 });
    expect(body.results).toHaveLength(published.length);
    expect(sorted(enSlugs(body.results))).toEqual(sorted(published.map((l) => l.slug.en)));
    const hidden = demo.listings.filter((l) => l.status !== 'published');
    // The demo must hold both kinds of hidden listing, or this would prove nothing.
    expect(new Set(hidden.map((l) => l.status))).toEqual(new Set(['draft', 'withdrawn']));
    for (const slug of hidden.map((l) => l.slug.en)) expect(enSlugs(body.results)).not.toContain(slug);
    expect(new Set(body.results.map((r: { status: string }) => r.status))).toEqual(new Set(['published']));
    expect(body.next_cursor).toBeNull();
  });

  it('shows only the enabled types; a filter on a disabled type finds nothing', async () => {
    const company = await demoCompany(api, { enabled_types: ['lease', 'holiday_home'] });
    const all = await catalogue(api, company.host).listings({ page_size: 100 });
    const expected = published.filter((l) => l.listing_type !== 'sale');
    expect(expected.length).toBeLessThan(published.length);
    expect(all.results).toHaveLength(expected.length);
    expect(sorted(enSlugs(all.results))).toEqual(sorted(expected.map((l) => l.slug.en)));
    const sale = await catalogue(api, company.host).listings({ type: 'sale' });
    expect(sale.results).toEqual([]);
    expect(sale.next_cursor).toBeNull();
  });

  it('gives 20 listings per page by default', async () => {
    // More than one default page of published listings, so the default size shows.
    expect(published.length).toBeGreaterThan(20);
    const { pages } = await walk(api, host, '/api/v1/listings');
    expect(pages.map((p) => p.length)).toEqual(pageLengths(published.length, 20));
  });
});

describe('GET /listings: filters', () => {
  const inArea = (slug: string) => (l: DemoListing) => l.city === areaSlug(slug) || l.area === areaSlug(slug);
  const cases: Array<[string, Record<string, string>, (l: DemoListing) => boolean]> = [
    ['type sale', { type: 'sale' }, (l) => l.listing_type === 'sale'],
    ['type lease', { type: 'lease' }, (l) => l.listing_type === 'lease'],
    ['type holiday_home', { type: 'holiday_home' }, (l) => l.listing_type === 'holiday_home'],
    ['a city in English', { area: 'abu-dhabi' }, inArea('abu-dhabi')],
    ['a city in Arabic', { area: 'أبوظبي' }, inArea('abu-dhabi')],
    ['an area in English', { area: 'dubai-marina' }, inArea('dubai-marina')],
    ['an area in Arabic', { area: 'دبي-مارينا' }, inArea('dubai-marina')],
    ['a project in English', { project: 'burj-vista' }, (l) => l.project === 'burj-vista'],
    ['a project in Arabic', { project: 'برج-فيستا' }, (l) => l.project === 'burj-vista'],
    ['a property type', { property_type: 'villa' }, (l) => l.property_type === 'villa'],
    ['bedrooms_min', { bedrooms_min: '3' }, (l) => l.bedrooms >= 3],
    ['bedrooms_max', { bedrooms_max: '1' }, (l) => l.bedrooms <= 1],
    ['bedrooms_min and max', { bedrooms_min: '2', bedrooms_max: '3' }, (l) => l.bedrooms >= 2 && l.bedrooms <= 3],
    ['guests_min', { guests_min: '5' }, (l) => (l.max_guests ?? 0) >= 5],
    ['completion off_plan', { completion: 'off_plan' }, (l) => l.completion === 'off_plan'],
    ['completion ready', { completion: 'ready' }, (l) => l.completion === 'ready'],
    ['featured=true', { featured: 'true' }, (l) => l.featured],
    ['featured=1', { featured: '1' }, (l) => l.featured],
    ['featured=false', { featured: 'false' }, (l) => !l.featured],
    ['featured=0', { featured: '0' }, (l) => !l.featured],
    [
      'several filters together',
      { type: 'holiday_home', area: 'نخلة-جميرا', guests_min: '5' },
      (l) => l.listing_type === 'holiday_home' && l.area === 'palm-jumeirah' && (l.max_guests ?? 0) >= 5,
    ],
  ];

  it.each(cases)('%s gives exactly the matching published listings, in featured order', async (_name, query, match) => {
    const expected = published.filter(match);
    // A filter that keeps everything or nothing would prove nothing.
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThan(published.length);
    const body = await list({ ...query, page_size: 100 });
    expect(enSlugs(body.results)).toEqual(ordered(expected, 'featured'));
  });

  it('an area filter does not match a project slug, and a project filter does not match an area slug', async () => {
    expect((await list({ area: 'marina-gate' })).results).toEqual([]);
    expect((await list({ project: 'dubai-marina' })).results).toEqual([]);
    expect((await list({ area: 'nowhere' })).results).toEqual([]);
  });

  it('draft and withdrawn listings are not found through a filter either', async () => {
    // Al Reem Island holds a withdrawn and a draft listing beside published ones.
    const onReem = (l: DemoListing) => l.area === 'al-reem-island';
    expect(new Set(demo.listings.filter((l) => onReem(l) && l.status !== 'published').map((l) => l.status))).toEqual(
      new Set(['draft', 'withdrawn']),
    );
    const body = await list({ area: 'al-reem-island', page_size: 100 });
    expect(enSlugs(body.results)).toEqual(ordered(published.filter(onReem), 'featured'));
  });
});

describe('GET /listings: sorts', () => {
  it.each(sorts)('sort=%s orders one big page as the rule says', async (sort) => {
    const body = await list({ sort, page_size: 100 });
    expect(enSlugs(body.results)).toEqual(ordered(published, sort));
  });

  it('sorts by featured when no sort is given: the featured first, newest first within each group', async () => {
    const featured = published.filter((l) => l.featured).length;
    expect([featured > 0, featured < published.length]).toEqual([true, true]);
    const body = await list({ page_size: 100 });
    const flags = body.results.map((r: { featured: boolean }) => r.featured);
    expect(flags).toEqual([...Array(featured).fill(true), ...Array(published.length - featured).fill(false)]);
    expect(enSlugs(body.results)).toEqual(ordered(published, 'featured'));
    const dates = (from: number, to: number) => body.results.slice(from, to).map((r: { published_at: string }) => r.published_at);
    for (const group of [dates(0, featured), dates(featured, published.length)])
      expect(group).toEqual([...group].sort().reverse());
  });
});

describe('GET /listings: pagination', () => {
  it.each(sorts)('walking sort=%s with page_size=3 gives every listing once, in the order of one big page', async (sort) => {
    const big = await list({ sort, page_size: 100 });
    const { pages, results } = await walk(api, host, '/api/v1/listings', { sort, page_size: 3 });
    expect(pages.map((p) => p.length)).toEqual(pageLengths(published.length, 3));
    expect(enSlugs(results)).toEqual(enSlugs(big.results));
    expect(new Set(results.map((r) => r.id)).size).toBe(published.length);
  });

  it('walking a filtered list gives the same listings as one page of it', async () => {
    for (const sort of sorts) {
      const query = { sort, area: 'dubai', bedrooms_min: 1 };
      const big = await list({ ...query, page_size: 100 });
      const { results } = await walk(api, host, '/api/v1/listings', { ...query, page_size: 2 });
      expect(enSlugs(results)).toEqual(enSlugs(big.results));
      expect(results.length).toBe(published.filter((l) => l.city === 'dubai' && l.bedrooms >= 1).length);
    }
  });

  it('gives next_cursor null on the last page when the count divides evenly (no empty page)', async () => {
    // The smallest page size above 1 that divides the number of leases (the number itself when it is prime).
    const leases = published.filter((l) => l.listing_type === 'lease').length;
    expect(leases).toBeGreaterThan(1);
    let size = 2;
    while (leases % size !== 0) size++;
    const { pages } = await walk(api, host, '/api/v1/listings', { type: 'lease', page_size: size });
    expect(pages.map((p) => p.length)).toEqual(Array(leases / size).fill(size));
  });

  it.each([
    ['newest', 'featured'],
    ['featured', 'sort_order'],
    ['sort_order', 'newest'],
  ] as Array<[Sort, Sort]>)('refuses a cursor of sort=%s used with sort=%s as invalid_cursor', async (from, to) => {
    const first = await list({ sort: from, page_size: 3 });
    expect(first.next_cursor).toEqual(expect.any(String));
    const res = await catalogue(api, host).client.GET('/api/v1/listings', {
      params: { query: { sort: to, cursor: first.next_cursor } },
    });
    expect(res.response.status).toBe(400);
    expect(res.response.headers.get('content-type')).toBe('application/problem+json');
    expect(res.error).toMatchObject({ status: 400, code: 'invalid_cursor' });
  });

  it.each(sorts)('sort=%s breaks ties by id and keeps microseconds: page_size=1 walks every listing once', async (sort) => {
    // Same published_at, featured flag and sort_order for some; others a microsecond apart.
    const at = (us: number) => `2026-03-01T10:00:00.00000${us}Z`;
    const docs = [0, 0, 0, 1, 2, 3, 3].map((us, i) =>
      listingDoc(`tie-${i}`, { published_at: at(us), featured: i % 2 === 0, sort_order: us }),
    );
    const small = await smallCompany(api, docs);
    const big = await catalogue(api, small.host).listings({ sort, page_size: 100 });
    const { pages, results } = await walk(api, small.host, '/api/v1/listings', { sort, page_size: 1 });
    expect(pages).toHaveLength(7);
    expect(enSlugs(results)).toEqual(enSlugs(big.results));
    expect(sorted(enSlugs(results))).toEqual(docs.map((d) => d.slug.en));
  });

  it('refuses its own cursor with a time before the database’s first day (forged) as invalid_cursor', async () => {
    const first = await list({ sort: 'newest', page_size: 3 });
    const [order, , id] = JSON.parse(Buffer.from(first.next_cursor as string, 'base64url').toString()) as string[];
    const at = (micros: string) => Buffer.from(JSON.stringify([order, micros, id])).toString('base64url');
    const client = catalogue(api, host).client;
    const forged = await client.GET('/api/v1/listings', {
      params: { query: { sort: 'newest', cursor: at('-999999999999999999') } },
    });
    expect(forged.response.status).toBe(400);
    expect(forged.error?.code).toBe('invalid_cursor');
    // PostgreSQL's first day itself (4714-11-24 BC) is a time: an empty page after it.
    const earliest = await client.GET('/api/v1/listings', {
      params: { query: { sort: 'newest', cursor: at('-210866803200000000') } },
    });
    expect(earliest.response.status).toBe(200);
  });

  it('refuses a listings cursor on the sitemap', async () => {
    const first = await list({ sort: 'newest', page_size: 3 });
    const res = await catalogue(api, host).client.GET('/api/v1/sitemap', { params: { query: { cursor: first.next_cursor } } });
    expect(res.response.status).toBe(400);
    expect(res.error?.code).toBe('invalid_cursor');
  });
});

describe('GET /listings: a listing imported while a client pages', () => {
  // Per sort: one listing lands in the part already read, one in the part still to come.
  const inserts: Record<Sort, Array<Record<string, unknown>>> = {
    featured: [
      { featured: true, published_at: '2027-01-01T00:00:00Z' },
      { featured: false, published_at: '2026-01-01T00:00:00Z' },
    ],
    newest: [{ published_at: '2027-01-01T00:00:00Z' }, { published_at: '2026-01-01T00:00:00Z' }],
    sort_order: [{ sort_order: 0 }, { sort_order: 1000 }],
  };

  it.each(sorts)('sort=%s loses and repeats none of the others', async (sort) => {
    const company = await demoCompany(api);
    const before = await catalogue(api, company.host).listings({ sort, page_size: 100 });
    const seen: any[] = [];
    let body = await catalogue(api, company.host).listings({ sort, page_size: 4 });
    seen.push(...body.results);
    body = await catalogue(api, company.host).listings({ sort, page_size: 4, cursor: body.next_cursor });
    seen.push(...body.results);
    const [early, late] = inserts[sort].map((o, i) => listingDoc(`inserted-${sort.replace('_', '-')}-${i}`, o));
    await importCatalogue(api, company.id, { listings: [early, late] });
    let cursor = body.next_cursor;
    while (cursor) {
      body = await catalogue(api, company.host).listings({ sort, page_size: 4, cursor });
      seen.push(...body.results);
      cursor = body.next_cursor;
    }
    const slugs = enSlugs(seen);
    expect(slugs.filter((s) => !s.startsWith('inserted-'))).toEqual(enSlugs(before.results));
    expect(new Set(slugs).size).toBe(slugs.length);
    // The one sorted into the part still to come is seen; the one sorted before the cursor is not.
    expect(slugs.filter((s) => s.startsWith('inserted-'))).toEqual([late!.slug.en]);
  });
});
