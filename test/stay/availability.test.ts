import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminOf, type World, world } from '../support/world';
import * as stay from './support';
import { bookingBody, day, plainTerms, plusDays, type Terms, todayInZone, useBookingWorld, villa, villaAr } from './support';

const { w, forms } = useBookingWorld();

const ruleFields =
  'advance_days available_from available_to check_in_time check_out_time closed_arrival_days max_nights min_nights notice_hours';

/** A new holiday home with plain terms (its calendar is the test's own). */
const newHome = () => w.holidayHome(plainTerms, { status: 'published' });
/** GET /listings/{slug}/availability, as anyone may ask it (`query` as sent: the refusals too). */
const availability = (slug: string, query: Record<string, string> = {}, headers: Record<string, string> = {}, on: World = w) =>
  on.anonymous.GET('/api/v1/listings/{slug}/availability', {
    params: { path: { slug }, query: query as never },
    headers,
  });
const window = { from: day(0), to: day(60) };
/** A guest's booking request from the company's website, as answered (throws when refused). */
const book = async (home: string, checkIn: string, checkOut: string, extra: Record<string, unknown> = {}) => {
  const { data, error } = await forms.POST('/api/v1/bookings', { body: bookingBody(home, checkIn, checkOut, extra) });
  if (!data) throw new Error(`booking refused: ${JSON.stringify(error)}`);
  return data;
};
const step = (reference: string, action: 'confirm' | 'mark-paid' | 'cancel') => stay.step(w, reference, action);
const addBlock = (home: string, startsOn: string, endsOn: string, reason = 'owner') =>
  stay.addBlock(w, home, startsOn, endsOn, reason);
/** Replaces a home's booking terms: plain ones but for `terms`. */
const setTerms = (home: string, terms: Partial<Terms> = {}) => stay.setTerms(w, home, terms);

describe('which homes answer', () => {
  it('answers 404 when the company has bookings switched off, and 200 once they are on', async () => {
    expect((await availability(villa)).response.status).toBe(200);
    const off = await world({ api: w.api, environment: 'development', settings: { bookings_enabled: false } });
    const res = await availability(villa, {}, {}, off);
    expect(res.response.status, JSON.stringify(res.error)).toBe(404);
    expect(res.error?.code).toBe('not_found');
    const patch = await adminOf(off.api).PATCH('/admin/v1/companies/{company_id}', {
      params: { path: { company_id: off.company.id } },
      body: { settings: { bookings_enabled: true } },
    });
    expect(patch.response.status).toBe(200);
    expect((await availability(villa, {}, {}, off)).response.status).toBe(200);
  });

  it('answers 404 for a sale listing, a lease, a draft or withdrawn holiday home, and an unknown slug', async () => {
    const withdrawn = await newHome();
    expect((await availability(withdrawn)).response.status).toBe(200);
    const res = await stay.answer(
      w.adminClient.POST('/admin/v1/companies/{company_id}/listings/{slug}/withdraw', {
        params: { path: { company_id: w.company.id, slug: withdrawn } },
      }),
    );
    expect(res.status).toBe(200);
    for (const slug of [
      'marina-gate-2br-sea-view',
      'marina-gate-1br-furnished',
      'al-reem-2br-holiday-home',
      withdrawn,
      'no-such-home',
    ]) {
      const answer = await availability(slug);
      expect(answer.response.status, slug).toBe(404);
      expect(answer.error?.code).toBe('not_found');
    }
  });

  it('finds the home by its Arabic slug and names it by the English one', async () => {
    const res = await availability(villaAr);
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data?.listing).toBe(villa);
  });
});

