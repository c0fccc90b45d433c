import { json, noQuery } from '../../schema/common/api';
import { z } from '@hono/zod-openapi';
import type { Context, TypedResponse } from 'hono';
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
import { applyFilters, enabledTypes, type ListingFilters, listingSorts, publishedListings } from './listings';
import { bodiesOf, listBody, type RenderedForm, renderContext, withStoredForm } from './renders';

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

const renderOf = (c: Context<AppEnv>) => renderContext(c.var.company, c.var.services.config.MEDIA_BASE_URL);

const utf8 = new TextEncoder();

/**
 * A JSON answer from text already serialised (stored forms concatenated): the bytes and headers `c.json` would
 * send for the route's documented body `T`, which the text is. Sent as bytes: the text comes from the database,
 * so it is well-formed already and the runtime's check of a string body (a copy of it) is saved.
 */
export const jsonText = <T>(c: Context<AppEnv>, text: string) =>
  c.body(utf8.encode(text), 200, { 'Content-Type': 'application/json' }) as unknown as TypedResponse<T, 200, 'json'>;

/**
 * One page of published listings in one query: filters, keyset order and each listing's stored `form`, which is
 * concatenated as it is (a form missing or rendered for other inputs is rendered and stored, renders.ts).
 */
async function listingPage<T>(c: Context<AppEnv>, request: PageRequest, form: RenderedForm, mapped = false) {
  const { page_size, cursor, sort, ...filters } = request;
  const company = c.var.company;
  const db = c.var.services.db;
  const render = await renderOf(c);
  const order = listingSorts[sort];
  let query = applyFilters(publishedListings(db, company), company, filters);
  if (mapped) query = query.where('l.latitude', 'is not', null);
  const rows = await paginate(withStoredForm(query, render, form), order, { page_size, cursor }).execute();
  const page = pageOf(rows, order, page_size);
  return jsonText<T>(c, listBody(await bodiesOf(db, render, page.rows, form), page.next_cursor));
}

export const listings = createRouter()
  .openapi(listRoute, async (c) => listingPage<z.infer<typeof ListingListSchema>>(c, c.req.valid('query'), 'card'))
  .openapi(mapRoute, async (c) => {
    const { cover, ...request } = c.req.valid('query');
    const withCover = cover === '1' || cover === 'true';
    return listingPage<z.infer<typeof MapPointListSchema>>(c, request, withCover ? 'map_cover' : 'map_point', true);
  })
  .openapi(oneRoute, async (c) => {
    const { slug } = c.req.valid('param');
    const company = c.var.company;
    const db = c.var.services.db;
    const render = await renderOf(c);
    const bySlug = db
      .selectFrom('listings as l')
      .where('l.company_id', '=', company.id)
      .where((eb) => eb.or([eb('l.slug_en', '=', slug), eb('l.slug_ar', '=', slug)]));
    const row = await withStoredForm(bySlug, render, 'detail').select(['l.status', 'l.listing_type']).executeTakeFirst();
    if (!row || row.status === 'draft' || !enabledTypes(company).includes(row.listing_type))
      throw notFound(`The listing "${slug}"`);
    const [body] = await bodiesOf(db, render, [row], 'detail');
    if (body === undefined) throw notFound(`The listing "${slug}"`);
    return jsonText(c, body);
  });
