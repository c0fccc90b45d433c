import { describe, expect, it } from 'vitest';
import { testClient } from '../support/client';
import type { TestApi } from '../support/harness';
import {
  enquiry,
  type FormCompany,
  formCompany,
  formsForFile,
  keysOf,
  postForm,
  publishableKey,
  site,
  type Verifier,
} from './support';

let api: TestApi;
let verifier: Verifier;
let company: FormCompany;
formsForFile((file) => ({ api, verifier, company } = file));

/** What a browser sends before a POST with X-Api-Key and a JSON body. */
const preflight = (host: string, origin: string, path = '/api/v1/leads', method = 'POST') =>
  // raw: a CORS preflight (OPTIONS), which the typed client does not send
  api.request(path, {
    method: 'OPTIONS',
    host,
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': method,
      'Access-Control-Request-Headers': 'x-api-key,content-type',
    },
  });

const varyOf = (res: { headers: Headers }) => (res.headers.get('vary') ?? '').split(/\s*,\s*/).map((v) => v.toLowerCase());

describe('CORS of POST /leads', () => {
  it('grants a preflight from a listed origin: that origin (never *), Vary: Origin, the form headers only', async () => {
    const res = await preflight(company.host, site);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(site);
    expect(varyOf(res)).toContain('origin');
    expect(res.headers.get('access-control-allow-headers')).toBe('X-Api-Key,Content-Type,Idempotency-Key,Api-Version');
    expect(res.headers.get('access-control-allow-methods')).toBe('POST');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('grants nothing to an origin no key lists, nor to "null"', async () => {
    for (const origin of ['https://evil.example.net', 'http://www.example.com', 'null']) {
      const res = await preflight(company.host, origin);
      expect(res.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
  });

  it('carries the grant on the actual POST from a listed origin, success or refusal', async () => {
    const created = await postForm(api, company, enquiry(verifier));
    expect(created.status).toBe(201);
    expect(created.headers.get('access-control-allow-origin')).toBe(site);
    expect(varyOf(created)).toContain('origin');
    // A page must be able to read why it was refused, so refusals carry it too.
    const refused = await postForm(api, company, { ...enquiry(verifier), consent: false });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('access-control-allow-origin')).toBe(site);
    const elsewhere = await postForm(api, company, enquiry(verifier), { origin: 'https://evil.example.net' });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('carries the grant on the 413 of an oversized form, on /leads and /bookings, refused before any key check', async () => {
    // A browser sends Content-Length, so the body limit refuses before the form's route runs.
    const body = JSON.stringify({ ...enquiry(verifier), message: 'x'.repeat(65 * 1024) });
    for (const path of ['/api/v1/leads', '/api/v1/bookings']) {
      for (const [origin, granted] of [
        [site, site],
        ['https://evil.example.net', null],
      ] as const) {
        // raw: an oversized body as text with the Content-Length a browser sends (fetch's Request carries none)
        const res = await api.request(path, {
          host: company.host,
          body,
          headers: { 'X-Api-Key': company.key.secret, Origin: origin, 'Content-Length': String(body.length) },
        });
        expect(res.status, `${path} from ${origin}`).toBe(413);
        expect(res.json.code).toBe('payload_too_large');
        expect(res.headers.get('access-control-allow-origin'), `${path} from ${origin}`).toBe(granted);
        expect(varyOf(res)).toContain('origin');
      }
    }
  });

  it("stops granting a revoked key's origin", async () => {
    const origin = 'https://campaign.example.com';
    const key = await publishableKey(api, company.id, [origin]);
    expect((await preflight(company.host, origin)).headers.get('access-control-allow-origin')).toBe(origin);
    expect((await keysOf(api, company.id).revoke(key.prefix)).status).toBe(200);
    expect((await preflight(company.host, origin)).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('grants an origin only on the company whose key lists it', async () => {
    const other = await formCompany(api, verifier, { origins: ['https://other.example.com'] });
    expect((await preflight(other.host, site)).headers.get('access-control-allow-origin')).toBeNull();
    expect((await preflight(company.host, 'https://other.example.com')).headers.get('access-control-allow-origin')).toBeNull();
  });

  it('grants a localhost origin on a development workspace, never on production', async () => {
    const local = 'http://localhost:5173';
    const dev = await formCompany(api, verifier, { environment: 'development', origins: [local] });
    expect((await preflight(dev.host, local)).headers.get('access-control-allow-origin')).toBe(local);
    await api.db.updateTable('companies').set({ environment: 'production' }).where('id', '=', dev.id).execute();
    expect((await preflight(dev.host, local)).headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('no CORS on server-key routes', () => {
  it('gives no grant to GET /contacts or GET /leads, even from an origin a publishable key lists', async () => {
    const reader = testClient(api, { host: company.host, serverKey: company.reader.secret, headers: { Origin: site } });
    for (const [path, read] of [
      ['/api/v1/contacts', () => reader.GET('/api/v1/contacts')],
      ['/api/v1/leads', () => reader.GET('/api/v1/leads')],
    ] as const) {
      const { response: res } = await read();
      expect(res.status, path).toBe(200);
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
      const asked = await preflight(company.host, site, path, 'GET');
      expect(asked.headers.get('access-control-allow-origin'), path).toBeNull();
    }
  });
});
