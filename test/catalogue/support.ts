import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { expect } from 'vitest';
import { demo, type TestApi } from '../support/harness';
import type { operations } from '../../clients/typescript/src/index';
import { type TestClient, testClient } from '../support/client';
import { adminOf, createCompany, importCatalogue } from '../support/world';

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

/** The body of a typed client's answer, which must be 200. */
export async function okBody<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  expect(response.status, `${response.url}: ${JSON.stringify(error)}`).toBe(200);
  return data as T;
}

/** An operation's documented query, each parameter also taking any string or number (so a test may send a wrong one). */
type Loose<Id extends keyof operations> = {
  [K in keyof NonNullable<operations[Id]['parameters']['query']>]?:
    | NonNullable<operations[Id]['parameters']['query']>[K]
    | string
    | number;
};
export type ListQuery = Loose<'listListings'>;
export type MapQuery = Loose<'listListingMapPoints'>;
export type SitemapQuery = Loose<'getSitemap'>;

/**
 * The catalogue's public reads of a company's host through the typed client without a key (what anyone may read):
 * each answers the 200's body (and fails the test on any other status); `client` for the whole answer. The bodies
 * are given untyped (`any`): the tests compare them with shapes worked out from the demo document, absent fields too.
 */
export function catalogue(api: TestApi, host: string) {
  const client = testClient(api, { host });
  const ok = (call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<any> => okBody(call);
  return {
    client,
    listings: (query: ListQuery = {}) => ok(client.GET('/api/v1/listings', { params: { query: query as never } })),
    map: (query: MapQuery = {}) => ok(client.GET('/api/v1/listings/map', { params: { query: query as never } })),
    sitemap: (query: SitemapQuery = {}) => ok(client.GET('/api/v1/sitemap', { params: { query: query as never } })),
    listing: (slug: string) => ok(client.GET('/api/v1/listings/{slug}', { params: { path: { slug } } })),
    areas: () => ok(client.GET('/api/v1/areas')),
    filters: () => ok(client.GET('/api/v1/filters')),
    team: () => ok(client.GET('/api/v1/team')),
    services: () => ok(client.GET('/api/v1/services')),
  };
}

/** One read of the catalogue through a typed client (a test gives the client its host and headers). */
export type Read = (client: TestClient) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

const sea = bySlug('marina-gate-2br-sea-view');
/** The catalogue's public reads, each named by the path and query it sends: every route, a query, both languages. */
export const publicReads: Array<[string, Read]> = [
  ['/api/v1/listings', (c) => c.GET('/api/v1/listings')],
  [
    '/api/v1/listings?type=lease&page_size=3',
    (c) => c.GET('/api/v1/listings', { params: { query: { type: 'lease', page_size: 3 } } }),
  ],
  ['/api/v1/listings/map?cover=1', (c) => c.GET('/api/v1/listings/map', { params: { query: { cover: '1' } } })],
  [`/api/v1/listings/${sea.slug.en}`, (c) => c.GET('/api/v1/listings/{slug}', { params: { path: { slug: sea.slug.en } } })],
  [
    `/api/v1/listings/${encodeURIComponent(sea.slug.ar)}`,
    (c) => c.GET('/api/v1/listings/{slug}', { params: { path: { slug: sea.slug.ar } } }),
  ],
  [
    '/api/v1/listings/al-reem-2br-mangrove-view',
    (c) => c.GET('/api/v1/listings/{slug}', { params: { path: { slug: 'al-reem-2br-mangrove-view' } } }),
  ],
  ['/api/v1/areas', (c) => c.GET('/api/v1/areas')],
  ['/api/v1/filters', (c) => c.GET('/api/v1/filters')],
  ['/api/v1/team', (c) => c.GET('/api/v1/team')],
  ['/api/v1/sitemap', (c) => c.GET('/api/v1/sitemap')],
  ['/api/v1/services', (c) => c.GET('/api/v1/services')],
];

export const qs = (query: Record<string, string | number | undefined>) => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const text = params.toString();
  return text ? `?${text}` : '';
};

/** The lists `walk` pages through. */
export type Paged = '/api/v1/listings' | '/api/v1/listings/map' | '/api/v1/sitemap';

/** Follows next_cursor to the end; returns each page's results. */
export async function walk(api: TestApi, host: string, path: Paged, query: ListQuery & MapQuery & SitemapQuery = {}) {
  const read = catalogue(api, host);
  const page = { '/api/v1/listings': read.listings, '/api/v1/listings/map': read.map, '/api/v1/sitemap': read.sitemap }[path];
  const pages: any[][] = [];
  let cursor: string | undefined;
  do {
    const body: { results: unknown[]; next_cursor: string | null } = await page({ ...query, cursor });
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

/** Withdraws a listing through the typed admin client; its answer (`response.status`). */
export const withdraw = (api: TestApi, companyId: string, slug: string) =>
  adminOf(api).POST('/admin/v1/companies/{company_id}/listings/{slug}/withdraw', {
    params: { path: { company_id: companyId, slug } },
  });
/** Publishes a listing through the typed admin client; its answer (`response.status`). */
export const publish = (api: TestApi, companyId: string, slug: string) =>
  adminOf(api).POST('/admin/v1/companies/{company_id}/listings/{slug}/publish', {
    params: { path: { company_id: companyId, slug } },
  });
/** PATCH /admin/v1/companies/{company_id} of any body (the refusals too), through the typed admin client. */
export const patchCompany = (api: TestApi, companyId: string, body: Record<string, unknown>) =>
  adminOf(api).PATCH('/admin/v1/companies/{company_id}', { params: { path: { company_id: companyId } }, body: body as never });
/** Changes a company's settings, which must answer 200. */
export const patchSettings = async (api: TestApi, companyId: string, settings: Record<string, unknown>) => {
  const res = await patchCompany(api, companyId, { settings });
  expect(res.response.status, JSON.stringify(res.error)).toBe(200);
};
/** Imports a catalogue document into a company through the typed admin client (any document: the refusals too). */
export const importDoc = (api: TestApi, companyId: string, doc: unknown) =>
  adminOf(api).POST('/admin/v1/companies/{company_id}/catalogue/import', {
    params: { path: { company_id: companyId } },
    body: doc as never,
  });

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
