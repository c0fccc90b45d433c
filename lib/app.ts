import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { Result, Router } from 'hono/router';
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import type { ZodError } from 'zod';
import type { AppEnv, Services, ServicesProvider } from './env';
import { isUniqueViolation, isUnstorableText } from './db/index';
import { ApiError, type FieldError, problemBody } from './errors';
import { storableText } from '../schema/common/text';
import { formsCors } from './forms-cors';
import { checkJsonDepth } from './json-body';
import { healthRoutes } from './health';
import { platformHeaders } from './security-headers';
import { problemTypeBaseFor } from './problem-types';

/** Zod issues as the problem body's `errors`: one entry per field, unknown parameters named one by one. */
export function fieldErrors(error: ZodError): FieldError[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        path: path ? `${path}.${key}` : key,
        code: 'unknown_field',
        message: `Unknown field or parameter "${key}".`,
      }));
    }
    // A refinement may name its own code (e.g. `forbidden_key`) in params.
    const own = issue.code === 'custom' ? (issue.params as { code?: unknown } | undefined)?.code : undefined;
    return [{ path, code: typeof own === 'string' ? own : issue.code, message: issue.message }];
  });
}

/** A route group: one validation hook for all, so every invalid input answers the same problem shape. */
export function createRouter(): OpenAPIHono<AppEnv> {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      const where = { query: 'query parameters', param: 'path parameters', json: 'request body fields' }[result.target as string];
      if (!result.success) {
        throw new ApiError('invalid_request', `The ${where ?? result.target} ${where ? 'are' : 'is'} invalid.`, {
          errors: fieldErrors(result.error),
        });
      }
      const broken = illFormedAt(result.data, '');
      if (broken !== undefined) {
        const message = 'Text must be well-formed Unicode (no lone surrogate) without U+0000.';
        throw new ApiError('invalid_request', `The ${where ?? result.target} ${where ? 'are' : 'is'} invalid.`, {
          errors: [{ path: broken, code: 'invalid_text', message }],
        });
      }
    },
  });
}

/**
 * The path of the first string (or key) of validated input that cannot be stored as sent (a lone surrogate, which JSON
 * may spell as `"\ud83d"`, or U+0000): the client's mistake (400), never a failure of ours. Every text field of a
 * schema is `text()` (schema/common/text.ts), which refuses it at the field; this is the same rule over what a schema
 * takes without a text type (record keys, `z.record`, untyped JSON).
 */
function illFormedAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return storableText(value) ? undefined : path;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (!storableText(key)) return at;
    const found = illFormedAt(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function problemResponse(c: Context<AppEnv>, error: ApiError): Response {
  const body = problemBody(error, c.get('requestId') ?? '', problemTypeBaseFor(c));
  for (const [name, value] of Object.entries(error.headers ?? {})) c.header(name, value);
  return c.body(JSON.stringify(body), error.status, { 'Content-Type': 'application/problem+json' });
}

export function toApiError(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  // Hono's validators and body limit throw these for malformed requests: each is the client's mistake.
  if (err instanceof HTTPException) {
    if (err.status === 400) return new ApiError('invalid_json', 'The request body is not valid JSON.');
    if (err.status === 413) return new ApiError('payload_too_large');
    if (err.status === 415) return new ApiError('unsupported_media_type', 'Send the body as Content-Type: application/json.');
    if (err.status >= 400 && err.status < 500) return new ApiError('invalid_request', err.message);
  }
  if (isUniqueViolation(err)) return new ApiError('conflict', 'A record with the same unique value already exists.');
  if (isUnstorableText(err))
    return new ApiError('invalid_request', 'A text value contains a character that cannot be stored (U+0000).');
  return undefined;
}

/** Set once Hono said this process's requests carry no execution context (Node): it never gains one. */
let withoutExecutionContext = false;

function servicesMiddleware(provide: ServicesProvider): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const provided = provide(c);
    const { services, done } = provided instanceof Promise ? await provided : provided;
    c.set('services', services);
    try {
      await next();
    } finally {
      const after = afterResponse(c, services, done);
      if (after) {
        // On Workers the runtime keeps it alive after the response; on Node (no execution context) it runs in
        // the background, tracked so that shutdown and tests can wait for it: the answer never waits on it.
        // Hono's getter throws where there is no context; a process that has seen it throw once (Node) stops asking.
        if (withoutExecutionContext) track(after);
        else {
          try {
            c.executionCtx.waitUntil(after);
          } catch {
            withoutExecutionContext = true;
            track(after);
          }
        }
      }
    }
  };
}

const running = new Set<Promise<void>>();

function track(work: Promise<void>): void {
  running.add(work);
  void work.finally(() => running.delete(work));
}

/**
 * Resolves once every after-response task started on Node so far (and any they started meanwhile) has
 * finished: the server awaits it before closing the database, tests before looking at what a hand-off did.
 */
export async function afterResponsesSettled(): Promise<void> {
  while (running.size > 0) await Promise.allSettled([...running]);
}

/**
 * After a successful write, the outbox relay: hand the webhook deliveries its transaction created to their
 * transport (publish to QStash, or wake the in-process dispatcher). A failure here loses nothing: the
 * scheduled sweep finds the same deliveries. Then the request's services are closed.
 */
function afterResponse(c: Context<AppEnv>, services: Services, done?: () => Promise<void>): Promise<void> | undefined {
  const wrote = !readsOnly(c.req.method) && c.res.status < 400;
  if (!wrote && !done) return undefined;
  const streaming = c.get('streaming') as Promise<unknown> | undefined;
  return (async () => {
    // A streamed body reads the database as it is written: the services are closed once it is done.
    if (streaming) await streaming.catch(() => {});
    if (wrote) {
      await services.webhooks.transport
        .handOff(services.db, services.webhooks)
        .catch((error: unknown) => console.error('handing webhook deliveries over failed (the sweep will):', error));
    }
    await done?.().catch((error: unknown) => console.error('closing services failed:', error));
  })();
}

/**
 * For an answer whose body is written after the handler returned (a feed streamed from the database): the request's
 * services (a Worker's per-request pool) stay open until `work` settles, and a Worker keeps running until then.
 */
export function keepServicesUntil(c: Context<AppEnv>, work: Promise<unknown>): void {
  c.set('streaming', work);
}

/** GET, HEAD and OPTIONS: requests that change nothing and carry no body. */
export function readsOnly(method: string): boolean {
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS';
}

/**
 * The one guard on the requests that can carry a body (lib/json-body.ts): hono/body-limit bounds its size (413), then
 * its bytes are read once (Hono keeps them for the validator, the idempotency hash and the inbound receivers'
 * signatures) and its nesting bounded (400 `invalid_json`) before anything parses it. A GET or HEAD has none, and
 * asking for it (`c.req.raw.body`) would make @hono/node-server build the whole web `Request` (with its
 * `AbortController`), the largest part of a 304's cost; so those pass straight on.
 */
function limitBody(maxSize: number): MiddlewareHandler<AppEnv> {
  const limit = bodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError('payload_too_large', `The request body is larger than ${maxSize} bytes.`);
    },
  });
  const bounded = (c: Context<AppEnv>, next: () => Promise<void>) => async () => {
    if (c.req.raw.body) checkJsonDepth(new Uint8Array(await c.req.arrayBuffer()));
    await next();
  };
  return (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limit(c, bounded(c, next)));
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
