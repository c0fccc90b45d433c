import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testClient } from '../support/client';
import { createTestApi, type TestApi } from '../support/harness';
import { onLoopback } from './support';
import { adminOf, createCompany, createKey, demoCompany, importCatalogue } from '../support/world';
import { currentVersion } from '../../lib/versions';

/**
 * A 304 and a page served from memory are answered whole from one plain header object (lib/security-headers.ts,
 * functions/catalogue/cache.ts), over a real HTTP server on loopback as `npm start` runs it: they keep every header
 * the built page has, the access check and the rate limit still come first, and no web `Request` is built for them.
 */

let api: TestApi;
let close: () => Promise<void>;
let port: number;
let company: { id: string; host: string };

beforeAll(async () => {
  api = await createTestApi({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000' } });
  company = await demoCompany(api);
  await api.platform.companyCache.settled();
  ({ port, close } = await onLoopback(api));
});
afterAll(async () => {
  await close();
  await api.close();
});

type Answer = { status: number; headers: Record<string, string>; body: string };

function get(path: string, headers: Record<string, string> = {}, host = company.host): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // raw: node:http on loopback as a site's server calls it: the headers exactly as sent and answered, and no web
    // Request or AbortController made in this process (fetch would make them, which the last test counts)
    const req = request({ host: '127.0.0.1', port, path, headers: { Host: host, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const path = '/api/v1/listings?page_size=5';
/** Headers that differ from one answer to the next by nature: the body's, the id, the remaining count, the connection. */
const ownToEachAnswer = new Set(['content-length', 'content-encoding', 'content-type', 'date', 'request-id', 'ratelimit']);
const shared = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !ownToEachAnswer.has(name)));

describe('a 304 and a page served from memory', () => {
  it('carry the headers of the page that was built: security, CORS, caching, rate limits, request id', async () => {
    const fresh = await createCompany(api, { settings: { team_module: true } });
    await importCatalogue(api, fresh.id);
    const built = await get(path, {}, fresh.host);
    expect(built.status).toBe(200);
    const kept = await get(path, {}, fresh.host);
    const compressed = await get(path, { 'Accept-Encoding': 'br' }, fresh.host);
    const revalidated = await get(path, { 'If-None-Match': built.headers.etag as string }, fresh.host);
    expect([kept.status, compressed.status, revalidated.status]).toEqual([200, 200, 304]);
    expect(kept.body).toBe(built.body);
    expect(compressed.headers['content-encoding']).toBe('br');
    for (const answer of [kept, compressed, revalidated]) {
      expect(shared(answer.headers)).toEqual(shared(built.headers));
      expect(answer.headers['request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.headers.ratelimit).toMatch(/^"anonymous";r=\d+;t=\d+$/);
    }
    // What was checked is there: the list above compares like with like.
    expect(built.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'access-control-allow-origin': '*',
      'ratelimit-policy': '"anonymous";q=1000;w=60',
      vary: 'Accept-Encoding, Api-Version',
      'api-version': currentVersion,
    });
    expect(built.headers['cache-control']).toMatch(/^public, /);
    // The client's own request id is kept on a 304 as on any answer.
    const named = await get(path, { 'If-None-Match': built.headers.etag as string, 'Request-Id': 'site-42' }, fresh.host);
    expect(named.headers['request-id']).toBe('site-42');
  });

  it('are refused to a wrong, revoked or publishable key, as a built page is, never answered 304', async () => {
    const etag = (await get(path)).headers.etag as string;
    const revoked = await createKey(api, company.id, { scopes: ['read:listings'] });
    await adminOf(api).POST('/admin/v1/companies/{company_id}/keys/{prefix}/revoke', {
      params: { path: { company_id: company.id, prefix: revoked.prefix } },
    });
    const publishable = await createKey(api, company.id, {
      kind: 'publishable',
      origins: ['https://site.example'],
      lead_types: ['enquiry'],
    });
    const refusals: Array<[Record<string, string>, string]> = [
      [{ Authorization: 'Bearer sk_nothing_of_ours' }, 'key_invalid'],
      [{ Authorization: `Bearer ${revoked.secret}` }, 'key_revoked'],
      [{ 'X-Api-Key': publishable.secret }, 'key_wrong_kind'],
    ];
    for (const [headers, code] of refusals) {
      for (const extra of [{ 'If-None-Match': etag }, {}] as Array<Record<string, string>>) {
        const res = await get(path, { ...headers, ...extra });
        expect(res.status, JSON.stringify(headers)).toBe(403);
        expect(JSON.parse(res.body).code).toBe(code);
        expect(res.headers['content-type']).toBe('application/problem+json');
        expect(res.headers['cache-control'] ?? '').not.toContain('public');
      }
    }
    const unknownHost = await get(path, { 'If-None-Match': etag }, 'nobody.example');
    expect(unknownHost.status).toBe(404);
  });

  it('count against the rate limit: a 304 beyond it is a 429 with Retry-After', async () => {
    const limited = await createTestApi({ env: { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '3' }, handle: api.handle });
    // Time is an input: every request at one instant in the middle of a minute, so the window holds them all.
    vi.useFakeTimers({ toFake: ['Date'], now: Math.floor(Date.now() / 60_000) * 60_000 + 30_000 });
    try {
      const client = testClient(limited, { host: company.host, headers: { 'x-test-client-address': '198.51.100.7' } });
      const page = { params: { query: { page_size: 5 } } };
      const etag = (await client.GET('/api/v1/listings', page)).response.headers.get('etag') as string;
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        const { response: res } = await client.GET('/api/v1/listings', { ...page, headers: { 'If-None-Match': etag } });
        statuses.push(res.status);
        if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        else expect(res.headers.get('ratelimit')).toBe(`"anonymous";r=${1 - i};t=30`);
      }
      expect(statuses).toEqual([304, 304, 429]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('carry Strict-Transport-Security on https, as every answer there does', async () => {
    const { response: first } = await testClient(api, { host: company.host }).GET('/api/v1/listings', {
      params: { query: { page_size: 5 } },
    });
    const etag = first.headers.get('etag') as string;
    // raw: over https, which the typed client of the test API (on http) does not speak
    const res = await api.app.request(`https://${company.host}${path}`, { headers: { 'If-None-Match': etag } });
    expect(res.status).toBe(304);
    expect(res.headers.get('strict-transport-security')).toBe('max-age=63072000');
    const plain = await get(path, { 'If-None-Match': etag });
    expect(plain.headers['strict-transport-security']).toBeUndefined();
  });

  it('build no web Request (node-server builds one, with an AbortController, only when a body or signal is asked for)', async () => {
    const etag = (await get(path)).headers.etag as string;
    const Original = globalThis.AbortController;
    let made = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        made++;
      }
    };
    try {
      expect((await get(path, { 'If-None-Match': etag })).status).toBe(304);
      expect((await get(path)).status).toBe(200);
      expect(made).toBe(0);
      const post = (headers: Record<string, string>, chunks: string[]) =>
        new Promise<void>((resolve, reject) => {
          const req = request(
            {
              host: '127.0.0.1',
              port,
              path: '/api/v1/leads',
              method: 'POST',
              headers: { Host: company.host, 'Content-Type': 'application/json', ...headers },
            },
            (res) => {
              res.resume();
              res.on('end', resolve);
            },
          );
          req.on('error', reject);
          for (const chunk of chunks.slice(0, -1)) req.write(chunk);
          req.end(chunks.at(-1));
        });
      // A form's body with its length is read from the socket as it is (lib/app.ts): still none built.
      await post({ 'Content-Length': '2' }, ['{}']);
      expect(made).toBe(0);
      // A chunked body is counted as it streams (hono/body-limit), so its request is built: the count sees it.
      await post({ 'Transfer-Encoding': 'chunked' }, ['{', '}']);
      expect(made).toBeGreaterThan(0);
    } finally {
      globalThis.AbortController = Original;
    }
  });
});
