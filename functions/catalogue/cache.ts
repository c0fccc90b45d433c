import type { Context, MiddlewareHandler, TypedResponse } from 'hono';
import { LRUCache } from 'lru-cache';
import type { Access } from '../../lib/access';
import type { AppEnv } from '../../lib/env';
import type { Config } from '../../lib/config';
import { chooseEncoding, type EncodedBody, type Encoding } from '../../lib/encodings';
import { ifNoneMatch } from '../../lib/etag';
import { completeAnswer } from '../../lib/security-headers';
import { versionVary } from '../../lib/versions';
import { renderContext } from './renders';

/**
 * Conditional GETs for the catalogue. Every catalogue answer of a company is a function of its catalogue
 * version (bumped by database triggers on any change to listings, photos, areas, types, team, services or
 * settings) and of this deployment (`RELEASE`, media base URL). The ETag is computed from those before the
 * page is built, so a revalidation costs no database round trip (the company row is kept in memory,
 * lib/company-cache.ts), and a 304 keeps the headers a 200 would have had (Cache-Control, ETag, Vary,
 * Request-Id, rate limits). Built pages are kept as bytes with gzip and brotli variants (as the runtime makes
 * them, `Services.compress`), and every answer of a kept page, the one that built it too, is sent in the
 * variant the request's Accept-Encoding prefers.
 */
export const conditionalGet: MiddlewareHandler<AppEnv> = async (c, next) => {
  // A free-dates search (issue 36) answers by the calendar at this moment, which the catalogue version does not follow:
  // never kept nor revalidated.
  if (c.req.url.includes('check_in=')) {
    await next();
    if (c.res.status === 200) c.res.headers.set('Cache-Control', 'no-store');
    return;
  }
  const { config, compress } = c.get('services');
  const { cacheControl, tag } = fixedOf(config);
  const etag = `W/"${c.get('company').catalogue_version}-${config.RELEASE}-${tag}"`;
  const cache = rendered(config.CATALOGUE_RESPONSE_CACHE_MB);
  // With the cache on, a body may be sent compressed: every answer says it depends on Accept-Encoding.
  const cacheHeaders: Record<string, string> = cache
    ? { ETag: etag, 'Cache-Control': cacheControl, Vary: `Accept-Encoding, ${versionVary}` }
    : { ETag: etag, 'Cache-Control': cacheControl };
  if (ifNoneMatch(c.req.header('If-None-Match'), etag)) return completeAnswer(c, null, 304, cacheHeaders);
  const key = cache ? cacheKey(c, etag) : '';
  const hit = cache?.get(key);
  if (hit !== undefined) return send(c, hit, cacheHeaders);
  await next();
  if (c.res.status !== 200) return;
  for (const [name, value] of Object.entries(cacheHeaders)) c.res.headers.set(name, value);
  if (!cache || c.req.method !== 'GET') return;
  const identity = new Uint8Array(await c.res.clone().arrayBuffer());
  const stored: StoredPage = {
    identity,
    ...(compress ? await compress(identity) : {}),
    contentType: c.res.headers.get('Content-Type') ?? 'application/json',
  };
  cache.set(key, stored);
  const encoding = encodingFor(c, stored);
  if (!encoding) return;
  // The built answer's headers with the compressed body (the root adds the request's own: id, rate limits, …).
  const headers = new Headers(c.res.headers);
  headers.set('Content-Encoding', encoding);
  headers.delete('Content-Length');
  const encoded = stored[encoding] as Uint8Array<ArrayBuffer>;
  c.res = undefined;
  c.res = new Response(encoded, { status: 200, headers });
};

/** A page kept in memory: its bytes, their gzip and brotli variants (as the runtime makes them), its type. */
type StoredPage = EncodedBody & { contentType: string };

/** A kept page, built whole with the platform's headers (lib/security-headers.ts): no `Headers` object is made. */
function send(c: Context<AppEnv>, page: StoredPage, cacheHeaders: Record<string, string>): Response {
  // cacheHeaders is this request's own object: the answer's headers are added to it.
  const encoding = encodingFor(c, page);
  cacheHeaders['Content-Type'] = page.contentType;
  if (encoding) cacheHeaders['Content-Encoding'] = encoding;
  return completeAnswer(c, (encoding ? page[encoding] : page.identity) as Uint8Array<ArrayBuffer>, 200, cacheHeaders);
}