describe('the window', () => {
  it('defaults to today .. today + 365 in the company’s time zone', async () => {
    const before = todayInZone();
    const res = await availability(villa);
    const after = todayInZone();
    expect(res.response.status).toBe(200);
    expect([before, after]).toContain(res.data?.from);
    expect(res.data?.to).toBe(plusDays(res.data?.from ?? '', 365));
    const from = day(10);
    const given = await availability(villa, { from });
    expect([given.data?.from, given.data?.to]).toEqual([from, plusDays(from, 365)]);
  });

  it('refuses `to` on or before `from` with 400', async () => {
    for (const to of [day(5), day(4)]) {
      const res = await availability(villa, { from: day(5), to });
      expect(res.response.status, to).toBe(400);
      expect(res.error?.code).toBe('invalid_request');
      expect(res.error?.errors?.map((e) => e.path)).toEqual(['to']);
    }
  });

  it('takes a window of exactly 400 days and refuses 401 with window_too_long', async () => {
    const ok = await availability(villa, { from: day(0), to: day(400) });
    expect(ok.response.status, JSON.stringify(ok.error)).toBe(200);
    const res = await availability(villa, { from: day(0), to: day(401) });
    expect(res.response.status).toBe(400);
    expect(res.error?.code).toBe('window_too_long');
    const defaultFrom = await availability(villa, { to: day(401) });
    expect(defaultFrom.error?.code).toBe('window_too_long');
  });

  it('refuses malformed dates and unknown parameters with 400', async () => {
    const malformed: Array<Record<string, string>> = [
      { from: '2026-13-01' },
      { to: 'tomorrow' },
      { from: '2026-1-1' },
      { guests: '2' },
    ];
    for (const query of malformed) {
      const res = await availability(villa, query);
      expect(res.response.status, JSON.stringify(query)).toBe(400);
      expect(res.error?.code).toBe('invalid_request');
    }
  });
});

describe('blocked ranges', () => {
  let home: string;
  const names = ['Layla Guest', 'layla', 'example.com', '+971', 'B-'];

  beforeAll(async () => {
    home = await newHome();
    // held 10..13 touching confirmed 13..15 → one range 10..15
    await book(home, day(10), day(13), { phone: '+971501234567' });
    const confirmed = await book(home, day(13), day(15));
    expect((await step(confirmed.reference, 'confirm')).status).toBe(200);
    // paid 20..22 touching an owner block 22..25 overlapped by a maintenance block 24..27 → one range 20..27
    const paid = await book(home, day(20), day(22));
    await step(paid.reference, 'confirm');
    expect((await step(paid.reference, 'mark-paid')).status).toBe(200);
    expect((await addBlock(home, day(22), day(25))).status).toBe(201);
    expect((await addBlock(home, day(24), day(27), 'maintenance')).status).toBe(201);
    expect((await addBlock(home, day(30), day(32), 'maintenance')).status).toBe(201);
    // cancelled, a lapsed hold and a lapsed payment window: free nights
    const cancelled = await book(home, day(40), day(42));
    expect((await step(cancelled.reference, 'cancel')).status).toBe(200);
    const lapsed = await book(home, day(50), day(52));
    await sql`update bookings set hold_expires_at = now() - interval '1 minute' where reference = ${lapsed.reference}`.execute(
      w.api.db,
    );
    const unpaid = await book(home, day(60), day(62));
    await step(unpaid.reference, 'confirm');
    await sql`update bookings set payment_due_at = now() - interval '1 minute' where reference = ${unpaid.reference}`.execute(
      w.api.db,
    );
  });

  it('shows held, confirmed and paid bookings and blocks, merged when overlapping or touching; not cancelled or lapsed ones', async () => {
    const res = await availability(home, { from: day(0), to: day(100) });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data?.blocked).toEqual([
      { start: day(10), end: day(15) },
      { start: day(20), end: day(27) },
      { start: day(30), end: day(32) },
    ]);
  });

  it('clips ranges to the window', async () => {
    const res = await availability(home, { from: day(11), to: day(31) });
    expect(res.data?.blocked).toEqual([
      { start: day(11), end: day(15) },
      { start: day(20), end: day(27) },
      { start: day(30), end: day(31) },
    ]);
  });

  it('counts a range’s start as taken and its end as free', async () => {
    expect((await availability(home, { from: day(15), to: day(20) })).data?.blocked).toEqual([]);
    expect((await availability(home, { from: day(14), to: day(21) })).data?.blocked).toEqual([
      { start: day(14), end: day(15) },
      { start: day(20), end: day(21) },
    ]);
    expect((await availability(home, { from: day(27), to: day(30) })).data?.blocked).toEqual([]);
  });

  it('never shows who booked: no name, email, phone or reference, only the documented fields', async () => {
    const res = await availability(home, { from: day(0), to: day(100) });
    expect(Object.keys(res.data ?? {}).sort()).toEqual(`blocked from listing to restrictions ${ruleFields}`.split(' ').sort());
    for (const range of res.data?.blocked ?? []) expect(Object.keys(range).sort()).toEqual(['end', 'start']);
    for (const text of names) expect(JSON.stringify(res.data)).not.toContain(text);
  });
});

