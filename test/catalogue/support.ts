import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { expect } from 'vitest';
import { demo, type TestApi } from '../support/harness';
import { createCompany, importCatalogue } from '../support/world';

/** Shared by the catalogue test files: an oracle computed from the demo document, and list walking. */

export type DemoListing = (typeof demo.listings)[number];
export type Sort = 'featured' | 'newest' | 'sort_order';
export const sorts: Sort[] = ['featured', 'newest', 'sort_order'];

export const published = demo.listings.filter((l) => l.status === 'published');
export const bySlug = (slug: string) => {
  const found = demo.listings.find((l) => l.slug.en === slug);
  if (!found) throw new Error(`no demo listing ${slug}`);
  return found;
};

const time = (l: DemoListing) => Date.parse(l.published_at ?? '');
/** The order each sort must give, worked out independently from the demo document. */
export function ordered(listings: DemoListing[], sort: Sort): string[] {
  const compare = {
    featured: (a: DemoListing, b: DemoListing) => Number(b.featured) - Number(a.featured) || time(b) - time(a),
    newest: (a: DemoListing, b: DemoListing) => time(b) - time(a),
    sort_order: (a: DemoListing, b: DemoListing) => a.sort_order - b.sort_order,
  }[sort];
  return [...listings].sort(compare).map((l) => l.slug.en);
}

/** English slug of a demo area given in either language. */
export function areaSlug(slug: string): string {
  const area = demo.areas.find((a) => a.slug.en === slug || a.slug.ar === slug);
  if (!area) throw new Error(`no demo area ${slug}`);
  return area.slug.en;
}

export const enSlugs = (results: Array<{ slug: { en: string } }>) => results.map((r) => r.slug.en);
export const sorted = (values: string[]) => [...values].sort();

/** GET that must answer 200; returns the JSON body. */
export async function getOk(api: TestApi, host: string, path: string) {
  const res = await api.request(path, { host });
  expect(res.status, `${path}: ${res.text}`).toBe(200);
  return res.json;
}

export const qs = (query: Record<string, string | number | undefined>) => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const text = params.toString();
  return text ? `?${text}` : '';
};

/** Follows next_cursor to the end; returns each page's results. */
export async function walk(api: TestApi, host: string, path: string, query: Record<string, string | number> = {}) {
  const pages: any[][] = [];
  let cursor: string | undefined;
  do {
    const body = await getOk(api, host, path + qs({ ...query, cursor }));
    pages.push(body.results);
    cursor = body.next_cursor ?? undefined;
    if (pages.length > 100) throw new Error('pagination does not end');
  } while (cursor);
  return { pages, results: pages.flat() };
}

/** A listing in the import document's shape; defaults make a small published sale apartment in Dubai. */
export function listingDoc(slug: string, overrides: Record<string, unknown> = {}) {
  return {
    slug: { en: slug, ar: `عقار-${slug}` },
    listing_type: 'sale',
    status: 'published',
    title: { en: `Title ${slug}`, ar: `عنوان ${slug}` },
    description: { en: `Description ${slug}`, ar: `وصف ${slug}` },
    price: '1000000.00',
    price_period: 'total',
    property_type: 'apartment',
    bedrooms: 1,
    city: 'dubai',
    area: 'dubai-marina',
    published_at: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

/** A company whose catalogue is just the demo's areas and property types plus the given listings. */
export async function smallCompany(api: TestApi, listings: unknown[], settings: Record<string, unknown> = {}) {
  const company = await createCompany(api, { settings });
  await importCatalogue(api, company.id, { areas: demo.areas, property_types: demo.property_types, listings });
  return company;
}

export const withdraw = (api: TestApi, companyId: string, slug: string) =>
  api.admin(`/companies/${companyId}/listings/${encodeURIComponent(slug)}/withdraw`, { method: 'POST' });
export const publish = (api: TestApi, companyId: string, slug: string) =>
  api.admin(`/companies/${companyId}/listings/${encodeURIComponent(slug)}/publish`, { method: 'POST' });
export const patchSettings = async (api: TestApi, companyId: string, settings: Record<string, unknown>) => {
  const res = await api.admin(`/companies/${companyId}`, { method: 'PATCH', body: { settings } });
  expect(res.status, res.text).toBe(200);
};

/** The page lengths a walk of `total` items must give at `size` a page: full pages, then the rest, no empty page. */
export function pageLengths(total: number, size: number): number[] {
  const lengths = Array<number>(Math.floor(total / size)).fill(size);
  if (total % size > 0 || total === 0) lengths.push(total % size);
  return lengths;
}

/** The test API over real HTTP on loopback, served as `npm start` serves it (@hono/node-server): its port and a close. */
export async function onLoopback(api: TestApi): Promise<{ port: number; close: () => Promise<void> }> {
  let server: ReturnType<typeof serve> | undefined;
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: api.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => resolve(info.port));
  });
  return { port, close: () => new Promise<void>((resolve) => server?.close(() => resolve())) };
}
