import { json, noQuery } from '../../schema/common/api';
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import type { AppEnv } from '../../lib/env';
import { notFound } from '../../lib/errors';
import { pageOf, paginate } from '../../lib/pagination';
import {
  ListingListSchema,
  ListingSchema,
  ListingsQuery,
  MapPointListSchema,
  MapQuery,
  WithdrawnListingSchema,
} from '../../schema/catalogue/listings';
import { catalogueAccess } from './cache';
import { type ListingRecord, presenter } from './listings.present';
import {
  applyFilters,
  enabledTypes,
  type ListingFilters,
  listingSorts,
  publishedListings,
  selectListingRecord,
} from './listings';

const presenterOf = (c: Context<AppEnv>) => presenter(c.var.company, c.var.services.config.MEDIA_BASE_URL);

const listRoute = defineRoute({
  method: 'get',
  path: '/listings',
  summary: 'Published listings, filtered, sorted and paginated',
  ...catalogueAccess(),
  request: { query: ListingsQuery },
  responses: { 200: json(ListingListSchema, 'A page of listings') },
});

const mapRoute = defineRoute({
  method: 'get',
  path: '/listings/map',
  operationId: 'listListingMapPoints',
  summary: 'Map points of published listings that have coordinates',
  ...catalogueAccess(),
  request: { query: MapQuery },
  responses: { 200: json(MapPointListSchema, 'A page of map points') },
});

const oneRoute = defineRoute({
  method: 'get',
  path: '/listings/{slug}',
  summary: 'One listing by its English or Arabic slug',
  ...catalogueAccess(),
  request: { params: z.object({ slug: z.string().min(1).max(200) }), query: noQuery },
  responses: {
    200: json(z.union([ListingSchema, WithdrawnListingSchema]), 'The listing; a withdrawn one gives only its slug and status.'),
  },
});

type PageRequest = ListingFilters & { page_size: number; cursor?: string; sort: keyof typeof listingSorts };

/** One page of published listings: filters, keyset order and everything the presenter needs, in one query. */
async function listingPage(
  c: Context<AppEnv>,
  request: PageRequest,
  options: { photos: 'all' | 'first' | 'none'; mapped?: boolean },
) {
  const { page_size, cursor, sort, ...filters } = request;
  const company = c.var.company;
  const order = listingSorts[sort];
  let query = applyFilters(publishedListings(c.var.services.db, company), company, filters);
  if (options.mapped) query = query.where('l.latitude', 'is not', null);
  const rows = await paginate(selectListingRecord(query, { description: false, photos: options.photos }), order, {
    page_size,
    cursor,
  }).execute();
  const page = pageOf(rows, order, page_size);
  return { rows: page.rows as unknown as ListingRecord[], next_cursor: page.next_cursor };
}

export const listings = createRouter()
  .openapi(listRoute, async (c) => {
    const page = await listingPage(c, c.req.valid('query'), { photos: 'all' });
    const present = presenterOf(c);
    return c.json({ results: page.rows.map(present.summary), next_cursor: page.next_cursor }, 200);
  })
  .openapi(mapRoute, async (c) => {
    const { cover, ...request } = c.req.valid('query');
    const withCover = cover === '1' || cover === 'true';
    const page = await listingPage(c, request, { photos: withCover ? 'first' : 'none', mapped: true });
    const present = presenterOf(c);
    return c.json({ results: page.rows.map((row) => present.mapPoint(row, withCover)), next_cursor: page.next_cursor }, 200);
  })
  .openapi(oneRoute, async (c) => {
    const { slug } = c.req.valid('param');
    const company = c.var.company;
    const db = c.var.services.db;
    const row = await selectListingRecord(
      db
        .selectFrom('listings as l')
        .where('l.company_id', '=', company.id)
        .where((eb) => eb.or([eb('l.slug_en', '=', slug), eb('l.slug_ar', '=', slug)])),
      { description: true, photos: 'all' },
    )
      .select('l.status')
      .executeTakeFirst();
    if (!row || row.status === 'draft' || !enabledTypes(company).includes(row.listing_type))
      throw notFound(`The listing "${slug}"`);
    const present = presenterOf(c);
    if (row.status === 'withdrawn') {
      return c.json({ slug: present.slug(row), status: 'withdrawn' as const }, 200);
    }
    return c.json(present.detail(row as unknown as ListingRecord), 200);
  });
