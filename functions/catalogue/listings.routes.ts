import { z } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import {
  ListingListSchema,
  ListingSchema,
  ListingsQuery,
  MapPointListSchema,
  MapQuery,
  WithdrawnListingSchema,
} from '../../schema/catalogue/listings';
import { json, noQuery } from '../../schema/common/api';
import { catalogueAccess, jsonBytes, renderOf } from './cache';
import { listingDetail, listingPage } from './pages';

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

const listListings: Handler<typeof listRoute> = async function listListings(c) {
  const { db, now } = c.var.services;
  const query = c.req.valid('query');
  // The services' clock: a free-dates search reads the calendar as it is now; a word search keeps its measured words.
  const page = await listingPage(db, await renderOf(c), query, 'card', false, now());
  return jsonBytes<z.infer<typeof ListingListSchema>>(c, page);
};

const listMapPoints: Handler<typeof mapRoute> = async function listMapPoints(c) {
  const { cover, ...request } = c.req.valid('query');
  const form = cover === '1' || cover === 'true' ? 'map_cover' : 'map_point';
  const page = await listingPage(c.var.services.db, await renderOf(c), request, form, true, c.var.services.now());
  return jsonBytes<z.infer<typeof MapPointListSchema>>(c, page);
};

const getListing: Handler<typeof oneRoute> = async function getListing(c) {
  const body = await listingDetail(c.var.services.db, await renderOf(c), c.var.company, c.req.valid('param').slug);
  return jsonBytes(c, body);
};

export const listings = createRouter()
  .openapi(listRoute, listListings)
  .openapi(mapRoute, listMapPoints)
  .openapi(oneRoute, getListing);
