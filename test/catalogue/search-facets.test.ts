import Big from 'big.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { demo } from '../support/harness';
import {
  catalogue,
  type ListQuery,
  listingDoc,
  patchCompany,
  patchSettings,
  publish,
  smallCompany,
  walk,
  withdraw,
} from './support';
import { useApi } from '../support/world';

/**
 * Facets of GET /listings (issue 36, `facets=type,area,bedrooms,price`): the counts answered with the first page equal
 * those worked out from every page of the same filter, walked to the end without facets (never a size written here);
 * with q, price and box filters; price bands as the company sets them; refusals of names and of a bad setting.
 */

const api = useApi({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000' } });
const all = 'type,area,bedrooms,price';

/** A small deterministic generator (a linear congruential one): the same catalogue on every run. */
function generator(seed: number) {
  let state = seed;
  return <T>(items: readonly T[]): T => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return items[Math.floor(state / 65536) % items.length] as T;
  };
}

const places = demo.areas.filter((a) => a.kind === 'area').map((a) => ({ area: a.slug.en, city: a.parent as string }));
const words = ['Marina view', 'Garden villa', 'Sea view penthouse', 'Quiet townhouse', 'Family home', 'مارينا فيو'];
const pick = generator(36);
/** Sales, leases (by the year and the month) and holiday homes: some without area, bedrooms, price or point. */
const docs = Array.from({ length: 54 }, (_, i) => {
  const type = pick(['sale', 'sale', 'lease', 'holiday_home'] as const);
  const price = {
    sale: pick(['400000', '750000', '1000000', '1650000', '2400000', '4800000', '12500000']),
    lease: pick(['45000', '85000', '120000', '260000', '9000']),
    holiday_home: pick(['250', '600', '900', '1800', '3200']),
  }[type];
  const place = pick([...places, null]);
  const status = i % 13 === 5 ? 'draft' : i % 13 === 9 ? 'withdrawn' : 'published';
  return listingDoc(`facet-${i}`, {
    listing_type: type,
    status,
    title: { en: `${pick(words)} ${i}`, ar: `عقار ${i}` },
    price: i % 11 === 3 ? null : price,
    price_period: i % 11 === 3 ? null : { sale: 'total', lease: pick(['year', 'year', 'month']), holiday_home: 'night' }[type],
    bedrooms: pick([0, 1, 1, 2, 2, 3, 4, 5, null]),
    city: place ? place.city : 'dubai',
    area: place ? place.area : null,
    location:
      i % 4 === 0
        ? null
        : { latitude: 25 + pick([0.05, 0.08, 0.1, 0.2]), longitude: 55.1 + pick([0.01, 0.05, 0.1]), precision: 'exact' },
    published_at: `2026-01-${String((i % 28) + 1).padStart(2, '0')}T00:00:00Z`,
    max_guests: type === 'holiday_home' ? 4 : null,
  });
});

type Listing = {
  listing_type: string;
  area: { slug: { en: string }; name: { en: string; ar: string } } | null;
  bedrooms: number | null;
  price: { amount: string } | null;
};
type Count = { count: number } & Record<string, unknown>;
type Facets = Record<string, Count[]>;
type Bands = Record<string, readonly string[]>;

/** The defaults documented in docs/api-reference.md ("Facets"), written again here. */
const defaults: Bands = {
  sale: ['500000', '1000000', '2000000', '3000000', '5000000', '10000000'],
  lease: ['50000', '75000', '100000', '150000', '200000', '300000'],
  holiday_home: ['300', '500', '750', '1000', '1500', '2500'],
};

/** Most first, then by value (as the API sorts), zero counts never made. */
function tally(entries: Array<{ key: string; entry: Record<string, unknown>; order: Array<string | number> }>): Count[] {
  const counted = new Map<string, { entry: Record<string, unknown>; order: Array<string | number>; count: number }>();
  for (const { key, entry, order } of entries) {
    const known = counted.get(key) ?? { entry, order, count: 0 };
    known.count++;
    counted.set(key, known);
  }
  const rank = (a: Array<string | number>, b: Array<string | number>) => {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i] as never) < (b[i] as never) ? -1 : 1;
    return 0;
  };
  return [...counted.values()]
    .sort((a, b) => b.count - a.count || rank(a.order, b.order))
    .map(({ entry, count }) => ({ ...entry, count }));
}

/** The facets of a list of listings, worked out from what the list answered, in the bands given. */
function expectedFacets(results: Listing[], bands: Bands): Facets {
  const band = (l: Listing) => {
    const edges = bands[l.listing_type] as readonly string[];
    const amount = new Big((l.price as { amount: string }).amount);
    const i = edges.filter((edge) => amount.gte(edge)).length;
    return { type: l.listing_type, min: i === 0 ? '0' : edges[i - 1], max: edges[i] ?? null, i };
  };
  return {
    type: tally(results.map((l) => ({ key: l.listing_type, entry: { value: l.listing_type }, order: [l.listing_type] }))),
    area: tally(
      results
        .filter((l) => l.area !== null)
        .map((l) => ({
          key: l.area!.slug.en,
          entry: { value: l.area!.slug.en, name: l.area!.name },
          order: [l.area!.slug.en],
        })),
    ),
    bedrooms: tally(
      results
        .filter((l) => l.bedrooms !== null)
        .map((l) => ({ key: String(l.bedrooms), entry: { value: l.bedrooms }, order: [l.bedrooms as number] })),
    ),
    price: tally(
      results
        .filter((l) => l.price !== null)
        .map((l) => {
          const { i, ...entry } = band(l);
          return { key: `${entry.type} ${i}`, entry, order: [entry.type, i] };
        }),
    ),
  };
}

