import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env';

/**
 * CORS of the public reads (catalogue, availability, quotes): what they answer is published, so any page may
 * read it from the visitor's browser (`Access-Control-Allow-Origin: *`, never with credentials). Only simple
 * requests are granted: no preflight is answered, so a page cannot send a key (`Authorization`, `X-Api-Key`)
 * to a read. Keys belong on servers; a browser reads without one. Problem answers carry the grant too, so a
 * page can show their `detail`.
 */
export function publicReadCors(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return;
    c.res.headers.set('Access-Control-Allow-Origin', '*');
    c.res.headers.set('Access-Control-Expose-Headers', 'Request-Id, ETag, Retry-After, RateLimit, RateLimit-Policy');
  };
}
