import { sql } from 'kysely';
import { demo } from '../support/harness';
import { describe, expect, it } from 'vitest';
import { airbnbFeed, useChannel } from './channel-feeds';
import {
  addBlock,
  availability,
  blocksOf,
  book,
  bookingBody,
  calendarFeed,
  calendarImports,
  day,
  importDocument,
  newHome,
  plainTerms,
  postBooking,
  putTerms,
  quote,
  setTerms,
  useStay,
  villa,
} from './support';

/**
 * Turnover days between stays (issue 24), a home's booking term `turnover_days`: each stay (a booking that holds its
 * nights by the one calendar rule, an imported stay) is followed by that many nights no new stay may use, and a new
 * stay may not end so that its own turnover reaches the next stay. Computed when the calendar is read
 * (lib/calendar.ts): availability, quotes and booking requests apply it; the admin API's blocks show it with reason
 * `turnover`; availability and the iCalendar export show bare ranges only.
 */
const villaListing = demo.listings.find((l) => l.slug.en === villa)!;
const ctx = useStay();
const channel = useChannel();

const blocked = async (home: string, from: number, to: number) => {
  const res = await availability(ctx, home, `?from=${day(from)}&to=${day(to)}`);
  expect(res.status, res.text).toBe(200);
  return res.json.blocked as Array<{ start: string; end: string }>;
};
const range = (start: number, end: number) => ({ start: day(start), end: day(end) });
const request = (home: string, from: number, to: number) => postBooking(ctx, bookingBody(home, day(from), day(to)));
const blocks = (home: string) => blocksOf(ctx, home);
const exportFeed = (home: string, query = '') => calendarFeed(ctx, home, { query });
const eventsOf = (ics: string) =>
  [
    ...ics.matchAll(
      /DTSTART;VALUE=DATE:(\d{8})\r\nDTEND;VALUE=DATE:(\d{8})|DTEND;VALUE=DATE:(\d{8})\r\nDTSTART;VALUE=DATE:(\d{8})/g,
    ),
  ].map((m) => [m[1] ?? m[4], m[2] ?? m[3]]);
const compact = (offset: number) => day(offset).replaceAll('-', '');
let feedSerial = 0;

async function importedStays(home: string, events: Array<{ uid: string; start: string; end: string }>, name = 'airbnb') {
  const path = `/turnover/${feedSerial++}.ics`;
  channel.serve(path, airbnbFeed(events));
  // Out of the scheduler's reach (other test files run scheduled work on the shared PostgreSQL database).
  const { id, made } = await calendarImports(ctx).add(home, channel.url(path), name);
  expect(made.import_id).toBe(id);
  expect(made).toMatchObject({ listing: home, channel: name });
  const synced = await calendarImports(ctx).sync(home, id);
  expect([synced.status, synced.json.last_error]).toEqual([200, null]);
  return id;
}

