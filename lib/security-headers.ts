import type { Context, MiddlewareHandler } from 'hono';
import type { Access } from '../schema/common/scopes';
import { sha256 } from './crypto';
import type { AppEnv } from './env';

/** Two years; no includeSubDomains and no preload: a company's host may be its apex domain, whose other names we do not serve. */
export const hstsValue = 'max-age=63072000';

/**
 * Security headers of every answer: `nosniff`, `Referrer-Policy: no-referrer`, framing refused, and a CSP that lets a
 * JSON or problem answer load nothing (the set hono/secure-headers gives with these options, written out once). No
 * Cross-Origin-Resource-Policy: the public reads are meant for other sites. Strict-Transport-Security only on an
 * https request: a browser ignores it over http, and RFC 6797 forbids it there.
 */
const overHttp: Readonly<Record<string, string>> = {
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Origin-Agent-Cluster': '?1',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-DNS-Prefetch-Control': 'off',
  'X-Download-Options': 'noopen',
  'X-Frame-Options': 'DENY',
  'X-Permitted-Cross-Domain-Policies': 'none',
  'X-XSS-Protection': '0',
};
const overHttps: Readonly<Record<string, string>> = { ...overHttp, 'Strict-Transport-Security': hstsValue };

/** Answers built whole by {@link completeAnswer}: they already carry every platform header. */
const complete = new WeakSet<Response>();

/** Whether an answer was built whole by {@link completeAnswer} (nothing is to be added to it). */
export function builtWhole(res: Response): boolean {
  return complete.has(res);
}

/** A `Request-Id` the client may choose (as hono/request-id accepts it); otherwise a new UUID. */
function requestIdOf(given: string | undefined): string {
  return given && given.length <= 255 && !/[^\w\-=]/.test(given) ? given : crypto.randomUUID();
}

/**
 * The headers of every answer, in one middleware at the root: the request id (the client's `Request-Id` when it is
 * a plain token, else a new one), the security headers (a header a handler set itself is kept: the stay page's and
 * the docs page's CSP), the headers the request gathered on its way ({@link addAnswerHeaders}: rate limits, the
 * public reads' CORS), and `no-store` on every answer of a route that takes a key or the admin token (they may hold
 * personal data; public reads set their own caching).
 *
 * The request's headers are kept as a plain object, not a `Headers`: an answer built whole from them
 * ({@link completeAnswer}: a 304, a kept page) is written to the socket without a `Headers` object ever made.
 */
export function platformHeaders(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const id = requestIdOf(c.req.header('Request-Id'));
    c.set('requestId', id);
    // One object for the whole request: the security headers first, then what is gathered on the way.
    const gathered: Record<string, string> = Object.assign({}, isHttps(c) ? overHttps : overHttp);
    gathered['Request-Id'] = id;
    c.set('answerHeaders', gathered);
    await next();
    const res = c.res;
    if (!builtWhole(res)) {
      const headers = res.headers;
      for (const name in gathered) if (!headers.has(name)) headers.set(name, gathered[name] as string);
      headers.delete('X-Powered-By');
    }
    const access = c.get('access') as Access | undefined;
    if (access && access.kind !== 'public') res.headers.set('Cache-Control', 'no-store');
  };
}

function isHttps(c: Context<AppEnv>): boolean {
  return c.req.url.startsWith('https:');
}

/** Headers for this request's answer, whatever it turns out to be (problems included); an earlier value is replaced. */
export function addAnswerHeaders(c: Context<AppEnv>, headers: Readonly<Record<string, string>>): void {
  const gathered = c.get('answerHeaders') as Record<string, string> | undefined;
  if (gathered) Object.assign(gathered, headers);
}

/**
 * A header of an answer already made (a middleware's, after `await next()`), set on that answer's own headers. Hono's
 * `c.header` would wrap the answer in a new `Response` around its body: @hono/node-server then no longer writes the
 * body as the string it was made with but reads it as a stream, chunk by chunk (the most of a form's server CPU
 * after its handler). An answer whose headers cannot change (one fetched) still goes through `c.header`.
 */
export function setAnswerHeader(c: Context<AppEnv>, name: string, value: string, append = false): void {
  const headers = c.res.headers;
  try {
    if (append) headers.append(name, value);
    else headers.set(name, value);
  } catch {
    c.header(name, value, append ? { append: true } : undefined);
  }
}

/**
 * An answer built whole, for the hot paths (a 304, a kept page): the headers gathered for the request (security
 * headers, request id, rate limits, CORS) and the route's own, in the one plain object the request carries. Nothing
 * is added to it afterwards (the root middleware knows it), so Hono and @hono/node-server write it without making
 * a `Headers` object.
 */
export function completeAnswer(
  c: Context<AppEnv>,
  body: Uint8Array<ArrayBuffer> | null,
  status: number,
  headers: Readonly<Record<string, string>>,
): Response {
  const all = Object.assign(c.get('answerHeaders') ?? Object.assign({}, isHttps(c) ? overHttps : overHttp), headers);
  const res = new Response(body, { status, headers: all });
  complete.add(res);
  return res;
}

/**
 * Where the reference page loads @scalar/api-reference's standalone bundle from: this host, from the project's
 * pinned dependency (lib/compose.ts), so the page needs no other origin.
 */
export const docsScriptPath = '/api/v1/docs/api-reference.js';

/** A CSP source allowing one inline script: `'sha256-<base64 of its SHA-256>'`. */
async function hashSource(script: string): Promise<string> {
  return `'sha256-${btoa(String.fromCharCode(...(await sha256(script))))}'`;
}

/**
 * The reference page's CSP: its script from this host only and its inline scripts by their hash (computed from the
 * page itself, so a new Scalar version stays allowed and nothing else inline runs), Scalar's inline styles, fonts
 * and images from this host or inline, the OpenAPI document and "try it" requests to this host only, never framed.
 */
export function docsPagePolicy(): MiddlewareHandler<AppEnv> {
  let cached: { html: string; policy: string } | undefined;
  return async (c, next) => {
    await next();
    if (c.res.status !== 200) return;
    const html = await c.res.clone().text();
    if (cached?.html !== html) {
      const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');
      const hashes = await Promise.all(inline.map(hashSource));
      const policy = [
        "default-src 'none'",
        `script-src ${["'self'", ...hashes].join(' ')}`,
        "style-src 'self' 'unsafe-inline'",
        "font-src 'self' data:",
        "img-src 'self' data:",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
      ].join('; ');
      cached = { html, policy };
    }
    c.res.headers.set('Content-Security-Policy', cached.policy);
  };
}
