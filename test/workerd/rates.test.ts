/**
 * Daily rates and restrictions (issue 37) in the BUILT stay and catalogue Workers in workerd (Neon driver → local
 * PostgreSQL): a server key with `write:listings` sets a holiday home's own price and rules by date through the stay
 * Worker; its quotes and the catalogue Worker's free-dates search read the same rule (lib/calendar.ts) at once.
 */
import { randomBytes } from 'node:crypto';
import type { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createKey } from '../../lib/keys';
import { bundleOf, demoCompany, startWorkerd, type Workerd, workerClient } from './support';

const suffix = randomBytes(4).toString('hex');
const host = `r${suffix}.workerd.test`;
/** A demo holiday home (its terms: three nights at least, arrivals any day). */
const home = 'palm-5br-villa-private-beach-holiday';
let workerd: Workerd | undefined;
let mf: Miniflare | undefined;
let writer = '';
let reader = '';

beforeAll(async () => {
  workerd = await startWorkerd({
    template: inject('workerdTemplate'),
    databaseName: `pa_workerd_rates_${suffix}`,
    applicationName: 'pa_workerd_rates',
    workers: [
      { name: 'stay', bundle: bundleOf('stay') },
      { name: 'catalogue', bundle: bundleOf('catalogue') },
    ],
    seed: async (db) => {
      await db.db.transaction().execute(async (trx) => {
        const company = await demoCompany(trx, 'Workerd Rates', host);
        writer = (await createKey(trx, company.id, { kind: 'server', scopes: ['write:listings', 'read:listings'] }, 'admin'))
          .secret;
        reader = (await createKey(trx, company.id, { kind: 'server', scopes: ['read:listings'] }, 'admin')).secret;
      });
    },
  });
  ({ mf } = workerd);
});

afterAll(async () => {
  await workerd?.close();
});

/** A date of the coming year (the Workers read the real clock; the rules take nights up to 730 days ahead). */
const day = (offset: number) => {
  const next = new Date(Date.UTC(new Date().getUTCFullYear() + 1, 2, 1) + offset * 86_400_000);
  return next.toISOString().slice(0, 10);
};

const stay = (key?: string) => workerClient(() => mf, 'stay', { host, serverKey: key });
const quoteOf = (checkIn: string, checkOut: string) =>
  stay().GET('/api/v1/listings/{slug}/quote', {
    params: { path: { slug: home }, query: { check_in: checkIn, check_out: checkOut, guests: 2 } },
  });
const codesOf = (res: { error?: unknown }) =>
  ((res.error as { errors?: Array<{ code: string }> })?.errors ?? []).map((e) => e.code);

describe('daily rates in the stay and catalogue Workers', () => {
  it('a server key sets a night’s price and rules; quotes and the free-dates search follow at once', async () => {
    const before = await quoteOf(day(10), day(13));
    expect(before.response.status, JSON.stringify(before.error)).toBe(200);
    const usual = before.data?.nights[1]?.price;
    expect(before.data?.nights[0]?.price).not.toBe('777.00');

    const rates = [
      { starts_on: day(10), ends_on: day(11), price: '777.00', min_nights: 2 },
      { starts_on: day(15), ends_on: day(16), closed_to_arrival: true },
      { starts_on: day(20), ends_on: day(21), closed: true },
    ];
    const refused = await stay(reader).PUT('/api/v1/listings/{slug}/rates', {
      params: { path: { slug: home } },
      body: { rates } as never,
    });
    expect(refused.response.status).toBe(403);
    const set = await stay(writer).PUT('/api/v1/listings/{slug}/rates', {
      params: { path: { slug: home } },
      body: { rates } as never,
    });
    expect(set.response.status, JSON.stringify(set.error)).toBe(200);
    expect(set.data).toMatchObject({ listing: home, starts_on: day(10), ends_on: day(21), nights: 3 });

    const read = await stay(reader).GET('/api/v1/listings/{slug}/rates', {
      params: { path: { slug: home }, query: { from: day(0), to: day(30) } },
    });
    expect(read.response.status).toBe(200);
    expect(read.data?.rates.map((r) => r.starts_on)).toEqual([day(10), day(15), day(20)]);

    // The night's own price, and its minimum stay for arrivals that day (2, where the home's terms say 3: the date's
    // own rule wins).
    const priced = await quoteOf(day(10), day(12));
    expect(priced.response.status).toBe(200);
    expect(priced.data?.nights[0]).toMatchObject({ date: day(10), rate: 'daily', price: '777.00' });
    expect(priced.data?.nights[1]?.price).toBe(usual);
    expect(codesOf(await quoteOf(day(10), day(11)))).toEqual(['min_nights']);
    // Closed to arrival: no stay starts that day; one across it is taken.
    expect(codesOf(await quoteOf(day(15), day(18)))).toEqual(['arrival_day']);
    expect((await quoteOf(day(14), day(17))).response.status).toBe(200);
    // A closed night.
    expect(codesOf(await quoteOf(day(19), day(22)))).toEqual(['unavailable']);

    // The catalogue Worker's free-dates search meets the same rules, with the same quote.
    const catalogue = workerClient(() => mf, 'catalogue', { host });
    const free = async (checkIn: string, checkOut: string) => {
      const page = await catalogue.GET('/api/v1/listings', {
        params: { query: { check_in: checkIn, check_out: checkOut, guests: 2, page_size: 100 } as never },
      });
      expect(page.response.status).toBe(200);
      const results = (page.data as unknown as { results: Array<{ slug: { en: string }; quote?: { total: string } }> }).results;
      return new Map(results.map((r) => [r.slug.en, r.quote]));
    };
    expect((await free(day(15), day(18))).has(home)).toBe(false);
    expect((await free(day(19), day(22))).has(home)).toBe(false);
    expect((await free(day(14), day(17))).has(home)).toBe(true);
    expect((await free(day(10), day(11))).has(home)).toBe(false);
    const found = await free(day(10), day(12));
    expect(found.get(home)?.total).toBe(priced.data?.total);
  });
});
