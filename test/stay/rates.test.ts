import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createKey } from '../support/world';
import * as stay from './support';
import { anonymousOf, answer, availability, codes, day, plusDays, quote, useStay } from './support';

/**
 * Daily rates and restrictions (issue 37; docs/api-reference.md, "Daily rates" and "Pricing tools"): a year of a
 * pricing tool's daily prices pushed to the signed receiver, then quotes and free-dates searches for random stays
 * checked against a second calculation written here; the closed-to-arrival, closed-to-departure and minimum-stay
 * edges; the admin and server-key routes' refusals (nothing changed); the booking a closing rule leaves in place.
 */
const ctx = useStay();

/** A deterministic generator (mulberry32), so a failing stay is the same on every run. */
function random(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const adminRates = (slug: string, body?: unknown, method = 'PUT') =>
  ctx.api.admin(`/companies/${ctx.company.id}/listings/${encodeURIComponent(slug)}/rates`, { body, method });
const readRates = (slug: string, query = '') =>
  ctx.api.admin(`/companies/${ctx.company.id}/listings/${encodeURIComponent(slug)}/rates${query}`, { method: 'GET' });

/** A Standard Webhooks secret, as a tool and the company share it. */
const secret = `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64')}`;

/** A push signed by the tool: `webhook-id` its own id, signed at the API's clock. */
function push(body: unknown, id: string, key = secret) {
  const text = JSON.stringify(body);
  const at = ctx.api.clock.now();
  const signature = new Webhook(key).sign(id, at, text);
  return ctx.api.request('/api/v1/inbound/pricing', {
    host: ctx.company.host,
    body: text,
    headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature },
  });
}

type Day = { date: string; price: string; min_stay?: number; check_in: boolean; check_out: boolean; unbookable: boolean };

/** The nights' price in fils (integer arithmetic, apart from big.js) and whether the stay may be taken, by the rules as read. */
function expected(days: Map<string, Day>, checkIn: string, checkOut: string, minNights: number) {
  const nights: string[] = [];
  for (let d = checkIn; d < checkOut; d = plusDays(d, 1)) nights.push(d);
  const arrival = days.get(checkIn);
  const problems: string[] = [];
  if (nights.length < (arrival?.min_stay ?? minNights)) problems.push('min_nights');
  if (arrival && !arrival.check_in) problems.push('arrival_day');
  if (days.get(checkOut)?.check_out === false) problems.push('departure_day');
  if (nights.some((n) => days.get(n)?.unbookable)) problems.push('unavailable');
  const fils = nights.reduce((sum, n) => sum + Math.round(Number(days.get(n)?.price ?? '100.00') * 100), 0);
  return { problems, total: `${Math.floor(fils / 100)}.${String(fils % 100).padStart(2, '0')}`, nights };
}

