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
} from '../../schema/catalogue';
import { catalogueRead } from './access';
import { type ListingRecord, presenter } from './present';
import { applyFilters, enabledTypes, listingSorts, publishedListings, selectListingRecord } from './queries';

const presenterOf = (c: Context<AppEnv>) => presenter(c.var.company, c.var.services.config.MEDIA_BASE_URL);

const listRoute = defineRoute({
  method: 'get',
  path: '/listings',
  tags: ['Catalogue'],
  summary: 'Published listings, filtered, sorted and paginated',
  access: catalogueRead,
  request: { query: ListingsQuery },
  responses: { 200: { description: 'A page of listings', content: { 'application/json': { schema: ListingListSchema } } } },
});

const mapRoute = defineRoute({
  method: 'get',
  path: '/listings/map',
  tags: ['Catalogue'],
  summary: 'Map points of published listings that have coordinates',
  access: catalogueRead,
  request: { query: MapQuery },
  responses: { 200: { description: 'A page of map points', content: { 'application/json': { schema: MapPointListSchema } } } },
});

const oneRoute = defineRoute({
  method: 'get',
  path: '/listings/{slug}',
  tags: ['Catalogue'],
  summary: 'One listing by its English or Arabic slug',
  access: catalogueRead,
  request: { params: z.object({ slug: z.string().min(1).max(200) }) },
  responses: {
    200: {
      description: 'The listing; a withdrawn one gives only its slug and status.',
      content: { 'application/json': { schema: z.union([ListingSchema, WithdrawnListingSchema]) } },
    },
  },
});

export const listings = createRouter()
  .openapi(listRoute, async (c) => {
    const { page_size, cursor, sort, ...filters } = c.req.valid('query');
    const company = c.var.company;
    const order = listingSorts[sort];
    const query = applyFilters(publishedListings(c.var.services.db, company), company, filters);
    const rows = await paginate(selectListingRecord(query, { description: false, photos: 'all' }), order, {
      page_size,
      cursor,
    }).execute();
    const page = pageOf(rows, order, page_size);
    const present = presenterOf(c);
    return c.json(
      { results: page.rows.map((row) => present.summary(row as unknown as ListingRecord)), next_cursor: page.next_cursor },
      200,
    );
  })
  .openapi(mapRoute, async (c) => {
    const { page_size, cursor, sort, cover, ...filters } = c.req.valid('query');
    const company = c.var.company;
    const order = listingSorts[sort];
    const withCover = cover === '1' || cover === 'true';
    const query = applyFilters(publishedListings(c.var.services.db, company), company, filters).where(
      'l.latitude',
      'is not',
      null,
    );
    const rows = await paginate(selectListingRecord(query, { description: false, photos: withCover ? 'first' : 'none' }), order, {
      page_size,
      cursor,
    }).execute();
    const page = pageOf(rows, order, page_size);
    const present = presenterOf(c);
    return c.json(
      {
        results: page.rows.map((row) => present.mapPoint(row as unknown as ListingRecord, withCover)),
        next_cursor: page.next_cursor,
      },
      200,
    );
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
