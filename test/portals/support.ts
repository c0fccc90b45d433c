import { expect } from 'vitest';
import type { Portal } from './formats';
import type { TestApi } from '../support/harness';
import { demo } from '../support/harness';
import { createCompany, importCatalogue } from '../support/world';

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
  const feeds = await api.admin(`/companies/${made.id}/portal-feeds`);
  expect(feeds.status, feeds.text).toBe(200);
  const path = (portal: Portal) =>
    new URL((feeds.json.results as Array<{ portal: string; url: string }>).find((f) => f.portal === portal)?.url ?? '').pathname;
  return { ...made, feed: { propertyfinder: path('propertyfinder'), bayut: path('bayut') } };
}

/** The reference a feed gives a listing: its id's hex digits. */
export const referenceOf = (id: string) => id.replaceAll('-', '');