describe('a pricing tool’s year of daily rates', () => {
  it('is pushed once (a retry changes nothing); quotes and free dates agree with an independent calculation', async () => {
    const home = await stay.newHome(ctx, { price: '100.00', terms: { min_nights: 1, advance_days: 500 } });
    const tool = await ctx.api.admin(`/companies/${ctx.company.id}/pricing-tool`, {
      method: 'PUT',
      body: { tool: 'pricelabs', secret },
    });
    expect(tool.status, tool.text).toBe(200);
    expect(tool.json).toEqual({ tool: 'pricelabs', configured: true });

    const next = random(37);
    const first = day(2);
    const days: Day[] = Array.from({ length: 365 }, (_, i) => {
      const r = next();
      return {
        date: plusDays(first, i),
        price: `${200 + Math.floor(next() * 800)}.${String(Math.floor(next() * 100)).padStart(2, '0')}`,
        ...(r < 0.3 ? { min_stay: 1 + Math.floor(next() * 4) } : {}),
        check_in: !(r >= 0.3 && r < 0.38),
        check_out: !(r >= 0.38 && r < 0.46),
        unbookable: r >= 0.46 && r < 0.5,
      };
    });
    const body = { listing_id: home, currency: 'AED', data: days };
    const res = await push(body, 'pl-push-1');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ listing: home, push_id: 'pl-push-1', recorded: true, nights: 365, warnings: [] });
    const again = await push(body, 'pl-push-1');
    expect(again.json).toMatchObject({ recorded: false, nights: 0 });
    const events = await ctx.api.db
      .selectFrom('events')
      .select(['data', 'caused_by'])
      .where('company_id', '=', ctx.company.id)
      .where('type', '=', 'listing.rates_changed')
      .execute();
    const listing = await ctx.api.db.selectFrom('listings').select('id').where('slug_en', '=', home).executeTakeFirstOrThrow();
    expect(events).toEqual([{ data: { listing_id: listing.id }, caused_by: 'inbound:pricelabs' }]);

    const byDate = new Map(days.map((d) => [d.date, d]));
    const search = (checkIn: string, checkOut: string) =>
      answer(
        anonymousOf(ctx).GET('/api/v1/listings', {
          params: { query: { check_in: checkIn, check_out: checkOut, guests: 2, page_size: 100 } as never },
        }),
      );
    let taken = 0;
    let refused = 0;
    for (let n = 0; n < 40; n++) {
      const checkIn = plusDays(first, Math.floor(next() * 350));
      const checkOut = plusDays(checkIn, 1 + Math.floor(next() * 7));
      const want = expected(byDate, checkIn, checkOut, 1);
      const got = await quote(ctx, home, checkIn, checkOut);
      const found = await search(checkIn, checkOut);
      const listed = (found.json.results as Array<{ slug: { en: string }; quote?: { total: string } }>).find(
        (r) => r.slug.en === home,
      );
      if (want.problems.length === 0) {
        taken++;
        expect(got.status, `${checkIn}..${checkOut}: ${got.text}`).toBe(200);
        expect(got.json.total).toBe(want.total);
        expect(
          got.json.nights.map((night: { date: string; rate: string; price: string }) => [night.date, night.rate, night.price]),
        ).toEqual(want.nights.map((date) => [date, 'daily', byDate.get(date)?.price]));
        expect(listed?.quote?.total, `${checkIn}..${checkOut} in the free-dates search`).toBe(want.total);
      } else {
        refused++;
        expect(got.status, `${checkIn}..${checkOut}: ${got.text}`).toBe(400);
        expect(codes(got).sort()).toEqual([...want.problems].sort());
        expect(listed, `${checkIn}..${checkOut} left out of the free-dates search`).toBeUndefined();
      }
    }
    // Both kinds of stay were tried.
    expect(taken).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);

    const shown = await readRates(home, `?from=${first}&to=${plusDays(first, 365)}`);
    expect(shown.status, shown.text).toBe(200);
    const nights = (shown.json.rates as Array<{ starts_on: string; ends_on: string }>).reduce(
      (sum, r) => sum + (Date.parse(r.ends_on) - Date.parse(r.starts_on)) / 86_400_000,
      0,
    );
    expect(nights).toBe(365);
  });

  it('refuses a push whose signature fails, or a night twice, and changes nothing', async () => {
    const home = await stay.newHome(ctx);
    const one = { listing_id: home, data: [{ date: day(5), price: 500 }] };
    const forged = await push(one, 'pl-forged', `whsec_${Buffer.from(new Uint8Array(32).fill(7)).toString('base64')}`);
    expect(forged.status).toBe(401);
    expect(forged.json.code).toBe('signature_rejected');
    const twice = await push(
      {
        listing_id: home,
        data: [
          { date: day(5), price: 500 },
          { date: day(5), price: 600 },
        ],
      },
      'pl-twice',
    );
    expect(twice.status).toBe(400);
    expect(twice.json.errors.map((e: { path: string }) => e.path)).toEqual(['data.1.date']);
    const dollars = await push({ ...one, currency: 'USD' }, 'pl-dollars');
    expect(dollars.status).toBe(400);
    expect(dollars.json.errors.map((e: { path: string }) => e.path)).toEqual(['currency']);
    expect((await readRates(home)).json.rates).toEqual([]);
    expect((await quote(ctx, home, day(5), day(6))).json.total).toBe('100.00');
    // Without a tool (removed), every push is refused.
    const removed = await ctx.api.admin(`/companies/${ctx.company.id}/pricing-tool`, { method: 'DELETE' });
    expect(removed.json).toEqual({ tool: null, configured: false });
    expect((await push(one, 'pl-after-removal')).status).toBe(401);
    const restored = await ctx.api.admin(`/companies/${ctx.company.id}/pricing-tool`, {
      method: 'PUT',
      body: { tool: 'pricelabs', secret },
    });
    expect(restored.status).toBe(200);
  });
});

