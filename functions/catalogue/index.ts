import type { MiddlewareHandler } from 'hono';
import { etag, RETAINED_304_HEADERS } from 'hono/etag';
import { createRouter } from '../../lib/app';
import type { AppEnv } from '../../lib/env';
import { areas } from './areas';
import { filters } from './filters';
import { listings } from './listings';
import { services } from './services';
import { sitemap } from './sitemap';
import { team } from './team';

/** Catalogue answers are the same for everyone: cacheable at the edge, revalidated by ETag. */
const cacheHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if ((c.req.method === 'GET' || c.req.method === 'HEAD') && c.res.status === 200) {
    const { CATALOGUE_MAX_AGE_SECONDS: maxAge, CATALOGUE_EDGE_MAX_AGE_SECONDS: edge } = c.var.services.config;
    c.res.headers.set('Cache-Control', `public, max-age=${maxAge}, s-maxage=${edge}, stale-while-revalidate=${maxAge}`);
  }
};

const conditional = etag({ retainedHeaders: [...RETAINED_304_HEADERS, 'request-id', 'ratelimit', 'ratelimit-policy'] });

/** The catalogue's own paths: the group is mounted beside other groups under /api/v1. */
export const cataloguePaths = ['/listings', '/listings/*', '/areas', '/filters', '/team', '/sitemap', '/services'];

export function catalogueGroup() {
  const group = createRouter();
  for (const path of cataloguePaths) group.use(path, conditional, cacheHeaders);
  // Inside `listings`, /listings/map is registered before /listings/{slug}, so "map" is never a slug.
  return group
    .route('/', listings)
    .route('/', areas)
    .route('/', filters)
    .route('/', team)
    .route('/', sitemap)
    .route('/', services);
}
