import { describe, expect, it } from 'vitest';
import { bySlug } from './support';
import { createKey, useApi, useDemoCompany } from '../support/world';

const api = useApi();
const company = useDemoCompany(api, { team_module: true, bookings_enabled: true });

const sea = bySlug('marina-gate-2br-sea-view');
const page = 'https://www.any-site.example';

describe('public reads from any page in the browser', () => {
  it.each([
    '/api/v1/listings',
    '/api/v1/listings?type=lease&page_size=3',
    '/api/v1/listings/map?cover=1',
    `/api/v1/listings/${sea.slug.en}`,
    `/api/v1/listings/${encodeURIComponent(sea.slug.ar)}`,
    '/api/v1/areas',
    '/api/v1/filters',
    '/api/v1/team',
    '/api/v1/sitemap',
    '/api/v1/services',
  ])('grants %s to every origin, without credentials, exposing the request id and the ETag', async (path) => {
    const res = await api.request(path, { host: company.host, headers: { Origin: page } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['Request-Id', 'ETag', 'RateLimit']));
  });

  it("grants a holiday home's availability and quote, and the problem of dates it cannot take", async () => {
    const home = '/api/v1/listings/palm-5br-villa-private-beach-holiday';
    const availability = await api.request(`${home}/availability`, { host: company.host, headers: { Origin: page } });
    expect(availability.status, availability.text).toBe(200);
    expect(availability.headers.get('access-control-allow-origin')).toBe('*');
    const day = (n: number) =>
      new Date(Date.parse(`${availability.json.from}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
    const stay = (checkIn: string, checkOut: string) =>
      api.request(`${home}/quote?check_in=${checkIn}&check_out=${checkOut}&guests=2`, {
        host: company.host,
        headers: { Origin: page },
      });
    const quote = await stay(day(7), day(7 + availability.json.min_nights));
    expect(quote.status, quote.text).toBe(200);
    expect(quote.headers.get('access-control-allow-origin')).toBe('*');
    const tooShort = await stay(day(7), day(8));
    expect(tooShort.status).toBe(400);
    expect(tooShort.json.code).toBe('min_nights');
    expect(tooShort.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('grants the 304 of a revalidation and a problem answer, so a page can read their status and detail', async () => {
    const first = await api.request('/api/v1/listings', { host: company.host, headers: { Origin: page } });
    const etag = first.headers.get('etag') ?? '';
    const revalidated = await api.request('/api/v1/listings', {
      host: company.host,
      headers: { Origin: page, 'If-None-Match': etag },
    });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('access-control-allow-origin')).toBe('*');
    const missing = await api.request('/api/v1/listings/no-such-listing', { host: company.host, headers: { Origin: page } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe('*');
    expect(missing.json.detail).toEqual(expect.any(String));
  });

  it('answers no preflight, so a page cannot send a key to a read', async () => {
    for (const headers of ['Authorization', 'X-Api-Key']) {
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
    for (const path of ['/api/v1/contacts', '/api/v1/leads']) {
      const res = await api.request(path, { host: company.host, key: secret, headers: { Origin: page } });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
    }
  });
});