describe('restrictions by date', () => {
  it('closed to arrival, closed to departure, a minimum stay by arrival day and a closed night', async () => {
    const home = await stay.newHome(ctx, { terms: { min_nights: 1 } });
    const [a, b, c, d] = [day(20), day(25), day(30), day(35)];
    const res = await adminRates(home, {
      rates: [
        { starts_on: a, ends_on: plusDays(a, 1), closed_to_arrival: true },
        { starts_on: b, ends_on: plusDays(b, 1), closed_to_departure: true },
        { starts_on: c, ends_on: plusDays(c, 1), min_nights: 3, max_nights: 4, price: '250.00' },
        { starts_on: d, ends_on: plusDays(d, 1), closed: true },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ listing: home, starts_on: a, ends_on: plusDays(d, 1), nights: 4, warnings: [] });

    // Closed to arrival: no stay starts that day; one across it, or leaving on it, is taken.
    expect(codes(await quote(ctx, home, a, plusDays(a, 2)))).toEqual(['arrival_day']);
    // A booking request meets the same rule (nothing held).
    const request = await stay.postBooking(ctx, stay.bookingBody(home, a, plusDays(a, 2)));
    expect(request.status, request.text).toBe(400);
    expect(codes(request)).toEqual(['arrival_day']);
    expect((await quote(ctx, home, plusDays(a, -1), plusDays(a, 2))).status).toBe(200);
    expect((await quote(ctx, home, plusDays(a, -1), a)).status).toBe(200);
    // Closed to departure: no stay ends that day; one starting on it is taken.
    const leaving = await quote(ctx, home, plusDays(b, -2), b);
    expect(leaving.status).toBe(400);
    expect(leaving.json.errors).toEqual([{ path: 'check_out', code: 'departure_day', message: expect.any(String) }]);
    expect((await quote(ctx, home, b, plusDays(b, 1))).status).toBe(200);
    // The minimum stay of the arrival day: 2 nights from c refused, 3 taken; a stay arriving the day before is the
    // terms' (1 night), even across c. The night of c costs its own price.
    expect(codes(await quote(ctx, home, c, plusDays(c, 2)))).toEqual(['min_nights']);
    expect(codes(await quote(ctx, home, c, plusDays(c, 5)))).toEqual(['max_nights']);
    const three = await quote(ctx, home, c, plusDays(c, 3));
    expect(three.status).toBe(200);
    expect(three.json.total).toBe('450.00');
    expect(three.json.nights[0]).toMatchObject({ date: c, rate: 'daily', price: '250.00' });
    expect((await quote(ctx, home, plusDays(c, -1), plusDays(c, 1))).status).toBe(200);
    // A closed night: taken, and shown blocked by availability.
    expect(codes(await quote(ctx, home, plusDays(d, -1), plusDays(d, 1)))).toEqual(['unavailable']);
    const shown = await availability(ctx, home, `from=${day(20)}&to=${day(40)}`);
    expect(shown.json.blocked).toEqual([{ start: d, end: plusDays(d, 1) }]);
    // Availability shows the dates' own stay rules (the price is the quote's).
    const rule = { min_nights: null, max_nights: null, closed_to_arrival: false, closed_to_departure: false };
    expect(shown.json.restrictions).toEqual([
      { ...rule, starts_on: a, ends_on: plusDays(a, 1), closed_to_arrival: true },
      { ...rule, starts_on: b, ends_on: plusDays(b, 1), closed_to_departure: true },
      { ...rule, starts_on: c, ends_on: plusDays(c, 1), min_nights: 3, max_nights: 4 },
    ]);
    const compact = (date: string) => date.replaceAll('-', '');
    const feed = await stay.calendarFeed(ctx, home);
    expect(feed.text).toContain(`DTSTART;VALUE=DATE:${compact(d)}\r\n`);
    expect(feed.text).toContain(`DTEND;VALUE=DATE:${compact(plusDays(d, 1))}\r\n`);

    // Removing the rule (a range with nothing set) opens the night again: the availability answer follows at once.
    const versions = () =>
      ctx.api.db
        .selectFrom('holiday_home_terms as t')
        .innerJoin('listings as l', 'l.id', 't.listing_id')
        .select(['t.calendar_version', 't.rules_version'])
        .where('l.slug_en', '=', home)
        .executeTakeFirstOrThrow();
    const before = await versions();
    const cleared = await adminRates(home, { rates: [{ starts_on: d, ends_on: plusDays(d, 1) }] });
    expect(cleared.status, cleared.text).toBe(200);
    const after = await versions();
    expect(Number(after.rules_version)).toBeGreaterThan(Number(before.rules_version));
    expect(Number(after.calendar_version)).toBeGreaterThan(Number(before.calendar_version));
    // The same window as above, whose answer was kept (keyed by the home's calendar version, which the change moved).
    expect((await availability(ctx, home, `from=${day(20)}&to=${day(40)}`)).json.blocked).toEqual([]);
    expect((await stay.calendarFeed(ctx, home)).text).not.toContain(`DTSTART;VALUE=DATE:${compact(d)}`);
    expect((await readRates(home, `?from=${a}&to=${day(40)}`)).json.rates.map((r: { starts_on: string }) => r.starts_on)).toEqual(
      [a, b, c],
    );
  });

  it('keeps a booking a closing rule covers, with a warning', async () => {
    const home = await stay.newHome(ctx);
    const booked = await stay.book(ctx, home, day(50), day(53));
    const res = await adminRates(home, { rates: [{ starts_on: day(51), ends_on: day(52), closed: true }] });
    expect(res.status, res.text).toBe(200);
    expect(res.json.warnings).toEqual([{ code: 'rates_over_booking', message: expect.stringContaining(booked.reference) }]);
    const row = await stay.bookingRow(ctx, booked.reference);
    expect(row?.status).toBe('held');
  });
});

describe('bad input', () => {
  it('refuses inverted, overlapping, past and too long ranges at the field, and changes nothing', async () => {
    const home = await stay.newHome(ctx);
    const paths = async (rates: unknown[]) => {
      const res = await adminRates(home, { rates });
      expect(res.status, res.text).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      return (res.json.errors as Array<{ path: string }>).map((e) => e.path);
    };
    expect(await paths([{ starts_on: day(10), ends_on: day(9), price: '1.00' }])).toEqual(['rates.0.ends_on']);
    expect(
      await paths([
        { starts_on: day(10), ends_on: day(15), price: '1.00' },
        { starts_on: day(14), ends_on: day(16), price: '2.00' },
      ]),
    ).toEqual(['rates.1.starts_on']);
    expect(await paths([{ starts_on: day(-1), ends_on: day(2), price: '1.00' }])).toEqual(['rates.0.starts_on']);
    expect(await paths([{ starts_on: day(1), ends_on: day(732), price: '1.00' }])).toEqual(['rates.0.ends_on']);
    expect(await paths([{ starts_on: day(1), ends_on: day(2), min_nights: 5, max_nights: 2 }])).toEqual(['rates.0.max_nights']);
    expect(await paths([{ starts_on: day(1), ends_on: day(2), price: '1.001' }])).toEqual(['rates.0.price']);
    expect((await readRates(home)).json.rates).toEqual([]);
  });

  it('takes write:listings for a server key’s change, and answers another company’s home 404', async () => {
    const home = await stay.newHome(ctx);
    const body = { rates: [{ starts_on: day(10), ends_on: day(12), price: '300.00' }] };
    const put = (key: string, slug = home) =>
      ctx.api.request(`/api/v1/listings/${slug}/rates`, { host: ctx.company.host, key, method: 'PUT', body });
    const reader = await createKey(ctx.api, ctx.company.id, { scopes: ['read:listings'] });
    const writer = await createKey(ctx.api, ctx.company.id, { scopes: ['write:listings'] });
    expect((await put(reader.secret)).status).toBe(403);
    const written = await put(writer.secret);
    expect(written.status, written.text).toBe(200);
    const read = await ctx.api.request(`/api/v1/listings/${home}/rates?from=${day(10)}&to=${day(20)}`, {
      host: ctx.company.host,
      key: reader.secret,
    });
    expect(read.json.rates).toEqual([
      {
        starts_on: day(10),
        ends_on: day(12),
        price: '300.00',
        min_nights: null,
        max_nights: null,
        closed_to_arrival: false,
        closed_to_departure: false,
        closed: false,
      },
    ]);
    const other = await stay.setup({ api: ctx.api });
    const foreign = await createKey(ctx.api, other.company.id, { scopes: ['write:listings'] });
    const res = await ctx.api.request(`/api/v1/listings/${home}/rates`, {
      host: other.company.host,
      key: foreign.secret,
      method: 'PUT',
      body,
    });
    expect(res.status).toBe(404);
  });
});