let host: string;
let companyId: string;
beforeAll(async () => {
  ({ host, id: companyId } = await smallCompany(api, docs));
});

const read = (query: ListQuery) => catalogue(api, host).listings(query);
const refused = async (query: Record<string, string>, on = host) => {
  const { response, error } = await catalogue(api, on).client.GET('/api/v1/listings', { params: { query: query as never } });
  expect(response.status, JSON.stringify(query)).toBe(400);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  return (error as { errors: Array<{ path: string; code: string }> }).errors;
};

/** The facets of the first page (and of a later one: the cursor is not a filter) against a walk of the filter. */
async function agrees(filter: ListQuery, bands: Bands = defaults) {
  const { results } = await walk(api, host, '/api/v1/listings', { ...filter, page_size: 7 });
  const expected = expectedFacets(results, bands);
  const first = await read({ ...filter, page_size: 5, facets: all });
  expect(first.facets).toEqual(expected);
  // The page itself is the page without facets.
  const plain = await read({ ...filter, page_size: 5 });
  expect(first.results).toEqual(plain.results);
  expect(first.next_cursor).toEqual(plain.next_cursor);
  if (first.next_cursor) {
    const second = await read({ ...filter, page_size: 5, facets: all, cursor: first.next_cursor });
    expect(second.facets).toEqual(expected);
  }
  for (const counts of Object.values(first.facets as Facets)) for (const c of counts) expect(c.count).toBeGreaterThan(0);
  return { results, facets: first.facets as Facets };
}

describe('GET /listings?facets=: counts over the filter, as a walk of every page finds them', () => {
  it('counts every published listing without a filter (drafts and withdrawn ones are not)', async () => {
    const { results, facets } = await agrees({});
    expect(results.length).toBe(docs.filter((d) => d.status === 'published').length);
    const total = (facet: string) => (facets[facet] as Count[]).reduce((sum, c) => sum + c.count, 0);
    expect(total('type')).toBe(results.length);
    // Every facet has more than one value here, so the test of order means something.
    for (const facet of ['type', 'area', 'bedrooms', 'price']) expect((facets[facet] as Count[]).length).toBeGreaterThan(1);
    // Studios count as bedrooms 0, as the data says.
    expect((facets.bedrooms as Count[]).map((c) => c.value)).toContain(0);
  });

  it.each<[string, ListQuery]>([
    ['q', { q: 'marina' }],
    ['q in Arabic', { q: 'مارينا' }],
    ['q sorted newest', { q: 'view', sort: 'newest' }],
    ['a price range', { price_min: '500000', price_max: '2500000' }],
    ['a box on the map', { bbox: '55.1,25.0,55.16,25.09' }],
    ['near a point', { near: '25.08,55.15', radius_km: '8' }],
    ['a type and rooms', { type: 'lease', bedrooms_min: 1 }],
    ['an area', { area: 'dubai-marina', sort: 'sort_order' }],
    // Filtered by the type alone, the counts are the ones the database keeps (migrations 0015, 0067).
    ['a type', { type: 'sale' }],
    ['another type', { type: 'holiday_home', sort: 'newest' }],
  ])('with %s', async (_name, filter) => {
    const { results } = await agrees(filter);
    expect(results.length).toBeGreaterThan(0);
  });

  it('answers a filter that keeps nothing with empty counts', async () => {
    const body = await read({ q: 'zzyzxqq', facets: all });
    expect(body.results).toEqual([]);
    expect(body.facets).toEqual({ type: [], area: [], bedrooms: [], price: [] });
  });

  it('answers only the facets asked, in any order, and nothing new without facets', async () => {
    const some = await read({ facets: 'price,bedrooms' });
    expect(Object.keys(some.facets).sort()).toEqual(['bedrooms', 'price']);
    expect(some.facets.bedrooms).toEqual((await read({ facets: 'bedrooms' })).facets.bedrooms);
    expect(Object.keys(await read({}))).toEqual(['results', 'next_cursor']);
  });
});

