import { beforeAll, describe, expect, it } from 'vitest';
import { demo } from '../support/harness';
import { type DemoListing, catalogue, importDoc, listingDoc, publish, published, withdraw } from './support';
import { createCompany, demoCompany, useApi, useDemoCompany } from '../support/world';

const api = useApi();
const company = useDemoCompany(api);

const types = ['sale', 'lease', 'holiday_home'] as const;
type ListingType = (typeof types)[number];

/** How many listings GET /listings finds with these filters. */
async function listed(query: Record<string, string | number>, host = company.host) {
  const body = await catalogue(api, host).listings({ ...query, page_size: 100 });
  expect(body.next_cursor).toBeNull();
  return body.results.length as number;
}

const count = (match: (l: DemoListing) => boolean) => published.filter(match).length;
const placeOf = (l: DemoListing, kind: string) => (kind === 'city' ? l.city : kind === 'area' ? l.area : l.project);

describe('GET /areas', () => {
  it('lists cities, then areas, then projects, each with slugs, names and the parent slug', async () => {
    const body = await catalogue(api, company.host).areas();
    expect(body.next_cursor).toBeNull();
    const rank = { city: 0, area: 1, project: 2 };
    const expected = [...demo.areas]
      .sort((a, b) => rank[a.kind as keyof typeof rank] - rank[b.kind as keyof typeof rank])
      .map((a) => ({ kind: a.kind, slug: a.slug, name: a.name, parent: a.parent }));
    expect(body.results.map(({ counts: _c, ...rest }: any) => rest)).toEqual(expected);
  });

  it('counts published listings per type for every city, area and project', async () => {
    const body = await catalogue(api, company.host).areas();
    for (const entry of body.results) {
      const expected = Object.fromEntries(
        types.map((t) => [t, count((l) => l.listing_type === t && placeOf(l, entry.kind) === entry.slug.en)]),
      );
      expect(entry.counts, entry.slug.en).toEqual(expected);
    }
    const dubai = body.results.find((a: any) => a.slug.en === 'dubai');
    expect(dubai.counts).toEqual({ sale: 10, lease: 7, holiday_home: 8 });
  });

  it('agrees with GET /listings filtered by the same area (or project) and type', async () => {
    const body = await catalogue(api, company.host).areas();
    for (const entry of body.results) {
      for (const type of types) {
        const filter = entry.kind === 'project' ? 'project' : 'area';
        // Cross-check half with the English slug and half with the Arabic one.
        const slug = type === 'lease' ? entry.slug.ar : entry.slug.en;
        expect(await listed({ [filter]: slug, type }), `${entry.slug.en} ${type}`).toBe(entry.counts[type]);
      }
    }
  });

  it('does not count withdrawn or draft listings', async () => {
    // On Al Reem Island: one withdrawn sale, one published lease, one draft holiday home.
    const body = await catalogue(api, company.host).areas();
    const reem = body.results.find((a: any) => a.slug.en === 'al-reem-island');
    expect(reem.counts).toEqual({ sale: 0, lease: 1, holiday_home: 0 });
  });

  it('follows withdrawing and publishing at once', async () => {
    const own = await demoCompany(api);
    const reemOf = async () =>
      (await catalogue(api, own.host).areas()).results.find((a: any) => a.slug.en === 'al-reem-island').counts;
    expect((await publish(api, own.id, 'al-reem-2br-holiday-home')).response.status).toBe(200);
    expect((await publish(api, own.id, 'al-reem-2br-mangrove-view')).response.status).toBe(200);
    expect((await withdraw(api, own.id, 'al-reem-3br-sea-view')).response.status).toBe(200);
    expect(await reemOf()).toEqual({ sale: 1, lease: 0, holiday_home: 1 });
  });

  // BUG: the import accepts a listing whose `city` is an area's slug (the kind is never checked). /areas
  // then counts it under Dubai Marina while GET /listings?area=dubai-marina and /filters do not find it.
  it('stays in agreement with GET /listings when an import names a place of the wrong kind', async () => {
    const own = await createCompany(api);
    const doc = { areas: demo.areas, listings: [listingDoc('wrong-kind', { city: 'dubai-marina', area: null })] };
    const res = await importDoc(api, own.id, doc);
    if (res.response.status !== 200) {
      expect(res.response.status).toBe(400);
      return;
    }
    const marina = (await catalogue(api, own.host).areas()).results.find((a: any) => a.slug.en === 'dubai-marina');
    expect(marina.counts.sale).toBe(await listed({ area: 'dubai-marina', type: 'sale' }, own.host));
  });

  it('has no count key for a type the company does not show', async () => {
    const own = await demoCompany(api, { enabled_types: ['lease', 'sale'] });
    const body = await catalogue(api, own.host).areas();
    for (const entry of body.results) expect(Object.keys(entry.counts).sort()).toEqual(['lease', 'sale']);
    expect(body.results.find((a: any) => a.slug.en === 'dubai').counts).toEqual({ sale: 10, lease: 7 });
  });
});

