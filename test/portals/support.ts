import { expect } from 'vitest';
import type { Portal } from './formats';
import { answer } from '../stay/support';
import { type AdminBody, testClient } from '../support/client';
import type { TestApi } from '../support/harness';
import { demo } from '../support/harness';
import { adminOf, createCompany, importCatalogue } from '../support/world';

/** The portals' tests' companies and listings; the formats a feed is checked against are formats.ts's. */

const padding = ' Residents enjoy a pool, a gym, covered parking and direct access to the promenade and its cafés.';

let nextPermit = 7_100_000_000;

/** A listing every portal takes in a Dubai company: a Trakheesi permit, price, 3 photos, a long description, an agent. */
export function portalListing(slug: string, overrides: Record<string, unknown> = {}) {
  return {
    slug: { en: slug },
    listing_type: 'sale',
    status: 'published',
    title: { en: `Apartment ${slug}`, ar: `شقة ${slug}` },
    description: { en: `A bright two-bedroom apartment (${slug}) with a sea view.${padding}${padding}`, ar: 'شقة مشرقة' },
    price: '2450000.00',
    price_period: 'total',
    property_type: 'apartment',
    bedrooms: 2,
    bathrooms: 3,
    size_sqm: 128.5,
    city: 'dubai',
    area: 'dubai-marina',
    project: 'marina-gate',
    completion: 'ready',
    published_at: '2026-06-01T06:00:00Z',
    photos: ['living', 'kitchen', 'bedroom'].map((room) => ({ key: `${slug}/${room}`, alt: { en: room }, ready: true })),
    permit: { number: String(nextPermit++), authority: 'dld', expires_on: '2027-06-30' },
    agent: 'Sara Haddad',
    ...overrides,
  };
}

/**
 * A Dubai company (market `dubai`) with the demo's places and team and the given listings; its host and feed URLs.
 * `company` sets its other fields (a `currency`).
 */
export async function portalCompany(
  api: TestApi,
  listings: unknown[],
  settings: Record<string, unknown> = {},
  company: Record<string, unknown> = {},
) {
  const made = await createCompany(api, { ...company, settings: { market: 'dubai', ...settings } });
  await importCatalogue(api, made.id, { areas: demo.areas, property_types: demo.property_types, team: demo.team, listings });
  const feeds = await portalsAdmin(api, made.id).feeds();
  expect(feeds.status, feeds.text).toBe(200);
  const path = (portal: Portal) => new URL(feeds.data?.results.find((f) => f.portal === portal)?.url ?? '').pathname;
  return { ...made, feed: { propertyfinder: path('propertyfinder'), bayut: path('bayut') } };
}

export type PortalCompany = Awaited<ReturnType<typeof portalCompany>>;

/**
 * The admin API's routes the portals' tests call about one company, through its typed client, each answered as
 * {@link answer} reads it; bodies as sent (any JSON: the refusals too).
 */
export function portalsAdmin(api: TestApi, companyId: string) {
  const admin = adminOf(api);
  const company = { params: { path: { company_id: companyId } } };
  const listing = (slug: string) => ({ params: { path: { company_id: companyId, slug } } });
  return {
    /** The company's feed URLs. */
    feeds: () => answer(admin.GET('/admin/v1/companies/{company_id}/portal-feeds', company)),
    rotateFeeds: () => answer(admin.POST('/admin/v1/companies/{company_id}/portal-feeds/rotate', company)),
    /** The portal check of the company's listings (all on one page unless `query` says otherwise). */
    check: (query: { page_size?: number; cursor?: string; blocked?: 'true' | 'false' } = { page_size: 100 }) =>
      answer(admin.GET('/admin/v1/companies/{company_id}/portal-check', { params: { ...company.params, query } })),
    advertising: (slug: string, body: Record<string, unknown>) =>
      answer(
        admin.PATCH('/admin/v1/companies/{company_id}/listings/{slug}/advertising', {
          ...listing(slug),
          body: body as AdminBody<'setCompanyListingAdvertising'>,
        }),
      ),
    withdraw: (slug: string) => answer(admin.POST('/admin/v1/companies/{company_id}/listings/{slug}/withdraw', listing(slug))),
    team: () => answer(admin.GET('/admin/v1/companies/{company_id}/team', company)),
    addProfile: (body: Record<string, unknown>) =>
      answer(
        admin.POST('/admin/v1/companies/{company_id}/team', { ...company, body: body as AdminBody<'createCompanyTeamProfile'> }),
      ),
    putProfile: (id: string, body: Record<string, unknown>) =>
      answer(
        admin.PUT('/admin/v1/companies/{company_id}/team/{profile_id}', {
          params: { path: { company_id: companyId, profile_id: id } },
          body: body as AdminBody<'setCompanyTeamProfile'>,
        }),
      ),
    import: (doc: unknown) =>
      answer(
        admin.POST('/admin/v1/companies/{company_id}/catalogue/import', {
          ...company,
          body: doc as AdminBody<'importCompanyCatalogue'>,
        }),
      ),
    /** PATCH of the company's settings. */
    settings: (settings: Record<string, unknown>) =>
      answer(admin.PATCH('/admin/v1/companies/{company_id}', { ...company, body: { settings } as AdminBody<'updateCompany'> })),
  };
}

/**
 * A feed at `path` (the path of a URL the admin API gave: `/api/v1/feeds/{token}/{portal}.xml`) on `host`, fetched as a
 * portal fetches it, through the typed client, read as text.
 */
export function fetchFeed(api: TestApi, host: string, path: string, headers: Record<string, string> = {}) {
  const [, , , , token = '', file] = path.split('/');
  const client = testClient(api, { host, headers });
  const params = { params: { path: { token } }, parseAs: 'text' as const };
  if (file === 'propertyfinder.xml') return answer(client.GET('/api/v1/feeds/{token}/propertyfinder.xml', params));
  if (file === 'bayut.xml') return answer(client.GET('/api/v1/feeds/{token}/bayut.xml', params));
  throw new Error(`not a feed's path: ${path}`);
}

/** A company's listings' ids by their English slug. */
export async function idsBySlug(api: TestApi, companyId: string) {
  const rows = await api.db.selectFrom('listings').select(['id', 'slug_en']).where('company_id', '=', companyId).execute();
  return new Map(rows.map((r) => [r.slug_en, r.id]));
}

/** The reference a feed gives a listing: its id's hex digits. */
export const referenceOf = (id: string) => id.replaceAll('-', '');
