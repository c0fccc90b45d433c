import { describe, expect, it } from 'vitest';
import { areaSlug, bySlug, type DemoListing, enSlugs, catalogue, ordered, pageLengths, published, sorts, walk } from './support';
import { useApi, useDemoCompany } from '../support/world';

const api = useApi();
const company = useDemoCompany(api);

const map = (query: Record<string, string | number> = {}) => catalogue(api, company.host).map(query);
const located = published.filter((l) => l.location !== null);
const withoutCoordinates = published.filter((l) => l.location === null).map((l) => l.slug.en);

describe('GET /listings/map: which points appear', () => {
  it('gives a point for each published listing with coordinates, and none for those without', async () => {
    // The demo must hold published listings without coordinates, or this would prove nothing.
    expect(withoutCoordinates.length).toBeGreaterThan(0);
    const body = await map({ page_size: 100 });
    expect(body.results).toHaveLength(located.length);
    expect(enSlugs(body.results)).toEqual(ordered(located, 'featured'));
    for (const slug of withoutCoordinates) expect(enSlugs(body.results)).not.toContain(slug);
    const list = await catalogue(api, company.host).listings({ page_size: 100 });
    for (const slug of withoutCoordinates) expect(enSlugs(list.results)).toContain(slug);
  });

  it.each([
    ['type', { type: 'holiday_home' }, (l: DemoListing) => l.listing_type === 'holiday_home'],
    ['an area in Arabic', { area: 'دبي-هيلز-استيت' }, (l: DemoListing) => l.area === areaSlug('دبي-هيلز-استيت')],
    ['a project', { project: 'marina-gate' }, (l: DemoListing) => l.project === 'marina-gate'],
    ['featured', { featured: '1' }, (l: DemoListing) => l.featured],
    [
      'bedrooms and completion',
      { bedrooms_min: '2', completion: 'ready' },
      (l: DemoListing) => l.bedrooms >= 2 && l.completion === 'ready',
    ],
    ['guests_min', { guests_min: '6' }, (l: DemoListing) => (l.max_guests ?? 0) >= 6],
    ['property_type', { property_type: 'villa' }, (l: DemoListing) => l.property_type === 'villa'],
  ])('applies the %s filter', async (_name, query, match) => {
    const expected = located.filter(match);
    expect(expected.length).toBeGreaterThan(0);
    const body = await map({ ...query, page_size: 100 });
    expect(enSlugs(body.results)).toEqual(ordered(expected, 'featured'));
  });

  it.each(sorts)('pages sort=%s with page_size=4 without losing or repeating a point', async (sort) => {
    const big = await map({ sort, page_size: 100 });
    expect(enSlugs(big.results)).toEqual(ordered(located, sort));
    const { pages, results } = await walk(api, company.host, '/api/v1/listings/map', { sort, page_size: 4 });
    expect(pages.map((p) => p.length)).toEqual(pageLengths(located.length, 4));
    expect(enSlugs(results)).toEqual(enSlugs(big.results));
  });
});