describe('GET /filters', () => {
  let groups: any[];
  beforeAll(async () => {
    const body = await catalogue(api, company.host).filters();
    expect(body.next_cursor).toBeNull();
    groups = body.results;
  });
  const group = (type: ListingType) => groups.find((g) => g.type === type);

  it('gives one group per enabled type, and only those', async () => {
    expect(groups.map((g) => g.type)).toEqual(['sale', 'lease', 'holiday_home']);
    const own = await demoCompany(api, { enabled_types: ['holiday_home'] });
    const body = await catalogue(api, own.host).filters();
    expect(body.results.map((g: any) => g.type)).toEqual(['holiday_home']);
    expect(body.results[0].count).toBe(9);
  });

  it.each(types)('counts the published %s listings like GET /listings', async (type) => {
    expect(group(type).count).toBe(await listed({ type }));
    expect(group(type).count).toBe(count((l) => l.listing_type === type));
  });

  it.each(types)('lists every property type of the company for %s, with counts matching the list', async (type) => {
    const options = group(type).property_types;
    expect(options.map((o: any) => o.value)).toEqual(demo.property_types.map((p) => p.value));
    expect(options.map((o: any) => o.label)).toEqual(demo.property_types.map((p) => p.name));
    for (const option of options) {
      expect(option.count, option.value).toBe(await listed({ type, property_type: option.value }));
      expect(option.count).toBe(count((l) => l.listing_type === type && l.property_type === option.value));
    }
  });

  it.each(types)('counts bedrooms and completion for %s like the list filtered the same way', async (type) => {
    const ofType = published.filter((l) => l.listing_type === type);
    const rooms = [...new Set(ofType.map((l) => l.bedrooms))].sort((a, b) => a - b);
    expect(group(type).bedrooms).toEqual(
      rooms.map((value) => ({ value, count: count((l) => l.listing_type === type && l.bedrooms === value) })),
    );
    for (const { value, count: n } of group(type).bedrooms) {
      expect(await listed({ type, bedrooms_min: value, bedrooms_max: value })).toBe(n);
    }
    const completion = Object.fromEntries(group(type).completion.map((o: any) => [o.value, o.count]));
    for (const value of ['ready', 'off_plan'] as const) {
      const n = count((l) => l.listing_type === type && l.completion === value);
      expect(completion[value] ?? 0, value).toBe(n);
      expect(await listed({ type, completion: value })).toBe(n);
    }
  });

  it.each(types)('offers the areas and projects of %s with counts matching the list', async (type) => {
    for (const [key, kinds, filter] of [
      ['areas', ['city', 'area'], 'area'],
      ['projects', ['project'], 'project'],
    ] as const) {
      const options = group(type)[key];
      for (const option of options) {
        expect(option.count, option.value).toBe(await listed({ type, [filter]: option.value }));
        expect(option.label).toEqual(demo.areas.find((a) => a.slug.en === option.value)?.name);
      }
      // Every place that has a listing of this type is offered.
      const places = demo.areas.filter(
        (a) =>
          (kinds as readonly string[]).includes(a.kind) &&
          count((l) => l.listing_type === type && placeOf(l, a.kind) === a.slug.en) > 0,
      );
      const offered = options.filter((o: any) => o.count > 0).map((o: any) => o.value);
      expect(offered.sort()).toEqual(places.map((a) => a.slug.en).sort());
    }
  });

  it('does not count withdrawn or draft listings', async () => {
    const reem = (type: ListingType) => group(type).areas.find((o: any) => o.value === 'al-reem-island')?.count ?? 0;
    expect([reem('sale'), reem('lease'), reem('holiday_home')]).toEqual([0, 1, 0]);
    // The only lease townhouse is withdrawn: the type is still offered, with count 0.
    expect(group('lease').property_types.find((o: any) => o.value === 'townhouse')).toMatchObject({ count: 0 });
    expect(group('holiday_home').property_types.find((o: any) => o.value === 'office')).toMatchObject({ count: 0 });
  });
});
