import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCatalogueOn } from '../../functions/catalogue/demo';
import { portalMinimums, propertyTypes, typeKey } from '../../functions/portals/rules';
import { seedDemo } from '../../functions/seed';
import { todayIn } from '../../lib/dates';
import { createTestApi, type TestApi } from '../support/harness';
import { type Node, type Portal, textAt, validateFeed } from './formats';
import { fetchFeed, portalsAdmin, referenceOf } from './support';

/**
 * `npm start`'s demo company (functions/seed.ts) on the portals (issue 32): its feeds carry every demo listing each
 * portal takes — a number derived here from the demo data and the portals' rules, never a constant — and every
 * listing in them keeps its format.
 */

// Time is an input: the seed dates the demo's permits from this instant.
const now = new Date('2029-03-17T06:00:00Z');

/** The demo as the seed imports it that day (the demo file, with each listing's agent and Dubai permit). */
const demo = demoCatalogueOn(todayIn('Asia/Dubai', now));
type DemoListing = (typeof demo.listings)[number];
const listings = demo.listings;
const team = new Map(demo.team.map((t) => [t.name, t]));

let api: TestApi;
let companyId: string;
let market: string | null;
const feedPath = new Map<Portal, string>();
beforeAll(async () => {
  // The seed keys the demo company on the host localhost: on PostgreSQL, a database of this file alone.
  api = await createTestApi({ ownDatabase: true });
  api.clock.set(now);
  const seeded = await seedDemo(api.db, now);
  expect(seeded.seeded).toBe(true);
  companyId = seeded.companyId;
  const company = await api.db.selectFrom('companies').select('settings').where('id', '=', companyId).executeTakeFirstOrThrow();
  market = (company.settings as { market?: string | null } | null)?.market ?? null;
  const feeds = await portalsAdmin(api, companyId).feeds();
  expect(feeds.status, feeds.text).toBe(200);
  for (const feed of feeds.data?.results ?? []) feedPath.set(feed.portal, new URL(feed.url).pathname);
}, 60_000);
afterAll(() => api.close());

/** What the demo data says each portal takes, by the documented rules (docs/api-reference.md, "Which listings"). */
function expectedSlugs(portal: Portal): string[] {
  const minimum = portalMinimums[portal];
  return listings
    .filter((l) => {
      const agent = l.agent ? team.get(l.agent) : undefined;
      const authority = market === 'dubai' ? (l.listing_type === 'holiday_home' ? 'dtcm' : 'dld') : null;
      return (
        l.status === 'published' &&
        l.portals?.[portal] !== false &&
        (authority === null || l.permit?.authority === authority) &&
        l.price !== null &&
        l.price_period !== null &&
        l.photos.filter((p) => p.ready).length >= minimum.photos &&
        [...(l.description?.en ?? '').trim()].length >= minimum.description &&
        Boolean(agent?.email && agent.phone) &&
        l.property_type !== null &&
        propertyTypes[portal][typeKey(l.property_type)] !== undefined &&
        l.city !== null &&
        l.area !== null &&
        (portal !== 'propertyfinder' || l.size_sqm !== null) &&
        (portal !== 'bayut' || l.completion !== 'off_plan' || Boolean(l.off_plan))
      );
    })
    .map((l) => l.slug.en)
    .sort();
}

describe('the demo company’s portal feeds (npm start)', () => {
  it('is a Dubai company whose listings carry distinct permits and agents with licence numbers', () => {
    expect(market).toBe('dubai');
    const permits = listings.flatMap((l) => (l.permit ? [l.permit.number] : []));
    expect(permits.length).toBeGreaterThan(0);
    expect(new Set(permits).size).toBe(permits.length); // so no listing is a duplicate of another
    const agents = new Set(listings.flatMap((l) => (l.agent ? [l.agent] : [])));
    for (const name of agents) expect(team.get(name)?.licence_number, name).toMatch(/^\d+$/);
  });

  for (const portal of ['propertyfinder', 'bayut'] as const) {
    it(`${portal}: carries every demo listing the portal takes, each as its format requires`, async () => {
      const expected = expectedSlugs(portal);
      expect(expected.length).toBeGreaterThan(0);
      const res = await fetchFeed(api, 'localhost', feedPath.get(portal) as string);
      expect(res.status, res.text).toBe(200);
      const items = validateFeed(res.text, portal);
      const rows = await api.db.selectFrom('listings').select(['id', 'slug_en']).where('company_id', '=', companyId).execute();
      const slugOf = new Map(rows.map((r) => [referenceOf(r.id), r.slug_en]));
      const reference = portal === 'propertyfinder' ? 'reference_number' : 'Property_Ref_No';
      const slugs = items.map((i) => slugOf.get(textAt(i, reference)) as string);
      expect(slugs.sort()).toEqual(expected);
      if (portal === 'propertyfinder') expect(res.text).toContain(`listing_count="${expected.length}"`);

      // Each listing's portal fields are the demo data's.
      const by = new Map(items.map((i) => [slugOf.get(textAt(i, reference)) as string, i as Node]));
      const furnished = { furnished: 'Yes', partly_furnished: 'Partly', unfurnished: 'No' } as Record<string, string>;
      for (const slug of expected) {
        const listing = listings.find((l) => l.slug.en === slug) as DemoListing;
        const item = by.get(slug) as Node;
        const field = (pf: string, bayut: string) => textAt(item, portal === 'propertyfinder' ? pf : bayut);
        expect(field('furnished', 'Furnished'), slug).toBe(listing.furnished ? furnished[listing.furnished] : '');
        if (portal === 'propertyfinder') {
          expect(textAt(item, 'agent/license_no'), slug).toBe(team.get(listing.agent as string)?.licence_number ?? '');
          expect(textAt(item, 'cheques'), slug).toBe(listing.cheques ? String(listing.cheques) : '');
          expect(textAt(item, 'service_charge'), slug).toBe(listing.service_charge?.replace(/\.00$/, '') ?? '');
          expect(textAt(item, 'price_on_application')).toBe('No');
        } else {
          const saleType = listing.off_plan?.sale_type;
          expect(textAt(item, 'offplanDetails_saleType'), slug).toBe(
            saleType ? saleType[0]?.toUpperCase() + saleType.slice(1) : '',
          );
        }
      }
    });
  }

  it('agrees with the portal check, which names why each other listing is left out', async () => {
    const check = await portalsAdmin(api, companyId).check({ page_size: 100 });
    expect(check.status, check.text).toBe(200);
    const results = check.data?.results ?? [];
    for (const portal of ['propertyfinder', 'bayut'] as const) {
      expect(
        results
          .filter((r) => r.portals[portal].in_feed)
          .map((r) => r.slug)
          .sort(),
      ).toEqual(expectedSlugs(portal));
      for (const r of results) {
        const state = r.portals[portal];
        if (r.status === 'published' && state.opted_in && !state.in_feed)
          expect(state.problems.length, r.slug).toBeGreaterThan(0);
      }
    }
  });
});
