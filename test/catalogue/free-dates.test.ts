import Big from 'big.js';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../../lib/crypto';
import {
  addBlock,
  anonymousOf,
  answer,
  bookingBody,
  day,
  newHome,
  postBooking,
  quote,
  setup,
  useStay,
  weekday,
} from '../stay/support';

/**
 * Free dates on `GET /api/v1/listings` (issue 36; functions/catalogue/free-dates.ts): `check_in`, `check_out` and
 * `guests` find the holiday homes that take the stay by the one calendar rule a booking request meets, each with its
 * quote; the answer agrees with `GET /listings/{slug}/quote` and with `POST /bookings` on random calendars.
 */
const ctx = useStay();
/** A word only this file's homes have in their title: `q` keeps the search to them (the demo has holiday homes too). */
const word = `freedates${randomToken(6).toLowerCase()}`;
const title = (n: number) => ({ title: { en: `Villa ${word} ${n}`, ar: `فيلا ${word} ${n}` } });
let homes: string[];
/** A weekday no home of `closed` takes arrivals on. */
const closedDay = weekday(day(12));

beforeAll(async () => {
  homes = [
    await newHome(ctx, { price: '400.00', max_guests: 4, listing: title(1) }),
    await newHome(ctx, { price: '500.00', terms: { min_nights: 3, turnover_days: 1 }, listing: title(2) }),
    await newHome(ctx, { price: '300.00', terms: { closed_arrival_days: [closedDay] }, listing: title(3) }),
    await newHome(ctx, { price: '900.00', max_guests: 8, terms: { cleaning_fee: '150' }, listing: title(4) }),
  ];
});

type Found = { slug: { en: string }; quote?: { listing: string; total: string; check_in: string; guests: number } };
async function search(query: Record<string, string | number>) {
  const res = await answer(
    anonymousOf(ctx).GET('/api/v1/listings', { params: { query: { q: word, page_size: 100, ...query } as never } }),
  );
  return res;
}
async function found(checkIn: string, checkOut: string, guests = 2, more: Record<string, string> = {}) {
  const res = await search({ check_in: checkIn, check_out: checkOut, guests, ...more });
  expect(res.status, res.text).toBe(200);
  return res.json as { results: Found[]; next_cursor: string | null };
}
const slugsOf = (page: { results: Found[] }) => page.results.map((r) => r.slug.en).sort();

