import type { MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { Access } from '../schema/common/scopes';
import { sha256 } from './crypto';
import type { AppEnv } from './env';

/** Two years; no includeSubDomains and no preload: a company's host may be its apex domain, whose other names we do not serve. */
export const hstsValue = 'max-age=63072000';

/**
 * Security headers of every answer (hono/secure-headers): `nosniff`, `Referrer-Policy: no-referrer`, framing
 * refused, and a CSP that lets a JSON or problem answer load nothing. No Cross-Origin-Resource-Policy: the public
 * reads are meant for other sites. Headers a handler set itself are kept (the stay page's, the docs page's CSP).
 * Strict-Transport-Security only on an https request: a browser ignores it over http, and RFC 6797 forbids it there.
 */
export function securityHeaders(): MiddlewareHandler<AppEnv> {
  const options: Parameters<typeof secureHeaders>[0] = {
    contentSecurityPolicy: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
    crossOriginResourcePolicy: false,
    xFrameOptions: 'DENY',
    referrerPolicy: 'no-referrer',
    overwrite: false,
  };
  const plain = secureHeaders({ ...options, strictTransportSecurity: false });
  const tls = secureHeaders({ ...options, strictTransportSecurity: hstsValue });
  return async (c, next) => {
    const https = new URL(c.req.url).protocol === 'https:';
    await (https ? tls : plain)(c, next);
    // Answers of key-holding and admin routes may hold personal data: no cache keeps them. Public reads set their own.
    const access = c.get('access') as Access | undefined;
    if (access && access.kind !== 'public') c.res.headers.set('Cache-Control', 'no-store');
  };
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