describe('the rules', () => {
  it('shows every rule with the configured values', async () => {
    const home = await newHome();
    await setTerms(home, {
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
    const res = await availability(home);
    expect(res.data).toMatchObject({
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
    await setTerms(home, { min_nights: 3 });
    const changed = await availability(home);
    expect(changed.data).toMatchObject({ min_nights: 3, available_from: null, available_to: null, closed_arrival_days: [] });
  });
});

describe('caching', () => {
  it('answers with an ETag and no-cache, and 304 to If-None-Match of the same answer', async () => {
    const home = await newHome();
    const first = await availability(home, window);
    const etag = first.response.headers.get('ETag') ?? '';
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    expect(first.response.headers.get('Cache-Control')).toBe('no-cache');
    const again = await availability(home, window, { 'If-None-Match': etag });
    expect(again.response.status).toBe(304);
    // No body: the typed client hands the body of an answer that is not 2xx back as `error`, here empty.
    expect(again.error ?? '').toBe('');
    expect((await availability(home, window, { 'If-None-Match': `W/${etag}, "other"` })).response.status).toBe(304);
    expect((await availability(home, window, { 'If-None-Match': '"other"' })).response.status).toBe(200);
  });

  it('changes at once when a booking is made or cancelled or a block added or removed, and then never answers 304 to the old tag', async () => {
    const home = await newHome();
    const seen: string[] = [];
    const expectChanged = async (blocked: Array<{ start: string; end: string }>) => {
      const previous = seen[seen.length - 1] ?? '';
      const stale = await availability(home, window, { 'If-None-Match': previous });
      expect(stale.response.status).toBe(200);
      expect(stale.data?.blocked).toEqual(blocked);
      const etag = stale.response.headers.get('ETag') ?? '';
      expect(seen).not.toContain(etag);
      seen.push(etag);
    };
    const first = await availability(home, window);
    expect(first.data?.blocked).toEqual([]);
    seen.push(first.response.headers.get('ETag') ?? '');

    const booking = await book(home, day(5), day(8));
    await expectChanged([{ start: day(5), end: day(8) }]);
    const block = await addBlock(home, day(20), day(22), 'maintenance');
    await expectChanged([
      { start: day(5), end: day(8) },
      { start: day(20), end: day(22) },
    ]);
    await step(booking.reference, 'cancel');
    await expectChanged([{ start: day(20), end: day(22) }]);
    const removed = await stay.removeBlock(w, home, block.json.id);
    expect(removed.status).toBe(204);
    const last = await availability(home, window, { 'If-None-Match': seen[seen.length - 1] ?? '' });
    expect(last.response.status).toBe(200);
    expect(last.data?.blocked).toEqual([]);
    // Same content as the first answer: the same tag, so a client holding it may revalidate to 304.
    expect(last.response.headers.get('ETag')).toBe(seen[0]);
  });

  it('changes at once when the terms change', async () => {
    const home = await newHome();
    const first = await availability(home, window);
    await setTerms(home, { min_nights: 4 });
    const res = await availability(home, window, { 'If-None-Match': first.response.headers.get('ETag') ?? '' });
    expect(res.response.status).toBe(200);
    expect(res.data?.min_nights).toBe(4);
  });

  it('stops showing a hold once it lapses, though nothing was written since it was cached', async () => {
    const home = await newHome();
    const booking = await book(home, day(5), day(8));
    // The API's clock stands still at `t0`; the hold lapses 10 s later, well within the cache's 30 s.
    const t0 = new Date();
    const lapses = new Date(t0.getTime() + 10_000);
    await sql`update bookings set hold_expires_at = ${lapses} where reference = ${booking.reference}`.execute(w.api.db);
    try {
      w.api.clock.set(t0);
      const cached = await availability(home, window);
      expect(cached.data?.blocked).toEqual([{ start: day(5), end: day(8) }]);
      // The hold lapses on its own, with no write to bump the calendar: only the clock moves.
      w.api.clock.set(new Date(lapses.getTime() - 1));
      expect((await availability(home, window)).data?.blocked).toEqual([{ start: day(5), end: day(8) }]);
      w.api.clock.set(lapses);
      const later = await availability(home, window);
      expect(later.data?.blocked).toEqual([]);
    } finally {
      w.api.clock.set(null);
    }
  });
});
