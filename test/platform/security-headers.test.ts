import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scopes } from '../../schema/common/scopes';
import { answer, book, type Ctx, newHome, setup, stays } from '../stay/support';
import { type TestClient, testClient } from '../support/client';
import { adminOf, createKey } from '../support/world';

let ctx: Ctx;
/** The typed client on a key with every scope, and without a key. */
let client: TestClient;
let anonymous: TestClient;
let key: string;
let person: string;

beforeAll(async () => {
  ctx = await setup();
  key = (await createKey(ctx.api, ctx.company.id, { scopes: [...scopes] })).secret;
  client = testClient(ctx.api, { host: ctx.company.host, serverKey: key });
  anonymous = testClient(ctx.api, { host: ctx.company.host });
  const contact = await answer(
    client.POST('/api/v1/contacts', { body: { name: 'Mona Buyer', email: 'mona.headers@example.com' } }),
  );
  expect(contact.status, contact.text).toBe(201);
  person = contact.json.reference;
});
afterAll(() => ctx?.api.close());

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
    for (const reader of [anonymous, client]) {
      const res = await answer(reader.GET('/api/v1/listings'));
      expect(res.status, res.text).toBe(200);
      expectSecurityHeaders(res.headers);
      expect(res.headers.get('Content-Security-Policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('Cache-Control')).toMatch(/^public, max-age=\d+/);
      expect(res.headers.get('ETag')).toBeTruthy();
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
    }
  });

  it('answers of server-key routes are never stored: CRM reads, writes and their refusals', async () => {
    const reads: Array<[string, () => Promise<{ error?: unknown; response: Response }>]> = [
      ['/contacts', () => client.GET('/api/v1/contacts')],
      [`/contacts/${person}`, () => client.GET('/api/v1/contacts/{reference}', { params: { path: { reference: person } } })],
      ['/leads', () => client.GET('/api/v1/leads')],
      ['/activities', () => client.GET('/api/v1/activities')],
      ['/tasks', () => client.GET('/api/v1/tasks')],
      ['/members', () => client.GET('/api/v1/members')],
      ['/departments', () => client.GET('/api/v1/departments')],
    ];
    for (const [path, read] of reads) {
      const res = await answer(read());
      expect(res.status, `${path}: ${res.text}`).toBe(200);
      expectSecurityHeaders(res.headers);
      expect(res.headers.get('Cache-Control'), path).toBe('no-store');
    }
    const write = await answer(client.POST('/api/v1/contacts', { body: { email: 'other.headers@example.com' } }));
    expect(write.status, write.text).toBe(201);
    expect(write.headers.get('Cache-Control')).toBe('no-store');
    // A form's answer too (a server key posting an enquiry is answered with the lead).
    const lead = await answer(
      client.POST('/api/v1/leads', { body: { consent: true, consent_version: '2026-01', email: 'lead.headers@example.com' } }),
    );
    expect(lead.status, lead.text).toBe(201);
    expect(lead.headers.get('Cache-Control')).toBe('no-store');
    const refusals = [
      await answer(anonymous.GET('/api/v1/contacts')),
      await answer(client.GET('/api/v1/contacts', { params: { query: { page_size: 'x' as never } } })),
    ];
    for (const refused of refusals) {
      expect(refused.headers.get('Content-Type')).toBe('application/problem+json');
      expectSecurityHeaders(refused.headers);
      expect(refused.headers.get('Cache-Control')).toBe('no-store');
    }
  });

  it('admin answers are never stored', async () => {
    const admin = adminOf(ctx.api);
    const reads: Array<[string, () => Promise<{ response: Response }>]> = [
      [ctx.company.id, () => admin.GET('/admin/v1/companies/{company_id}', { params: { path: { company_id: ctx.company.id } } })],
      [
        `${ctx.company.id}/audit-log`,
        () => admin.GET('/admin/v1/companies/{company_id}/audit-log', { params: { path: { company_id: ctx.company.id } } }),
      ],
      ['nope', () => admin.GET('/admin/v1/companies/{company_id}', { params: { path: { company_id: 'nope' } } })],
    ];
    for (const [path, read] of reads) {
      const { headers } = (await read()).response;
      expectSecurityHeaders(headers);
      expect(headers.get('Cache-Control'), path).toBe('no-store');
    }
  });

  it('a problem answer for an unknown route is nosniff too', async () => {
    // raw: a route the document does not have
    const res = await ctx.api.request('/api/v1/nothing-here', { host: ctx.company.host, key });
    expect(res.status).toBe(404);
    expect(res.headers.get('Content-Type')).toBe('application/problem+json');
    expectSecurityHeaders(res.headers);
  });

  it('sends Strict-Transport-Security on https requests only', async () => {
    for (const scheme of ['https', 'http']) {
      // raw: over https and http, while the typed client of the test API speaks http only
      const res = await ctx.api.app.request(`${scheme}://${ctx.company.host}/api/v1/listings`);
      expect(res.status).toBe(200);
      expect(res.headers.get('Strict-Transport-Security')).toBe(scheme === 'https' ? 'max-age=63072000' : null);
      expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    }
  });

  it('the docs page allows its own script from this host and exactly its own inline scripts', async () => {
    // raw: the reference page (HTML), outside the API's document
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
    // raw: the stay page (HTML), outside the API's document
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