describe('price bands', () => {
  it('follow the company’s search_price_bands (a type left out keeps the defaults), and null brings the defaults back', async () => {
    const bands = { sale: ['1000000', '2500000.50'], holiday_home: ['1000'] };
    await patchSettings(api, companyId, { search_price_bands: bands });
    const { facets } = await agrees({}, { ...defaults, ...bands });
    const sale = (facets.price as Count[]).filter((b) => b.type === 'sale').map((b) => [b.min, b.max]);
    expect(sale.sort()).toEqual(
      [
        ['0', '1000000'],
        ['1000000', '2500000.50'],
        ['2500000.50', null],
      ].sort(),
    );
    await patchSettings(api, companyId, { search_price_bands: null });
    await agrees({});
  });

  it('refuses a bad setting at its field (ascending, above 0, 1 to 20 decimals, known types)', async () => {
    const errors = async (search_price_bands: unknown) => {
      const res = await patchCompany(api, companyId, { settings: { search_price_bands } });
      expect(res.response.status, JSON.stringify(search_price_bands)).toBe(400);
      return (res.error as { errors: Array<{ path: string }> }).errors.map((e) => e.path);
    };
    expect(await errors({ sale: ['100', '50'] })).toEqual(['settings.search_price_bands.sale.1']);
    expect(await errors({ sale: ['100', '100'] })).toEqual(['settings.search_price_bands.sale.1']);
    expect(await errors({ lease: ['0', '10'] })).toEqual(['settings.search_price_bands.lease.0']);
    expect(await errors({ lease: ['1e5'] })).toEqual(['settings.search_price_bands.lease.0']);
    expect(await errors({ lease: [100] })).toEqual(['settings.search_price_bands.lease.0']);
    expect(await errors({ sale: [] })).toEqual(['settings.search_price_bands.sale']);
    expect(await errors({ sale: Array.from({ length: 21 }, (_, i) => String(i + 1)) })).toEqual([
      'settings.search_price_bands.sale',
    ]);
    expect(await errors({ villa: ['1'] })).toEqual(['settings.search_price_bands.villa']);
    // Twenty edges are taken.
    const twenty = Array.from({ length: 20 }, (_, i) => String((i + 1) * 1000));
    await patchSettings(api, companyId, { search_price_bands: { lease: twenty } });
    await agrees({ type: 'lease' }, { ...defaults, lease: twenty });
    await patchSettings(api, companyId, { search_price_bands: null });
  });
});

describe('refusals of facets', () => {
  it.each([['colour'], ['type,type'], ['type,area,type'], [''], ['type,'], ['Type'], ['type, area']])(
    'refuses facets=%j at facets',
    async (facets) => {
      expect((await refused({ facets })).map((e) => e.path)).toEqual(['facets']);
    },
  );

  it('is not a parameter of the map', async () => {
    const { response } = await catalogue(api, host).client.GET('/api/v1/listings/map', {
      params: { query: { facets: 'type' } as never },
    });
    expect(response.status).toBe(400);
  });

  it('refuses the price facet where the company hides its prices (it would tell them); the others are counted', async () => {
    const hidden = await smallCompany(api, docs.slice(0, 6), { hide_prices: true });
    expect(await refused({ facets: 'type,price' }, hidden.host)).toEqual([
      expect.objectContaining({ path: 'facets', code: 'prices_hidden' }),
    ]);
    const body = await catalogue(api, hidden.host).listings({ facets: 'type,bedrooms' });
    expect(Object.keys(body.facets).sort()).toEqual(['bedrooms', 'type']);
  });
});

describe('the counts of a whole catalogue, kept by the database', () => {
  it('follow every write: a listing withdrawn, a draft published, a company of its own', async () => {
    const mine = docs.slice(0, 20);
    const company = await smallCompany(api, mine);
    const facetsOf = async (filter: ListQuery) => {
      const { results } = await walk(api, company.host, '/api/v1/listings', { ...filter, page_size: 6 });
      const answered = await catalogue(api, company.host).listings({ ...filter, page_size: 2, facets: all });
      expect(answered.facets, JSON.stringify(filter)).toEqual(expectedFacets(results, defaults));
      return answered.facets as Facets;
    };
    const before = await facetsOf({});
    await facetsOf({ type: 'sale' });
    const shown = mine.find((d) => d.status === 'published' && d.price !== null) as { slug: { en: string } };
    const draft = mine.find((d) => d.status === 'draft') as { slug: { en: string } };
    expect((await withdraw(api, company.id, shown.slug.en)).response.status).toBe(200);
    expect((await publish(api, company.id, draft.slug.en)).response.status).toBe(200);
    const after = await facetsOf({});
    expect(after).not.toEqual(before);
    for (const type of ['sale', 'lease', 'holiday_home'] as const) await facetsOf({ type });
    // Another company's counts are its own (the first company's catalogue is larger).
    const total = (facets: Facets) => (facets.type as Count[]).reduce((sum, c) => sum + c.count, 0);
    expect(total((await read({ facets: all })).facets as Facets)).toBeGreaterThan(total(after));
  });
});

describe('kept pages', () => {
  it('keep each facets query apart from the plain page (the key is the URL as sent)', async () => {
    // Read twice each, interleaved: a second read is the kept page, never another query's.
    for (let i = 0; i < 2; i++) {
      expect(Object.keys(await read({ page_size: 3 }))).toEqual(['results', 'next_cursor']);
      expect(Object.keys((await read({ page_size: 3, facets: 'type' })).facets)).toEqual(['type']);
      expect(Object.keys((await read({ page_size: 3, facets: 'area' })).facets)).toEqual(['area']);
    }
  });
});
