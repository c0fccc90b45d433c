import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopes } from '../../schema/common/scopes';
import { book, type Ctx, newHome, setup, stays } from '../stay/support';
import { createKey } from '../support/world';

// raw: the transport itself (the headers of every answer, any route, status or scheme, pages and refusals)

let ctx: Ctx;
let key: string;
let person: string;

beforeAll(async () => {
  ctx = await setup();
  key = (await createKey(ctx.api, ctx.company.id, { scopes: [...scopes] })).secret;
  const contact = await call('/contacts', { name: 'Mona Buyer', email: 'mona.headers@example.com' });
  expect(contact.status, contact.text).toBe(201);
  person = contact.json.reference;
});
afterAll(() => ctx?.api.close());

function call(path: string, body?: unknown, o: { key?: string | null } = {}) {
  const k = o.key === undefined ? key : (o.key ?? undefined);
  return ctx.api.request(`/api/v1${path}`, { host: ctx.company.host, key: k, body });
}

/** What every answer carries, whatever its route, status or body. */
function expectSecurityHeaders(headers: Headers) {
  expect(headers.get('X-Content-Type-Options')).toBe('nosniff');
  expect(headers.get('Referrer-Policy')).toBe('no-referrer');
  expect(headers.get('X-Frame-Options')).toBe('DENY');
  // Public reads are meant for other sites: no resource policy that would block them.
  expect(headers.get('Cross-Origin-Resource-Policy')).toBeNull();
  // Only on https requests (below).
  expect(headers.get('Strict-Transport-Security')).toBeNull();
}

describe('security headers', () => {
  it('a catalogue read keeps its own caching and CORS, and gains the security headers', async () => {
    for (const k of [null, key]) {
      const res = await call('/listings', undefined, { key: k });
      expect(res.status, res.text).toBe(200);
      expectSecurityHeaders(res.headers);
      expect(res.headers.get('Content-Security-Policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('Cache-Control')).toMatch(/^public, max-age=\d+/);
      expect(res.headers.get('ETag')).toBeTruthy();
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    }
  });

  it('answers of server-key routes are never stored: CRM reads, writes and their refusals', async () => {
    const reads = ['/contacts', `/contacts/${person}`, '/leads', '/activities', '/tasks', '/members', '/departments'];
    for (const path of reads) {
      const res = await call(path);
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      expectSecurityHeaders(res.headers);
      expect(res.headers.get('Cache-Control'), path).toBe('no-store');
    }
    const write = await call('/contacts', { email: 'other.headers@example.com' });
    expect(write.status, write.text).toBe(201);
    expect(write.headers.get('Cache-Control')).toBe('no-store');
    // A form's answer too (a server key posting an enquiry is answered with the lead).
    const lead = await call('/leads', { consent: true, consent_version: '2026-01', email: 'lead.headers@example.com' });
    expect(lead.status, lead.text).toBe(201);
    expect(lead.headers.get('Cache-Control')).toBe('no-store');
    for (const refused of [await call('/contacts', undefined, { key: null }), await call('/contacts?page_size=x')]) {
      expect(refused.headers.get('Content-Type')).toBe('application/problem+json');
      expectSecurityHeaders(refused.headers);
      expect(refused.headers.get('Cache-Control')).toBe('no-store');
    }
  });

  it('admin answers are never stored', async () => {
    for (const path of [`/companies/${ctx.company.id}`, `/companies/${ctx.company.id}/audit-log`, '/companies/nope']) {
      const res = await ctx.api.admin(path);
      expectSecurityHeaders(res.headers);
      expect(res.headers.get('Cache-Control'), path).toBe('no-store');
    }
  });

  it('a problem answer for an unknown route is nosniff too', async () => {
    const res = await call('/nothing-here');
    expect(res.status).toBe(404);
    expect(res.headers.get('Content-Type')).toBe('application/problem+json');
    expectSecurityHeaders(res.headers);
  });

  it('sends Strict-Transport-Security on https requests only', async () => {
    for (const scheme of ['https', 'http']) {
      const res = await ctx.api.app.request(`${scheme}://${ctx.company.host}/api/v1/listings`);
      expect(res.status).toBe(200);
      expect(res.headers.get('Strict-Transport-Security')).toBe(scheme === 'https' ? 'max-age=63072000' : null);
      expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    }
  });

  it('the docs page allows its own script from this host and exactly its own inline scripts', async () => {
    const res = await ctx.api.request('/api/v1/docs', { host: ctx.company.host });
    expect(res.status).toBe(200);
    const csp = res.headers.get('Content-Security-Policy') ?? '';
    const directives = new Map(csp.split(/;\s*/).map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    const inline = [...res.text.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1] ?? '');
    expect(inline.length).toBeGreaterThan(0);
    const hashes = inline.map((s) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`);
    expect(directives.get('script-src')).toEqual(["'self'", ...hashes]);
    expect(res.text).toContain('<script src="/api/v1/docs/api-reference.js"></script>');
    expect(csp).not.toMatch(/https?:/);
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
  });

  it('the stay page keeps its own headers', async () => {
    const home = await newHome(ctx);
    const [checkIn, checkOut] = stays(40)();
    const booking = await book(ctx, home, checkIn as string, checkOut as string);
    const res = await ctx.api.app.request(booking.stay_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Security-Policy')).toBe(
      "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    );
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    expect(res.headers.get('X-Robots-Tag')).toBe('noindex');
    expectSecurityHeaders(res.headers);
  });
});