describe('a home with two turnover days', () => {
  it('keeps the two nights after a booking and the two before it out of availability (bare ranges)', async () => {
    const home = await newHome(ctx, { terms: { turnover_days: 2 } });
    await book(ctx, home, day(40), day(43));
    // [38, 40): a stay using them would end with its turnover inside the booking; [43, 45): the booking's turnover.
    expect(await blocked(home, 30, 60)).toEqual([range(38, 45)]);
    // Clipped to the window like any range; a stay just outside the window still reaches into it.
    expect(await blocked(home, 44, 60)).toEqual([range(44, 45)]);
    expect(await blocked(home, 20, 39)).toEqual([range(38, 39)]);
  });

  it('quotes and books from the day the turnover ends, not a day before', async () => {
    const home = await newHome(ctx, { terms: { turnover_days: 2 } });
    await book(ctx, home, day(40), day(43));
    const early = await quote(ctx, home, day(44), day(47));
    expect([early.status, early.json.code]).toEqual([400, 'unavailable']);
    expect(early.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const refused = await request(home, 44, 47);
    expect([refused.status, refused.json.code]).toEqual([400, 'unavailable']);
    expect((await quote(ctx, home, day(45), day(47))).status).toBe(200);
    expect((await request(home, 45, 47)).status).toBe(201);
  });

  it('refuses a stay whose own turnover would reach the next stay, and takes one that ends the turnover on its first night', async () => {
    const home = await newHome(ctx, { terms: { turnover_days: 2 } });
    await book(ctx, home, day(40), day(43));
    expect((await quote(ctx, home, day(35), day(39))).json.code).toBe('unavailable');
    const refused = await request(home, 35, 39);
    expect([refused.status, refused.json.code]).toEqual([400, 'unavailable']);
    // Check-out on the 38th: its turnover is the 38th and 39th, the booking starts on the 40th.
    expect((await quote(ctx, home, day(35), day(38))).status).toBe(200);
    expect((await request(home, 35, 38)).status).toBe(201);
    expect(await blocked(home, 20, 60)).toEqual([range(33, 45)]);
  });

  it('follows no owner or maintenance block with turnover; a lapsed hold keeps none', async () => {
    const home = await newHome(ctx, { terms: { turnover_days: 2 } });
    expect((await addBlock(ctx, home, day(50), day(52))).status).toBe(201);
    expect((await addBlock(ctx, home, day(56), day(57), 'maintenance')).status).toBe(201);
    expect((await request(home, 52, 54)).status).toBe(201);
    const lapsing = await book(ctx, home, day(70), day(72));
    await sql`update bookings set hold_expires_at = now() - interval '1 minute' where reference = ${lapsing.reference}`.execute(
      ctx.api.db,
    );
    expect(await blocked(home, 60, 90)).toEqual([]);
    expect((await request(home, 72, 74)).status).toBe(201);
  });

  it('makes one of two racing requests wait for the other’s turnover (the second is refused, never both held)', async () => {
    const home = await newHome(ctx, { terms: { turnover_days: 1 } });
    for (let round = 0; round < 4; round++) {
      const at = 100 + round * 10;
      const answers = await Promise.all([request(home, at, at + 3), request(home, at + 3, at + 5)]);
      expect(answers.map((a) => a.status).sort()).toEqual([201, 400]);
      expect(answers.find((a) => a.status === 400)?.json.code).toBe('unavailable');
    }
  });
});

describe('imported stays', () => {
  it('are followed by turnover in availability, quotes, booking requests and the admin API; owner blocks are not', async () => {
    const home = await newHome(ctx, { terms: { turnover_days: 1 } });
    const id = await importedStays(home, [{ uid: 'stay-1', start: day(60), end: day(63) }]);
    const owner = await addBlock(ctx, home, day(80), day(82));
    const booking = await book(ctx, home, day(70), day(72));
    expect(await blocked(home, 50, 90)).toEqual([range(59, 64), range(69, 73), range(80, 82)]);
    expect((await quote(ctx, home, day(63), day(65))).json.code).toBe('unavailable');
    expect((await request(home, 63, 65)).json.code).toBe('unavailable');
    expect((await quote(ctx, home, day(64), day(66))).status).toBe(200);
    expect((await request(home, 64, 66)).status).toBe(201);

    const shown = await blocks(home);
    const imported = shown.find((b) => b.reason === 'imported');
    expect(shown.map((b) => [b.reason, b.channel, b.starts_on, b.ends_on, b.follows])).toEqual([
      ['imported', 'airbnb', day(60), day(63), null],
      ['turnover', 'airbnb', day(63), day(64), imported?.id],
      ['turnover', null, day(66), day(67), expect.stringMatching(/^B-/)],
      ['turnover', null, day(72), day(73), booking.reference],
      ['owner', null, day(80), day(82), null],
    ]);
    expect(shown.filter((b) => b.reason === 'turnover').every((b) => b.id === null && b.note === '')).toBe(true);
    expect(shown.find((b) => b.reason === 'owner')?.id).toBe(owner.json.id);
    expect(id).toBeTruthy();
  });
});

describe('the iCalendar export', () => {
  it('shows bare ranges: a booking’s turnover (both sides) as nights taken, nothing derived from a channel’s stay', async () => {
    const home = await newHome(ctx, { terms: { turnover_days: 1 } });
    const airbnb = await importedStays(home, [{ uid: 'ex-1', start: day(60), end: day(63) }]);
    await book(ctx, home, day(40), day(43));
    const feed = await exportFeed(home);
    expect(feed.status, feed.text).toBe(200);
    expect(eventsOf(feed.text)).toEqual([
      [compact(39), compact(44)],
      [compact(60), compact(63)],
    ]);
    expect(feed.text).not.toMatch(/turnover|airbnb/i);
    // A booking's reference (upper case; case-insensitive, the events' UIDs, lower-case uuids, could hold "b-" and 10
    // more of their characters).
    expect(feed.text).not.toMatch(/\bB-[0-9A-Z]{10}\b/);
    // The per-channel feed: without the channel's own stay, the booking's turnover still there.
    const forAirbnb = await exportFeed(home, `?channel=${airbnb}`);
    expect(eventsOf(forAirbnb.text)).toEqual([[compact(39), compact(44)]]);
    // Availability (our own rules) keeps the turnover around the imported stay.
    expect(await blocked(home, 30, 70)).toEqual([range(39, 44), range(59, 64)]);
  });
});

describe('the setting', () => {
  it('takes effect at once for the stays already taken, both ways (no cached answer outlives it)', async () => {
    const home = await newHome(ctx);
    await book(ctx, home, day(40), day(43));
    expect(await blocked(home, 30, 60)).toEqual([range(40, 43)]);
    expect((await quote(ctx, home, day(43), day(45))).status).toBe(200);
    expect(await blocks(home)).toEqual([]);

    await setTerms(ctx, home, { turnover_days: 3 });
    expect(await blocked(home, 30, 60)).toEqual([range(37, 46)]);
    expect((await quote(ctx, home, day(43), day(45))).json.code).toBe('unavailable');
    expect((await request(home, 45, 48)).json.code).toBe('unavailable');
    expect((await blocks(home)).map((b) => [b.reason, b.starts_on, b.ends_on])).toEqual([['turnover', day(43), day(46)]]);
    const feed = await exportFeed(home);
    expect(eventsOf(feed.text)).toEqual([[compact(37), compact(46)]]);

    await setTerms(ctx, home, { turnover_days: 0 });
    expect(await blocked(home, 30, 60)).toEqual([range(40, 43)]);
    expect((await request(home, 43, 45)).status).toBe(201);
  });

  it('is 0 to 7 whole nights: anything else is a 400 problem that changes nothing', async () => {
    const home = await newHome(ctx, { terms: { turnover_days: 2 } });
    for (const bad of [8, -1, 1.5, '2', null, 1e9]) {
      const res = await putTerms(ctx, home, { ...plainTerms, turnover_days: bad });
      expect([bad, res.status]).toEqual([bad, 400]);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.json.errors.map((e: { path: string }) => e.path)).toEqual(['turnover_days']);
    }
    const row = await ctx.api.db
      .selectFrom('holiday_home_terms as t')
      .innerJoin('listings as l', 'l.id', 't.listing_id')
      .select('t.turnover_days')
      .where('l.slug_en', '=', home)
      .executeTakeFirstOrThrow();
    expect(row.turnover_days).toBe(2);
    // Left out of a replacement, it is the default 0.
    const { turnover_days: _, ...withoutTurnover } = plainTerms;
    expect((await putTerms(ctx, home, withoutTurnover)).status).toBe(200);
    await book(ctx, home, day(40), day(43));
    expect(await blocked(home, 30, 60)).toEqual([range(40, 43)]);
    // The catalogue import takes it with the other terms, and refuses the same values.
    const listing = { ...villaListing, slug: { en: home, ar: `بيت-${home}` }, price: '100.00' };
    const refused = await importDocument(ctx, { listings: [{ ...listing, booking: { ...plainTerms, turnover_days: 9 } }] });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.json.errors.map((e: { path: string }) => e.path)).toEqual(['listings.0.booking.turnover_days']);
    const taken = await importDocument(ctx, { listings: [{ ...listing, booking: { ...plainTerms, turnover_days: 1 } }] });
    expect(taken.status, taken.text).toBe(200);
    expect(await blocked(home, 30, 60)).toEqual([range(39, 44)]);
  });
});
