import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env';
import { addAnswerHeaders, builtWhole } from './security-headers';

const grant: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'Request-Id, ETag, Retry-After, RateLimit, RateLimit-Policy, Api-Version',
};

/**
 * CORS of the public reads (catalogue, availability, quotes): what they answer is published, so any page may
 * read it from the visitor's browser (`Access-Control-Allow-Origin: *`, never with credentials). Only simple
 * requests are granted: no preflight is answered, so a page cannot send a key (`Authorization`, `X-Api-Key`)
 * to a read. Keys belong on servers; a browser reads without one. Problem answers carry the grant too, so a
 * page can show their `detail`.
 */
export function publicReadCors(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    addAnswerHeaders(c, grant);
    await next();
    // An answer built whole carries it already; any other gets it over what a handler set.
    if (!builtWhole(c.res)) for (const [name, value] of Object.entries(grant)) c.res.headers.set(name, value);
  };
}
