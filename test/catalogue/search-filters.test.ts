import { beforeAll, describe, expect, it } from 'vitest';
import { catalogue, listingDoc, smallCompany } from './support';
import { useApi } from '../support/world';

/** Price, size and rooms, and the map (issue 36): `price_min` … `size_max`, `bbox`, `near` with `distance_km`. */

const api = useApi({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000' } });
const at = (latitude: number, longitude: number, precision = 'exact') => ({ location: { latitude, longitude, precision } });

// Dubai Marina (the tram stop at 25.0805, 55.1403 as the centre), JVC, Downtown, and one with no coordinates.
const docs = [
  listingDoc('cheap', { price: '500000.00', bedrooms: 0, bathrooms: 1, size_sqm: 35, ...at(25.0805, 55.1403) }),
  listingDoc('middle', { price: '1500000.00', bedrooms: 2, bathrooms: 2, size_sqm: 110.5, ...at(25.09, 55.15) }),
  listingDoc('dear', { price: '4000000.00', bedrooms: 4, bathrooms: 5, size_sqm: 400, ...at(25.056, 55.209) }),
  listingDoc('downtown', { price: '2500000.00', bedrooms: 2, bathrooms: 3, size_sqm: 140, ...at(25.1972, 55.2744) }),
  // Its exact point (25.0849, 55.1449) is outside the box below; its shown point (25.08, 55.14) is inside.
  listingDoc('approx', { price: '1500000.00', bedrooms: 1, bathrooms: 1, size_sqm: 80, ...at(25.0849, 55.1449, 'approximate') }),
  listingDoc('nowhere', { price: null, price_period: null, bedrooms: 3, bathrooms: 2, size_sqm: null }),
];

let host: string;
beforeAll(async () => {
  ({ host } = await smallCompany(api, docs));
});

const slugs = async (query: Record<string, string>) => {
  const body = await catalogue(api, host).listings({ ...query, page_size: 100 } as never);
  return (body.results as Array<{ slug: { en: string } }>).map((r) => r.slug.en).sort();
};
const refused = async (query: Record<string, string>) => {
  const { response, error } = await catalogue(api, host).client.GET('/api/v1/listings', { params: { query: query as never } });
  expect(response.status, JSON.stringify(query)).toBe(400);
  return (error as { errors: Array<{ path: string }> }).errors.map((e) => e.path);
};

/** Haversine in the test's own words: kilometres on a sphere of radius 6371.0088 km. */
function km(a: [number, number], b: [number, number]) {
  const rad = (d: number) => (d * Math.PI) / 180;
  const h = Math.sin(rad(b[0] - a[0]) / 2) ** 2 + Math.cos(rad(a[0])) * Math.cos(rad(b[0])) * Math.sin(rad(b[1] - a[1]) / 2) ** 2;
  return 2 * 6371.0088 * Math.asin(Math.min(1, Math.sqrt(h)));
}

describe('price, size and rooms', () => {
  it.each([
    [{ price_min: '1500000' }, ['approx', 'dear', 'downtown', 'middle']],
    [{ price_max: '1500000.00' }, ['approx', 'cheap', 'middle']],
    [{ price_min: '1000000', price_max: '2500000' }, ['approx', 'downtown', 'middle']],
    [{ bedrooms: '2' }, ['downtown', 'middle']],
    [{ bedrooms: '0' }, ['cheap']],
    [{ bathrooms: '1' }, ['approx', 'cheap']],
    [{ size_min: '110.5' }, ['dear', 'downtown', 'middle']],
    [{ size_max: '110.5' }, ['approx', 'cheap', 'middle']],
    [{ size_min: '100', size_max: '200', bedrooms: '2' }, ['downtown', 'middle']],
  ])('%j', async (query, expected) => {
    expect(await slugs(query)).toEqual(expected);
  });

  it('refuses a range upside down, and a number that is not one, at its field', async () => {
    expect(await refused({ price_min: '2', price_max: '1' })).toEqual(['price_max']);
    expect(await refused({ size_min: '2', size_max: '1.5' })).toEqual(['size_max']);
    expect(await refused({ price_min: '1e6' })).toEqual(['price_min']);
    expect(await refused({ price_max: '-1' })).toEqual(['price_max']);
    expect(await refused({ bathrooms: 'two' })).toEqual(['bathrooms']);
  });

  it('refuses a price filter where the company hides its prices (it would tell them)', async () => {
    const hidden = await smallCompany(api, docs.slice(0, 2), { hide_prices: true });
    const read = catalogue(api, hidden.host).client;
    const { response, error } = await read.GET('/api/v1/listings', { params: { query: { price_min: '1' } as never } });
    expect(response.status).toBe(400);
    expect((error as { errors: Array<{ path: string; code: string }> }).errors).toEqual([
      expect.objectContaining({ path: 'price_min', code: 'prices_hidden' }),
    ]);
  });
});

describe('the map: bbox and near', () => {
  it('keeps the listings whose shown point is in the box, edges included; an approximate one by its shown point', async () => {
    expect(await slugs({ bbox: '55.13,25.07,55.145,25.082' })).toEqual(['approx', 'cheap']);
    expect(await slugs({ bbox: '55.1403,25.0805,55.1403,25.0805' })).toEqual(['cheap']);
    // The approximate listing's exact point is inside this one, its shown point is not: it is not found.
    expect(await slugs({ bbox: '55.1445,25.0845,55.1455,25.0855' })).toEqual([]);
    expect(await slugs({ bbox: '55,25,55.3,25.3' })).toEqual(['approx', 'cheap', 'dear', 'downtown', 'middle']);
  });

  it('keeps those within radius_km of near, each with its distance_km to the shown point', async () => {
    const centre: [number, number] = [25.0805, 55.1403];
    const body = await catalogue(api, host).listings({ near: centre.join(','), radius_km: '3', page_size: 100 } as never);
    const found = body.results as Array<{
      slug: { en: string };
      distance_km: number;
      coordinates: { latitude: number; longitude: number };
    }>;
    expect(found.map((r) => r.slug.en).sort()).toEqual(['approx', 'cheap', 'middle']);
    for (const r of found) {
      const expected = km(centre, [r.coordinates.latitude, r.coordinates.longitude]);
      expect(Math.abs(r.distance_km - expected)).toBeLessThanOrEqual(0.005 + 1e-9);
      expect(r.distance_km).toBeLessThanOrEqual(3);
    }
    expect(found.find((r) => r.slug.en === 'cheap')?.distance_km).toBe(0);
    // Without radius_km: 5 km ('dear' is about 7.4 km away, Downtown about 21 km).
    expect(await slugs({ near: centre.join(',') })).toEqual(['approx', 'cheap', 'middle']);
    expect(await slugs({ near: centre.join(','), radius_km: '7.5' })).toEqual(['approx', 'cheap', 'dear', 'middle']);
    expect(await slugs({ near: centre.join(','), radius_km: '25' })).toEqual(['approx', 'cheap', 'dear', 'downtown', 'middle']);
    // Without near, no distance.
    const plain = await catalogue(api, host).listings({ page_size: 100 } as never);
    for (const r of plain.results) expect(r).not.toHaveProperty('distance_km');
  });

  it('gives the distance on map points too', async () => {
    const body = await catalogue(api, host).map({ near: '25.0805,55.1403', radius_km: '2' } as never);
    expect(body.results.map((r: { distance_km: number }) => typeof r.distance_km)).toEqual(['number', 'number', 'number']);
  });

  it('refuses an inverted or out-of-range box, a point off the globe, and a radius without its point, at the field', async () => {
    expect(await refused({ bbox: '55.3,25,55,25.3' })).toEqual(['bbox']);
    expect(await refused({ bbox: '55,25.3,55.3,25' })).toEqual(['bbox']);
    expect(await refused({ bbox: '181,25,182,26' })).toEqual(['bbox']);
    expect(await refused({ bbox: '55,-91,56,26' })).toEqual(['bbox']);
    expect(await refused({ bbox: '55,25,56' })).toEqual(['bbox']);
    expect(await refused({ bbox: '55,25,56,x' })).toEqual(['bbox']);
    expect(await refused({ near: '91,55' })).toEqual(['near']);
    expect(await refused({ near: '25,181' })).toEqual(['near']);
    expect(await refused({ radius_km: '3' })).toEqual(['radius_km']);
    expect(await refused({ near: '25,55', radius_km: '0' })).toEqual(['radius_km']);
    expect(await refused({ near: '25,55', radius_km: '501' })).toEqual(['radius_km']);
  });
});
