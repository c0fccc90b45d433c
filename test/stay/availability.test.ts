import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addBlock,
  availability,
  book,
  type Ctx,
  day,
  newHome,
  plusDays,
  setTerms,
  setup,
  step,
  todayInZone,
  villa,
  villaAr,
} from './support';

let ctx: Ctx;

beforeAll(async () => {
  ctx = await setup();
});
afterAll(() => ctx.api.close());

const ruleFields =
  'advance_days available_from available_to check_in_time check_out_time closed_arrival_days max_nights min_nights notice_hours';

describe('which homes answer', () => {
  it('answers 404 when the company has bookings switched off, and 200 once they are on', async () => {
    expect((await availability(ctx, villa)).status).toBe(200);
    const off = await setup({ api: ctx.api, settings: { bookings_enabled: false } });
    const res = await availability(off, villa);
    expect(res.status, res.text).toBe(404);
    expect(res.json.code).toBe('not_found');
    const patch = await ctx.api.admin(`/companies/${off.company.id}`, {
      method: 'PATCH',
      body: { settings: { bookings_enabled: true } },
    });
    expect(patch.status).toBe(200);
    expect((await availability(off, villa)).status).toBe(200);
  });

  it('answers 404 for a sale listing, a lease, a draft or withdrawn holiday home, and an unknown slug', async () => {
    const withdrawn = await newHome(ctx);
    expect((await availability(ctx, withdrawn)).status).toBe(200);
    const res = await ctx.api.admin(`/companies/${ctx.company.id}/listings/${withdrawn}/withdraw`, { method: 'POST' });
    expect(res.status).toBe(200);
    for (const slug of [
      'marina-gate-2br-sea-view',
      'marina-gate-1br-furnished',
      'al-reem-2br-holiday-home',
      withdrawn,
      'no-such-home',
    ]) {
      const answer = await availability(ctx, slug);
      expect(answer.status, slug).toBe(404);
      expect(answer.json.code).toBe('not_found');
    }
  });

  it('finds the home by its Arabic slug and names it by the English one', async () => {
    const res = await availability(ctx, villaAr);
    expect(res.status, res.text).toBe(200);
    expect(res.json.listing).toBe(villa);
  });
});

describe('the window', () => {
  it('defaults to today .. today + 365 in the company’s time zone', async () => {
    const before = todayInZone();
    const res = await availability(ctx, villa);
    const after = todayInZone();
    expect(res.status).toBe(200);
    expect([before, after]).toContain(res.json.from);
    expect(res.json.to).toBe(plusDays(res.json.from, 365));
    const from = day(10);
    const given = await availability(ctx, villa, `?from=${from}`);
    expect([given.json.from, given.json.to]).toEqual([from, plusDays(from, 365)]);
  });

  it('refuses `to` on or before `from` with 400', async () => {
    for (const to of [day(5), day(4)]) {
      const res = await availability(ctx, villa, `?from=${day(5)}&to=${to}`);
      expect(res.status, to).toBe(400);
      expect(res.json.code).toBe('invalid_request');
      expect(res.json.errors.map((e: { path: string }) => e.path)).toEqual(['to']);
    }
  });

  it('takes a window of exactly 400 days and refuses 401 with window_too_long', async () => {
    const ok = await availability(ctx, villa, `?from=${day(0)}&to=${day(400)}`);
    expect(ok.status, ok.text).toBe(200);
    const res = await availability(ctx, villa, `?from=${day(0)}&to=${day(401)}`);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('window_too_long');
    const defaultFrom = await availability(ctx, villa, `?to=${day(401)}`);
    expect(defaultFrom.json.code).toBe('window_too_long');
  });

  it('refuses malformed dates and unknown parameters with 400', async () => {
    for (const query of ['?from=2026-13-01', '?to=tomorrow', '?from=2026-1-1', '?guests=2']) {
      const res = await availability(ctx, villa, query);
      expect(res.status, query).toBe(400);
      expect(res.json.code).toBe('invalid_request');
    }
  });
});

