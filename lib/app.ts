import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import type { AppEnv, ServicesProvider } from './env';
import { ApiError } from './errors';
import { formsCors } from './forms-cors';
import { healthRoutes } from './health';
import { checkJsonDepth } from './json-body';
import { problemResponse, toApiError, validationHook } from './request-errors';
import { servicesMiddleware } from './request-lifecycle';
import { platformHeaders } from './security-headers';
import { apiVersionMiddleware } from './versions';

/**
 * The app and its route groups, as the factory makes them: the root app's middleware in order, the router, the body
 * limits. Failures are answered through lib/request-errors.ts, a request's services and after-answer work are
 * lib/request-lifecycle.ts's.
 */

/** A route group: one validation hook for all, so every invalid input answers the same problem shape. */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: validationHook,
  });
}

/**
 * The one guard on the requests that can carry a body (lib/json-body.ts): its size bounded (413), then its bytes read
 * once and its nesting bounded (400 `invalid_json`) before anything parses it. A GET or HEAD has none, and asking for
 * it (`c.req.raw.body`) would make @hono/node-server build the whole web `Request` (with its `AbortController` and a
 * web stream over the socket), the largest part of a 304's cost; so those pass straight on.
 *
 * A body with a `Content-Length` (what clients send) is judged by it, as hono/body-limit judges it, and read with
 * `c.req.arrayBuffer()` without asking for the stream either: @hono/node-server then reads the socket's bytes itself.
 * Its text is kept for the validator (and the idempotency hash), decoded as `Response.text()` decodes (UTF-8, a BOM
 * dropped, bad bytes replaced), so `c.req.json()` does not wrap the bytes in a `Response` to decode them. Hono keeps
 * the bytes for the inbound receivers' signatures. A body without a length (chunked) goes through hono/body-limit,
 * which counts it as it streams.
 */
function limitBody(maxSize: number): MiddlewareHandler<AppEnv> {
  const tooLarge = () => new ApiError('payload_too_large', `The request body is larger than ${maxSize} bytes.`);
  const limit = bodyLimit({
    maxSize,
    onError: () => {
      throw tooLarge();
    },
  });
  const bounded = (c: Context<AppEnv>, next: () => Promise<void>) => async () => {
    if (c.req.raw.body) checkJsonDepth(new Uint8Array(await c.req.arrayBuffer()));
    await next();
  };
  return async (c, next) => {
    const method = c.req.method;
    if (method === 'GET' || method === 'HEAD') return next();
    const headers = c.req.raw.headers;
    const length = headers.get('Content-Length');
    if (length === null || headers.has('Transfer-Encoding')) return limit(c, bounded(c, next));
    if (Number.parseInt(length, 10) > maxSize) throw tooLarge();
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    checkJsonDepth(bytes);
    keepText(c, bytes);
    await next();
  };
}

const utf8 = new TextDecoder();

/** The body's text for Hono's `c.req.text()` and `c.req.json()`, decoded when first asked. */
function keepText(c: Context<AppEnv>, bytes: Uint8Array): void {
  let text: Promise<string> | undefined;
  Object.defineProperty(c.req.bodyCache, 'text', {
    configurable: true,
    enumerable: true,
    get: () => {
      text ??= Promise.resolve(utf8.decode(bytes));
      return text;
    },
    set: (value: Promise<string>) => {
      text = value;
    },
  });
}

/**
 * Hono's default router (the first of RegExpRouter and TrieRouter that takes every route: TrieRouter here, since a
 * static and a parameter segment share a place, `/listings/map` and `/listings/:slug`), remembering its matches for
 * the paths last asked: a site asks for the same few, and a match is a function of method and path alone. At most
 * 1,000 short paths are kept, then all are forgotten at once; a route added forgets them too.
 */
export class RememberingRouter<T> implements Router<T> {
  name = 'RememberingRouter';
  readonly #router: Router<T> = new SmartRouter<T>({ routers: [new RegExpRouter<T>(), new TrieRouter<T>()] });
  /** Matches by method, then path. */
  readonly #matches = new Map<string, Map<string, Result<T>>>();
  #remembered = 0;

  add(method: string, path: string, handler: T): void {
    this.#forget();
    this.#router.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    if (path.length > 200) return this.#router.match(method, path);
    let byPath = this.#matches.get(method);
    if (!byPath) {
      byPath = new Map();
      this.#matches.set(method, byPath);
    }
    let match = byPath.get(path);
    if (match === undefined) {
      match = this.#router.match(method, path);
      if (++this.#remembered > 1000) this.#forget();
      else byPath.set(path, match);
    }
    return match;
  }

  #forget(): void {
    this.#matches.clear();
    this.#remembered = 0;
  }
}

export const adminMaxBodyBytes = 8 * 1024 * 1024;

/**
 * The root app: request ids, security headers (and no-store on every answer of a route that takes a key or the
 * admin token; lib/security-headers.ts), services, the browser forms' CORS, body limits, one error handler and a problem for unknown routes. The forms' CORS (`formPaths`, full paths) runs before the body limit, so a page can read the
 * 413 problem of an oversized form as it reads any other refusal; it needs the services to look up origins.
 */
export function createApp(
  provide: ServicesProvider,
  options: { maxBodyBytes?: number; formPaths?: string[] } = {},
): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ router: new RememberingRouter() });
  app.use(platformHeaders());
  // The API version of every answer, the health checks' too (lib/versions.ts).
  app.use(apiVersionMiddleware());
  // GET /health and /health/ready on every host, ahead of the services and every limit (lib/health.ts).
  app.route('/', healthRoutes(provide));
  app.use(servicesMiddleware(provide));
  for (const path of options.formPaths ?? []) app.use(path, formsCors());
  app.use('/api/*', limitBody(options.maxBodyBytes ?? 64 * 1024));
  // Catalogue imports are the admin API's large bodies.
  app.use('/admin/*', limitBody(adminMaxBodyBytes));
  app.use('/internal/*', limitBody(64 * 1024));
  app.notFound((c) => problemResponse(c, new ApiError('not_found', `No route matches ${c.req.method} ${c.req.path}.`)));
  app.onError((err, c) => {
    const known = toApiError(err);
    if (known) return problemResponse(c, known);
    console.error(`request ${c.get('requestId')} failed:`, err);
    return problemResponse(c, new ApiError('internal_error', 'Something went wrong on our side; quote the request id.'));
  });
  return app;
}
