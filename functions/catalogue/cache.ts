import type { Context, MiddlewareHandler } from 'hono';
import { LRUCache } from 'lru-cache';
import type { Access } from '../../lib/access';
import type { AppEnv } from '../../lib/env';
import { ifNoneMatch } from '../../lib/etag';

/**
 * Conditional GETs for the catalogue. Every catalogue answer of a company is a function of its catalogue
 * version (bumped by database triggers on any change to listings, photos, areas, types, team, services or
 * settings) and of this deployment (`RELEASE`, media base URL). The ETag is computed from those before the
 * page is built, so a revalidation costs the company lookup the request makes anyway, and a 304 keeps the
 * headers a 200 would have had (Cache-Control, ETag, Request-Id, rate limits).
 */
export const conditionalGet: MiddlewareHandler<AppEnv> = async (c, next) => {
  const { config } = c.var.services;
  const etag = `W/"${String(c.var.company.catalogue_version)}-${config.RELEASE}-${deploymentTag(config.MEDIA_BASE_URL)}"`;
  const { CATALOGUE_MAX_AGE_SECONDS: maxAge, CATALOGUE_EDGE_MAX_AGE_SECONDS: edge } = config;
  const cacheControl = `public, max-age=${maxAge}, s-maxage=${edge}, stale-while-revalidate=${maxAge}`;
  const cacheHeaders = { ETag: etag, 'Cache-Control': cacheControl };
  if (ifNoneMatch(c.req.header('If-None-Match'), etag)) return c.body(null, 304, cacheHeaders);
  const cache = rendered(config.CATALOGUE_RESPONSE_CACHE_MB);
  const key = cache ? cacheKey(c, etag) : '';
  const hit = cache?.get(key);
  if (hit !== undefined) return c.body(hit, 200, { ...cacheHeaders, 'Content-Type': 'application/json' });
  await next();
  if (c.res.status !== 200) return;
  c.res.headers.set('ETag', etag);
  c.res.headers.set('Cache-Control', cacheControl);
  if (cache && c.req.method === 'GET') cache.set(key, await c.res.clone().text());
};

/**
 * Rendered bodies by company, catalogue version and URL. A new version makes the old entries unreachable;
 * the LRU bound (bytes) drops them. One per process or isolate: keys carry the company id.
 */
let cacheOf: { megabytes: number; cache: LRUCache<string, string> } | undefined;
function rendered(megabytes: number): LRUCache<string, string> | undefined {
  if (megabytes <= 0) return undefined;
  if (cacheOf?.megabytes !== megabytes) {
    cacheOf = {
      megabytes,
      cache: new LRUCache<string, string>({
        maxSize: megabytes * 1024 * 1024,
        sizeCalculation: (body, key) => body.length + key.length,
      }),
    };
  }
  return cacheOf.cache;
}

function cacheKey(c: Context<AppEnv>, etag: string): string {
  const url = new URL(c.req.url);
  return `${c.var.company.id} ${etag} ${url.pathname}${url.search}`;
}

/** A short, stable tag of the deployment-wide inputs that change every URL (FNV-1a, not a secret). */
const tags = new Map<string, string>();
function deploymentTag(value: string): string {
  let tag = tags.get(value);
  if (!tag) {
    let hash = 0x811c9dc5;
    for (let i = 0; i < value.length; i++) hash = Math.imul(hash ^ value.charCodeAt(i), 0x01000193) >>> 0;
    tag = hash.toString(36);
    tags.set(value, tag);
  }
  return tag;
}

/** Catalogue routes: public reads with the conditional-GET middleware after the access check. */
export function catalogueAccess(access: Access = { kind: 'public', scopes: ['read:listings'] }) {
  return { access, after: [conditionalGet], tags: ['Catalogue'] };
}
