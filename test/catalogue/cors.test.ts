import { describe, expect, it } from 'vitest';
import { publicReads } from './support';
import { testClient } from '../support/client';
import { createKey, useApi, useDemoCompany } from '../support/world';

const api = useApi();
const company = useDemoCompany(api, { team_module: true, bookings_enabled: true });

const page = 'https://www.any-site.example';
/** The typed client of a page on any site: no key, its Origin. */
const browser = () => testClient(api, { host: company.host, headers: { Origin: page } });

describe('public reads from any page in the browser', () => {
  it.each(publicReads)(
    'grants %s to every origin, without credentials, exposing the request id and the ETag',
    async (_path, call) => {
      const { response: res } = await call(browser());
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
      expect(exposed).toEqual(expect.arrayContaining(['Request-Id', 'ETag', 'RateLimit']));
    },
  );

  it("grants a holiday home's availability and quote, and the problem of dates it cannot take", async () => {
    const slug = 'palm-5br-villa-private-beach-holiday';
    const client = browser();
    const availability = await client.GET('/api/v1/listings/{slug}/availability', { params: { path: { slug } } });
    expect(availability.response.status, JSON.stringify(availability.error)).toBe(200);
    expect(availability.response.headers.get('access-control-allow-origin')).toBe('*');
    const open = availability.data!;
    const day = (n: number) => new Date(Date.parse(`${open.from}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
    const stay = (check_in: string, check_out: string) =>
      client.GET('/api/v1/listings/{slug}/quote', { params: { path: { slug }, query: { check_in, check_out, guests: 2 } } });
    const quote = await stay(day(7), day(7 + open.min_nights));
    expect(quote.response.status, JSON.stringify(quote.error)).toBe(200);
    expect(quote.response.headers.get('access-control-allow-origin')).toBe('*');
    const tooShort = await stay(day(7), day(8));
    expect(tooShort.response.status).toBe(400);
    expect(tooShort.error?.code).toBe('min_nights');
    expect(tooShort.response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('grants the 304 of a revalidation and a problem answer, so a page can read their status and detail', async () => {
    const client = browser();
    const first = await client.GET('/api/v1/listings');
    const etag = first.response.headers.get('etag') ?? '';
    const revalidated = await client.GET('/api/v1/listings', { headers: { 'If-None-Match': etag } });
    expect(revalidated.response.status).toBe(304);
    expect(revalidated.response.headers.get('access-control-allow-origin')).toBe('*');
    const missing = await client.GET('/api/v1/listings/{slug}', { params: { path: { slug: 'no-such-listing' } } });
    expect(missing.response.status).toBe(404);
    expect(missing.response.headers.get('access-control-allow-origin')).toBe('*');
    expect(missing.error?.detail).toEqual(expect.any(String));
  });

  it('answers no preflight, so a page cannot send a key to a read', async () => {
    for (const headers of ['Authorization', 'X-Api-Key']) {
      // raw: a CORS preflight (OPTIONS), which the typed client does not send
      const preflight = await api.request('/api/v1/listings', {
        method: 'OPTIONS',
        host: company.host,
        headers: { Origin: page, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': headers },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      expect(preflight.headers.get('access-control-allow-headers')).toBeNull();
    }
  });

  it('leaves the server-key routes beside them without any grant', async () => {
    const { secret } = await createKey(api, company.id, { scopes: ['read:contacts', 'read:leads'] });
    const client = testClient(api, { host: company.host, serverKey: secret, headers: { Origin: page } });
    for (const [path, call] of [
      ['/api/v1/contacts', () => client.GET('/api/v1/contacts')],
      ['/api/v1/leads', () => client.GET('/api/v1/leads')],
    ] as const) {
      const { response: res } = await call();
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
    }
  });
});
