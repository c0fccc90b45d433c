import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Ctx, newHome, setup } from '../stay/support';
import { testClient } from '../support/client';
import { createKey } from '../support/world';

/**
 * Query strings are read strictly: unknown parameters are refused one by one (`unknown_field`), and whole numbers
 * are plain decimal digits (docs/api-reference.md, "Query parameters").
 */

let ctx: Ctx;
let home: string;
let key: string;

beforeAll(async () => {
  ctx = await setup({ settings: { team_module: true } });
  home = await newHome(ctx);
  key = (await createKey(ctx.api, ctx.company.id, { scopes: ['read:listings', 'read:team', 'read:contacts'] })).secret;
}, 60_000);
afterAll(() => ctx.api.close());

/** A read of a path and query string exactly as written. */
const get = (path: string) =>
  // raw: query strings as written (unknown parameters, numbers in other spellings), outside the contract
  ctx.api.request(`/api/v1${path}`, { host: ctx.company.host, key });

describe('unknown query parameters', () => {
  it.each(['/areas', '/filters', '/team', '/services'])('%s refuses each unknown parameter by name', async (path) => {
    expect((await get(path)).status).toBe(200);
    const res = await get(`${path}?lang=en&x=1`);
    expect(res.status, res.text).toBe(400);
    expect(res.json.code).toBe('invalid_request');
    expect(res.json.errors).toEqual([
      { path: 'lang', code: 'unknown_field', message: expect.any(String) },
      { path: 'x', code: 'unknown_field', message: expect.any(String) },
    ]);
  });
});

describe('unknown query parameters on one record', () => {
  it('are refused on a listing, a person, a lead and a task too', async () => {
    const server = (
      await createKey(ctx.api, ctx.company.id, {
        scopes: ['write:contacts', 'read:contacts', 'write:leads', 'read:leads', 'write:followups', 'read:followups'],
      })
    ).secret;
    const writes = testClient(ctx.api, { host: ctx.company.host, serverKey: server });
    const person = (await writes.POST('/api/v1/contacts', { body: { email: 'strict@example.com' } })).data?.reference;
    const lead = (
      await writes.POST('/api/v1/leads', { body: { consent: true, consent_version: 'v1', email: 'strict@example.com' } })
    ).data?.reference;
    const task = (await writes.POST('/api/v1/tasks', { body: { title: 'Strict', source: 'strict', external_id: '1' } })).data
      ?.task_id;
    const paths = [`/listings/${home}`, `/contacts/${person}`, `/leads/${lead}`, `/tasks/${task}`];
    for (const path of paths) {
      const read = (query: string) =>
        // raw: a query string as written (an unknown parameter), outside the contract
        ctx.api.request(`/api/v1${path}${query}`, { host: ctx.company.host, key: path.startsWith('/listings') ? key : server });
      expect((await read('')).status, path).toBe(200);
      const res = await read('?expand=person');
      expect(res.status, `${path}: ${res.text}`).toBe(400);
      expect(res.json.errors).toEqual([{ path: 'expand', code: 'unknown_field', message: expect.any(String) }]);
    }
  });
});

describe('whole numbers in query strings', () => {
  const lax = ['1e2', '+5', '0x10', '5.0', ' 5', '5 ', '-0', '0b11', '1_0', 'Infinity', '٥', ''];

  it.each([
    ['/listings', 'page_size'],
    ['/sitemap', 'page_size'],
    ['/contacts', 'page_size'],
    ['/listings', 'bedrooms_min'],
    ['/listings', 'bedrooms_max'],
    ['/listings/map', 'guests_min'],
  ])('%s refuses %s spelled other than in plain digits', async (path, name) => {
    for (const spelling of lax) {
      const res = await get(`${path}?${name}=${encodeURIComponent(spelling)}`);
      expect(res.status, `${name}=${spelling}: ${res.text}`).toBe(400);
      expect(res.json.errors.map((e: { path: string }) => e.path)).toEqual([name]);
    }
    expect((await get(`${path}?${name}=5`)).status).toBe(200);
    expect((await get(`${path}?${name}=05`)).status).toBe(200);
  });

  it('takes page_size from 1 to 100 only', async () => {
    expect((await get('/listings?page_size=1')).json.results).toHaveLength(1);
    expect((await get('/listings?page_size=100')).status).toBe(200);
    for (const size of ['0', '101', '99999999999999999999']) expect((await get(`/listings?page_size=${size}`)).status).toBe(400);
  });

  it('refuses guests spelled other than in plain digits on a quote', async () => {
    const [checkIn, checkOut] = ['2030-01-05', '2030-01-08'];
    for (const spelling of lax) {
      const res = await get(
        `/listings/${home}/quote?check_in=${checkIn}&check_out=${checkOut}&guests=${encodeURIComponent(spelling)}`,
      );
      expect(res.status, `guests=${spelling}: ${res.text}`).toBe(400);
      expect(res.json.errors.map((e: { path: string }) => e.path)).toEqual(['guests']);
    }
  });
});