describe('free dates', () => {
  it('finds the homes that take the stay, each with the quote GET /quote gives', async () => {
    const [a, b, c, d] = homes as [string, string, string, string];
    // a: booked on the nights; b: a stay of 2 nights is under its minimum; c: its arrival day closed (day 12); d: free.
    const res = await postBooking(ctx, bookingBody(a, day(12), day(14)));
    expect(res.status, res.text).toBe(201);
    const page = await found(day(12), day(14));
    expect(slugsOf(page)).toEqual([d]);
    const mine = page.results[0];
    const direct = await quote(ctx, d, day(12), day(14), 2);
    expect(mine?.quote).toEqual(direct.json);
    // A day later: a's stay ends on day 14 (free from then), b still needs 3 nights, c's arrival day is not closed.
    expect(slugsOf(await found(day(14), day(17)))).toEqual([a, b, c, d].sort());
    // Guests: a takes at most 4.
    expect(slugsOf(await found(day(14), day(17), 5))).toEqual([b, c, d].sort());
    // A staff block on d's nights.
    expect((await addBlock(ctx, d, day(20), day(22))).status).toBe(201);
    expect(slugsOf(await found(day(21), day(23)))).not.toContain(d);
  });

  it('applies price_min and price_max to the quote’s total, not the nightly price', async () => {
    const all = await found(day(30), day(32));
    const totals = all.results.map((r) => new Big(r.quote?.total ?? '0'));
    expect(totals.length).toBeGreaterThan(2);
    const middle = totals.sort((x, y) => x.cmp(y))[1] as Big;
    const above = await found(day(30), day(32), 2, { price_min: middle.toFixed(2) });
    expect(above.results.every((r) => new Big(r.quote?.total ?? '0').gte(middle))).toBe(true);
    expect(above.results.length).toBe(totals.filter((t) => t.gte(middle)).length);
    const below = await found(day(30), day(32), 2, { price_max: middle.toFixed(2) });
    expect(below.results.length).toBe(totals.filter((t) => t.lte(middle)).length);
  });

  it('pages through the free homes one at a time without losing or repeating one', async () => {
    const whole = slugsOf(await found(day(40), day(43)));
    const walked: string[] = [];
    let cursor: string | null | undefined;
    do {
      const res = await search({ check_in: day(40), check_out: day(43), guests: 2, page_size: 1, ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      walked.push(...(res.json as { results: Found[] }).results.map((r) => r.slug.en));
      cursor = (res.json as { next_cursor: string | null }).next_cursor;
    } while (cursor);
    expect(walked.sort()).toEqual(whole);
    expect(new Set(walked).size).toBe(walked.length);
  });

  it('counts facets over the free homes alone, the price facet in bands of each quote’s total', async () => {
    // One home blocked on the stay's nights: found by the words, but not free, so counted nowhere.
    expect((await addBlock(ctx, homes[3] as string, day(120), day(124))).status).toBe(201);
    /** The documented default bands of holiday homes (docs/api-reference.md, "Facets"), written again here. */
    const edges = ['300', '500', '750', '1000', '1500', '2500'];
    type Full = Found & { listing_type: string; bedrooms: number | null; area: { slug: { en: string }; name: unknown } | null };
    const tally = (keys: Array<[string, Record<string, unknown>]>) => {
      const counts = new Map<string, Record<string, unknown> & { count: number }>();
      for (const [key, entry] of keys) counts.set(key, { ...entry, count: (counts.get(key)?.count ?? 0) + 1 });
      return [...counts.values()];
    };
    const byCount = (list: Array<{ count: number }>) =>
      [...list].sort((a, b) => b.count - a.count || JSON.stringify(a).localeCompare(JSON.stringify(b)));
    for (const more of [{}, { price_max: '1500' }] as Array<Record<string, string>>) {
      const page = await found(day(120), day(123), 2, { ...more, facets: 'type,area,bedrooms,price' });
      const results = page.results as Full[];
      expect(results.map((r) => r.slug.en)).not.toContain(homes[3]);
      expect(results.length).toBeGreaterThan(0);
      const band = (total: string) => edges.filter((edge) => new Big(total).gte(edge)).length;
      const expected = {
        type: tally(results.map((r) => [r.listing_type, { value: r.listing_type }])),
        area: tally(results.filter((r) => r.area).map((r) => [r.area!.slug.en, { value: r.area!.slug.en, name: r.area!.name }])),
        bedrooms: tally(results.filter((r) => r.bedrooms !== null).map((r) => [String(r.bedrooms), { value: r.bedrooms }])),
        price: tally(
          results.map((r) => {
            const i = band(r.quote!.total);
            return [String(i), { type: 'holiday_home', min: i === 0 ? '0' : edges[i - 1], max: edges[i] ?? null }];
          }),
        ),
      };
      const facets = (page as unknown as { facets: Record<string, Array<{ count: number }>> }).facets;
      for (const name of ['type', 'area', 'bedrooms', 'price'] as const)
        expect(byCount(facets[name] ?? []), `${name} ${JSON.stringify(more)}`).toEqual(byCount(expected[name]));
      // The page itself is the page without facets.
      const plain = await found(day(120), day(123), 2, more);
      expect(plain.results).toEqual(page.results);
    }
  });

  it('is never kept: no ETag to revalidate, Cache-Control no-store', async () => {
    const res = await search({ check_in: day(50), check_out: day(51) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('etag')).toBeNull();
  });

  it('refuses dates that do not make a stay, at their field', async () => {
    const paths = async (query: Record<string, string | number>) => {
      const res = await search(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      return (res.json as { errors: Array<{ path: string }> }).errors.map((e) => e.path);
    };
    expect(await paths({ check_in: day(5) })).toEqual(['check_out']);
    expect(await paths({ check_out: day(5) })).toEqual(['check_in']);
    expect(await paths({ check_in: day(5), check_out: day(5) })).toEqual(['check_out']);
    expect(await paths({ guests: 2 })).toEqual(['guests']);
    expect(await paths({ check_in: day(5), check_out: day(6), type: 'sale' })).toEqual(['type']);
    expect(await paths({ check_in: '2027-02-30', check_out: day(6) })).toEqual(['check_in']);
    expect(await paths({ check_in: day(5), check_out: day(6), guests: 0 })).toEqual(['guests']);
  });

  it('is a 400 at check_in for a company that takes no bookings', async () => {
    const off = await setup({ api: ctx.api, settings: { bookings_enabled: false } });
    const res = await answer(
      anonymousOf(off).GET('/api/v1/listings', { params: { query: { check_in: day(5), check_out: day(6) } as never } }),
    );
    expect(res.status).toBe(400);
    expect((res.json as { errors: Array<{ path: string; code: string }> }).errors).toEqual([
      expect.objectContaining({ path: 'check_in', code: 'bookings_off' }),
    ]);
  });
});

describe('free dates agree with POST /bookings on random calendars', () => {
  it('a home is found exactly when its quote is given, and a booking of a found home is taken', async () => {
    const stay = fc.record({
      start: fc.integer({ min: 60, max: 90 }),
      nights: fc.integer({ min: 1, max: 5 }),
      guests: fc.integer({ min: 1, max: 6 }),
      pick: fc.integer({ min: 0, max: 3 }),
    });
    await fc.assert(
      fc.asyncProperty(stay, async ({ start, nights, guests, pick }) => {
        const [checkIn, checkOut] = [day(start), day(start + nights)];
        const page = await found(checkIn, checkOut, guests);
        const bySlug = new Map(page.results.map((r) => [r.slug.en, r.quote]));
        for (const home of homes) {
          const direct = await quote(ctx, home, checkIn, checkOut, guests);
          expect([200, 400]).toContain(direct.status);
          expect(bySlug.has(home), `${home} ${checkIn}→${checkOut} ×${guests}: quote ${direct.status}`).toBe(
            direct.status === 200,
          );
          if (direct.status === 200) expect(bySlug.get(home)).toEqual(direct.json);
        }
        // A booking request of one home: taken exactly when the search found it (and it changes the calendar for the
        // runs after this one).
        const home = homes[pick] as string;
        const booked = await postBooking(ctx, bookingBody(home, checkIn, checkOut, { guests }));
        expect(booked.status === 201, `${home}: ${booked.status} ${booked.text}`).toBe(bySlug.has(home));
        if (booked.status === 201) expect(slugsOf(await found(checkIn, checkOut, guests))).not.toContain(home);
      }),
      { numRuns: 25 },
    );
  });
});