describe('blocked ranges', () => {
  let home: string;
  const names = ['Layla Guest', 'layla', 'example.com', '+971', 'B-'];

  beforeAll(async () => {
    home = await newHome(ctx);
    // held 10..13 touching confirmed 13..15 → one range 10..15
    await book(ctx, home, day(10), day(13), { phone: '+971501234567' });
    const confirmed = await book(ctx, home, day(13), day(15));
    expect((await step(ctx, confirmed.reference, 'confirm')).status).toBe(200);
    // paid 20..22 touching an owner block 22..25 overlapped by a maintenance block 24..27 → one range 20..27
    const paid = await book(ctx, home, day(20), day(22));
    await step(ctx, paid.reference, 'confirm');
    expect((await step(ctx, paid.reference, 'mark-paid')).status).toBe(200);
    expect((await addBlock(ctx, home, day(22), day(25))).status).toBe(201);
    expect((await addBlock(ctx, home, day(24), day(27), 'maintenance')).status).toBe(201);
    expect((await addBlock(ctx, home, day(30), day(32), 'maintenance')).status).toBe(201);
    // cancelled, a lapsed hold and a lapsed payment window: free nights
    const cancelled = await book(ctx, home, day(40), day(42));
    expect((await step(ctx, cancelled.reference, 'cancel')).status).toBe(200);
    const lapsed = await book(ctx, home, day(50), day(52));
    await sql`update bookings set hold_expires_at = now() - interval '1 minute' where reference = ${lapsed.reference}`.execute(
      ctx.api.db,
    );
    const unpaid = await book(ctx, home, day(60), day(62));
    await step(ctx, unpaid.reference, 'confirm');
    await sql`update bookings set payment_due_at = now() - interval '1 minute' where reference = ${unpaid.reference}`.execute(
      ctx.api.db,
    );
  });

  it('shows held, confirmed and paid bookings and blocks, merged when overlapping or touching; not cancelled or lapsed ones', async () => {
    const res = await availability(ctx, home, `?from=${day(0)}&to=${day(100)}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.blocked).toEqual([
      { start: day(10), end: day(15) },
      { start: day(20), end: day(27) },
      { start: day(30), end: day(32) },
    ]);
  });

  it('clips ranges to the window', async () => {
    const res = await availability(ctx, home, `?from=${day(11)}&to=${day(31)}`);
    expect(res.json.blocked).toEqual([
      { start: day(11), end: day(15) },
      { start: day(20), end: day(27) },
      { start: day(30), end: day(31) },
    ]);
  });

  it('counts a range’s start as taken and its end as free', async () => {
    expect((await availability(ctx, home, `?from=${day(15)}&to=${day(20)}`)).json.blocked).toEqual([]);
    expect((await availability(ctx, home, `?from=${day(14)}&to=${day(21)}`)).json.blocked).toEqual([
      { start: day(14), end: day(15) },
      { start: day(20), end: day(21) },
    ]);
    expect((await availability(ctx, home, `?from=${day(27)}&to=${day(30)}`)).json.blocked).toEqual([]);
  });

  it('never shows who booked: no name, email, phone or reference, only the documented fields', async () => {
    const res = await availability(ctx, home, `?from=${day(0)}&to=${day(100)}`);
    expect(Object.keys(res.json).sort()).toEqual(`blocked from listing to ${ruleFields}`.split(' ').sort());
    for (const range of res.json.blocked) expect(Object.keys(range).sort()).toEqual(['end', 'start']);
    for (const text of names) expect(res.text).not.toContain(text);
  });
});

describe('the rules', () => {
  it('shows every rule with the configured values', async () => {
    const home = await newHome(ctx);
    await setTerms(ctx, home, {
      min_nights: 2,
      max_nights: 14,
      closed_arrival_days: [0, 6],
      advance_days: 200,
      notice_hours: 48,
      available_from: day(1),
      available_to: day(300),
      check_in_time: '16:30',
      check_out_time: '10:15',
    });
    const res = await availability(ctx, home);
    expect(res.json).toMatchObject({
      min_nights: 2,
      max_nights: 14,
      closed_arrival_days: [0, 6],
      advance_days: 200,
      notice_hours: 48,
      available_from: day(1),
      available_to: day(300),
      check_in_time: '16:30',
      check_out_time: '10:15',
    });
    await setTerms(ctx, home, { min_nights: 3 });
    const changed = await availability(ctx, home);
    expect(changed.json).toMatchObject({ min_nights: 3, available_from: null, available_to: null, closed_arrival_days: [] });
  });
});

describe('caching', () => {
  const window = `?from=${day(0)}&to=${day(60)}`;

  it('answers with an ETag and no-cache, and 304 to If-None-Match of the same answer', async () => {
    const home = await newHome(ctx);
    const first = await availability(ctx, home, window);
    const etag = first.headers.get('ETag') as string;
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    expect(first.headers.get('Cache-Control')).toBe('no-cache');
    const again = await availability(ctx, home, window, { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect((await availability(ctx, home, window, { headers: { 'If-None-Match': `W/${etag}, "other"` } })).status).toBe(304);
    expect((await availability(ctx, home, window, { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
  });

  it('changes at once when a booking is made or cancelled or a block added or removed, and then never answers 304 to the old tag', async () => {
    const home = await newHome(ctx);
    const seen: string[] = [];
    const expectChanged = async (blocked: Array<{ start: string; end: string }>) => {
      const previous = seen[seen.length - 1] as string;
      const stale = await availability(ctx, home, window, { headers: { 'If-None-Match': previous } });
      expect(stale.status).toBe(200);
      expect(stale.json.blocked).toEqual(blocked);
      const etag = stale.headers.get('ETag') as string;
      expect(seen).not.toContain(etag);
      seen.push(etag);
    };
    const first = await availability(ctx, home, window);
    expect(first.json.blocked).toEqual([]);
    seen.push(first.headers.get('ETag') as string);

    const booking = await book(ctx, home, day(5), day(8));
    await expectChanged([{ start: day(5), end: day(8) }]);
    const block = await addBlock(ctx, home, day(20), day(22), 'maintenance');
    await expectChanged([
      { start: day(5), end: day(8) },
      { start: day(20), end: day(22) },
    ]);
    await step(ctx, booking.reference, 'cancel');
    await expectChanged([{ start: day(20), end: day(22) }]);
    const removed = await ctx.api.admin(`/companies/${ctx.company.id}/listings/${home}/blocks/${block.json.id}`, {
      method: 'DELETE',
    });
    expect(removed.status).toBe(204);
    const last = await availability(ctx, home, window, { headers: { 'If-None-Match': seen[seen.length - 1] as string } });
    expect(last.status).toBe(200);
    expect(last.json.blocked).toEqual([]);
    // Same content as the first answer: the same tag, so a client holding it may revalidate to 304.
    expect(last.headers.get('ETag')).toBe(seen[0]);
  });

  it('changes at once when the terms change', async () => {
    const home = await newHome(ctx);
    const first = await availability(ctx, home, window);
    await setTerms(ctx, home, { min_nights: 4 });
    const res = await availability(ctx, home, window, { headers: { 'If-None-Match': first.headers.get('ETag') as string } });
    expect(res.status).toBe(200);
    expect(res.json.min_nights).toBe(4);
  });

  it('stops showing a hold once it lapses, though nothing was written since it was cached', async () => {
    const home = await newHome(ctx);
    const booking = await book(ctx, home, day(5), day(8));
    // The API's clock stands still at `t0`; the hold lapses 10 s later, well within the cache's 30 s.
    const t0 = new Date();
    const lapses = new Date(t0.getTime() + 10_000);
    await sql`update bookings set hold_expires_at = ${lapses} where reference = ${booking.reference}`.execute(ctx.api.db);
    try {
      ctx.api.clock.set(t0);
      const cached = await availability(ctx, home, window);
      expect(cached.json.blocked).toEqual([{ start: day(5), end: day(8) }]);
      // The hold lapses on its own, with no write to bump the calendar: only the clock moves.
      ctx.api.clock.set(new Date(lapses.getTime() - 1));
      expect((await availability(ctx, home, window)).json.blocked).toEqual([{ start: day(5), end: day(8) }]);
      ctx.api.clock.set(lapses);
      const later = await availability(ctx, home, window);
      expect(later.json.blocked).toEqual([]);
    } finally {
      ctx.api.clock.set(null);
    }
  });
});
