import { beforeAll, describe, expect, it } from 'vitest';
import { testClient } from '../support/client';
import { adminOf, demoCompany, useApi } from '../support/world';

let host: string;

const api = useApi();
beforeAll(async () => {
  ({ host } = await demoCompany(api));
});

/** The listings through the typed client without a key, with `query` as sent (any values: the refusals too). */
const listings = (query: Record<string, unknown> = {}) =>
  testClient(api, { host }).GET('/api/v1/listings', { params: { query: query as never } });
const companies = () => adminOf(api).GET('/admin/v1/companies');

describe('problem responses', () => {
  it('answers an unknown host with 404 unknown_host as problem+json with a request id', async () => {
    // raw: a Host that names no company (the typed client is made for a company's host)
    const res = await api.request('/api/v1/listings', { host: 'nobody.test' });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.json).toMatchObject({ status: 404, code: 'unknown_host', type: expect.stringContaining('unknown_host') });
    expect(res.json.request_id).toBe(res.headers.get('request-id'));
  });

  it('puts a Request-Id on successful responses too', async () => {
    const res = await listings();
    expect(res.response.status).toBe(200);
    expect(res.response.headers.get('request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses unknown query parameters, naming each one', async () => {
    const res = await listings({ colour: 'blue', size: 'big' });
    expect(res.response.status).toBe(400);
    expect(res.error?.code).toBe('invalid_request');
    expect(res.error?.errors?.map((e) => e.path).sort()).toEqual(['colour', 'size']);
  });

  it.each([
    ['page_size=0', 'page_size'],
    ['page_size=101', 'page_size'],
    ['page_size=abc', 'page_size'],
    ['type=castle', 'type'],
    ['bedrooms_min=-1', 'bedrooms_min'],
    ['bedrooms_min=3&bedrooms_max=2', 'bedrooms_max'],
    ['sort=random', 'sort'],
    ['featured=maybe', 'featured'],
  ])('refuses out-of-range value %s with 400 naming %s', async (query, field) => {
    const res = await listings(Object.fromEntries(new URLSearchParams(query)));
    expect(res.response.status).toBe(400);
    expect(res.error?.errors?.map((e) => e.path)).toContain(field);
  });

  it('answers a malformed cursor with invalid_cursor, not a 500', async () => {
    for (const cursor of ['garbage', 'WyJuZXdlc3QiXQ', '["featured","x","y","z"]']) {
      const res = await listings({ cursor });
      expect(res.response.status).toBe(400);
      expect(res.error?.code).toBe('invalid_cursor');
    }
  });

  it('refuses a cursor whose values are not of the column type without a 500', async () => {
    const forged = Buffer.from(JSON.stringify(['featured', 'notabool', 'notadate', 'notauuid'])).toString('base64url');
    const res = await listings({ cursor: forged });
    expect(res.response.status).toBe(400);
    expect(res.error?.code).toBe('invalid_cursor');
  });

  it('answers unknown routes with a 404 problem', async () => {
    // raw: a path the API does not declare
    const res = await api.request('/api/v1/nothing-here', { host });
    expect(res.status).toBe(404);
    expect(res.json.code).toBe('not_found');
  });

  it('answers malformed JSON bodies with invalid_json', async () => {
    // raw: a body that is not JSON
    const res = await api.admin('/companies', { body: '{"name": ', headers: { 'Content-Type': 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('invalid_json');
  });

  it('answers a body that is not JSON by its Content-Type with 415, and creates nothing', async () => {
    const before = (await companies()).data?.results.length;
    const body = { name: 'x', hosts: ['ct.test'], environment: 'production', currency: 'AED', time_zone: 'Asia/Dubai' };
    // raw: a JSON body sent as text/plain (the typed client always says application/json)
    const res = await api.admin('/companies', { body: JSON.stringify(body), headers: { 'Content-Type': 'text/plain' } });
    expect(res.status).toBe(415);
    expect(res.json.code).toBe('unsupported_media_type');
    expect(before).toBeGreaterThan(0);
    expect((await companies()).data?.results.length).toBe(before);
  });

  it('answers oversized bodies with 413', async () => {
    const res = await adminOf(api).POST('/admin/v1/companies', { body: { name: 'x'.repeat(9 * 1024 * 1024) } as never });
    expect(res.response.status).toBe(413);
    expect(res.error?.code).toBe('payload_too_large');
  });
});