/**
 * The variant for the request's Accept-Encoding (lib/encodings.ts), kept for each header value and set of stored
 * variants seen: browsers send a handful of values (at most 200 kept, then forgotten all at once).
 */
const chosen = new Map<string, Encoding | undefined>();
function encodingFor(c: Context<AppEnv>, page: EncodedBody): Encoding | undefined {
  if (!page.br && !page.gzip) return undefined;
  const key = `${page.br ? 'b' : ''}${page.gzip ? 'g' : ''} ${c.req.header('Accept-Encoding') ?? ''}`;
  if (chosen.has(key)) return chosen.get(key);
  const encoding = chooseEncoding(c, page);
  if (chosen.size >= 200) chosen.clear();
  chosen.set(key, encoding);
  return encoding;
}

/** What every answer of one configuration shares: its Cache-Control and the deployment's tag in the ETag. */
const fixed = new WeakMap<Config, { cacheControl: string; tag: string }>();
function fixedOf(config: Config): { cacheControl: string; tag: string } {
  let made = fixed.get(config);
  if (!made) {
    const { CATALOGUE_MAX_AGE_SECONDS: maxAge, CATALOGUE_EDGE_MAX_AGE_SECONDS: edge } = config;
    made = {
      cacheControl: `public, max-age=${maxAge}, s-maxage=${edge}, stale-while-revalidate=${maxAge}`,
      tag: deploymentTag(config.MEDIA_BASE_URL),
    };
    fixed.set(config, made);
  }
  return made;
}

/**
 * Rendered bodies by company, catalogue version and URL. A new version makes the old entries unreachable;
 * the LRU bound (bytes, with the compressed variants) drops them. One per process or isolate: keys carry the
 * company id.
 */
let cacheOf: { megabytes: number; cache: LRUCache<string, StoredPage> } | undefined;
function rendered(megabytes: number): LRUCache<string, StoredPage> | undefined {
  if (megabytes <= 0) return undefined;
  if (cacheOf?.megabytes !== megabytes) {
    cacheOf = {
      megabytes,
      cache: new LRUCache<string, StoredPage>({
        maxSize: megabytes * 1024 * 1024,
        sizeCalculation: (page, key) =>
          page.identity.byteLength + (page.gzip?.byteLength ?? 0) + (page.br?.byteLength ?? 0) + key.length,
      }),
    };
  }
  return cacheOf.cache;
}

/**
 * The page's key: company, ETag and the request's path and query as received (a request URL is absolute: its path
 * starts at the first `/` after the authority). Two spellings of one URL are two entries of the same page.
 */
function cacheKey(c: Context<AppEnv>, etag: string): string {
  const url = c.req.url;
  const path = url.indexOf('/', url.indexOf('//') + 2);
  return `${c.get('company').id} ${etag} ${path < 0 ? '/' : url.slice(path)}`;
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

/** Catalogue routes: public reads with the conditional-GET middleware after the access check (304 documented). */
export function catalogueAccess(access: Access = { kind: 'public', scopes: ['read:listings'] }) {
  return { access, after: [conditionalGet], revalidate: true, tags: ['Catalogue'] };
}

/** The render context of the request's company and deployment (renders.ts). */
export const renderOf = (c: Context<AppEnv>) => {
  const config = c.var.services.config;
  return renderContext(c.var.company, config.MEDIA_BASE_URL, config.CATALOGUE_FORMS_CACHE_MB);
};

/**
 * A JSON answer from bytes already serialised (stored forms concatenated): the bytes and headers `c.json` would
 * send for the route's documented body `T`, which the bytes are.
 */
export const jsonBytes = <T>(c: Context<AppEnv>, bytes: Uint8Array) =>
  c.body(bytes as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': 'application/json' }) as unknown as TypedResponse<
    T,
    200,
    'json'
  >;