describe('GET /listings/map: points', () => {
  it('carries no description and no photos', async () => {
    const body = await map({ page_size: 100 });
    for (const point of body.results) {
      expect(Object.keys(point).sort()).toEqual(['coordinates', 'id', 'listing_type', 'path', 'price', 'slug', 'title']);
    }
    expect(JSON.stringify(body)).not.toContain(bySlug('marina-gate-2br-sea-view').description.en);
  });

  it('gives exact points as stored and approximate ones moved and rounded to 2 decimals', async () => {
    const stored = await api.db
      .selectFrom('listings')
      .select(['slug_en', 'latitude', 'longitude', 'location_precision'])
      .where('company_id', '=', company.id)
      .where('status', '=', 'published')
      .where('latitude', 'is not', null)
      .execute();
    expect(stored).toHaveLength(located.length);
    const points = new Map((await map({ page_size: 100 })).results.map((p: any) => [p.slug.en, p.coordinates]));
    const twoDecimals = (v: number) => Math.abs(v * 100 - Math.round(v * 100)) < 1e-9;
    let approximate = 0;
    for (const row of stored) {
      const point = points.get(row.slug_en) as any;
      expect(point.precision, row.slug_en).toBe(bySlug(row.slug_en).location?.precision);
      if (row.location_precision === 'exact') {
        expect(point, row.slug_en).toMatchObject({ latitude: row.latitude, longitude: row.longitude, precision: 'exact' });
      } else {
        approximate += 1;
        expect(point.latitude, row.slug_en).not.toBe(row.latitude);
        expect(point.longitude, row.slug_en).not.toBe(row.longitude);
        expect(twoDecimals(point.latitude) && twoDecimals(point.longitude), row.slug_en).toBe(true);
        expect(Math.abs(point.latitude - row.latitude!)).toBeLessThanOrEqual(0.005 + 1e-9);
        expect(Math.abs(point.longitude - row.longitude!)).toBeLessThanOrEqual(0.005 + 1e-9);
      }
    }
    expect(approximate).toBe(located.filter((l) => l.location?.precision === 'approximate').length);
    expect(approximate).toBeGreaterThan(0);
  });

  it('never shows the exact spot of an approximate listing, neither in the list nor in detail', async () => {
    for (const listing of located.filter((l) => l.location?.precision === 'approximate')) {
      const one = await catalogue(api, company.host).listing(listing.slug.en);
      const fromList = await catalogue(api, company.host).listings({ page_size: 100, area: listing.area });
      const text = JSON.stringify(one) + JSON.stringify(fromList.results.find((r: any) => r.slug.en === listing.slug.en));
      expect(text).not.toContain(String(listing.location?.latitude));
      expect(text).not.toContain(String(listing.location?.longitude));
      expect(one.coordinates.precision).toBe('approximate');
      expect(one.structured_data.en.about.geo).toMatchObject({
        latitude: one.coordinates.latitude,
        longitude: one.coordinates.longitude,
      });
    }
  });
});

describe('GET /listings/map?cover=1', () => {
  it('adds the first ready photo of each point as cover', async () => {
    const body = await map({ cover: '1', page_size: 100 });
    expect(body.results).toHaveLength(located.length);
    for (const point of body.results) {
      const listing = bySlug(point.slug.en);
      const first = listing.photos.findIndex((p) => p.ready !== false);
      expect(point.cover.position, listing.slug.en).toBe(first);
      expect(point.cover.alt).toEqual(listing.photos[first]!.alt);
      expect(point.cover.sizes.large.url).toContain(`/${listing.photos[first]!.key}/`);
      expect(point).not.toHaveProperty('photos');
      expect(point).not.toHaveProperty('description');
    }
  });

  it('skips a first photo that is not ready and gives the second one', async () => {
    const fountain = bySlug('burj-vista-2br-fountain-view');
    expect(fountain.photos.map((p) => p.ready)).toEqual([false, true, true, true]);
    const body = await map({ cover: '1', project: 'burj-vista', type: 'lease' });
    expect(enSlugs(body.results)).toEqual([fountain.slug.en]);
    const one = await catalogue(api, company.host).listing(fountain.slug.en);
    expect(body.results[0].cover).toEqual(one.photos[0]);
    expect(body.results[0].cover.position).toBe(1);
    expect(body.results[0].cover.sizes.small.url).toContain('/burj-vista-2br-fountain-view/living/');
  });

  it('gives no cover key without cover=1, or with cover=0', async () => {
    for (const query of [{}, { cover: '0' }] as Array<Record<string, string>>) {
      const body = await map({ ...query, page_size: 100 });
      for (const point of body.results) expect(point).not.toHaveProperty('cover');
    }
  });

  it('refuses an unknown cover value and unknown parameters', async () => {
    for (const query of [{ cover: 'yes' }, { photos: '1' }]) {
      const res = await catalogue(api, company.host).client.GET('/api/v1/listings/map', { params: { query: query as never } });
      expect(res.response.status).toBe(400);
      expect(res.error?.code).toBe('invalid_request');
    }
  });
});
