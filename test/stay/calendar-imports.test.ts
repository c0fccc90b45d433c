import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runScheduledWork, scheduledJobs } from '../../functions/jobs';
import { adminCli, cliTimeout } from '../support/admin-cli';
import { airbnbFeed, bookingComFeed, channelManagerFeed, useChannel } from './channel-feeds';
import {
  addBlock,
  availability,
  blocksOf,
  book,
  bookingBody,
  calendarFeed,
  calendarImports,
  day,
  newHome,
  postBooking,
  quote,
  setup,
  step,
  useStay,
} from './support';

/**
 * Calendars imported per holiday home (issue 24), as users would meet them: a test channel on a loopback HTTP server
 * serves Airbnb-, Booking.com- and channel-manager-shaped feeds; imported nights leave availability and quotes and
 * refuse booking requests; a change moves the block; a 304 changes nothing; a broken feed keeps the blocks and
 * announces calendar_import.failed once; an overlap with a held booking announces calendar.conflict; 20 concurrent
 * syncs leave one block per event; a loopback URL is refused on production.
 */
const ctx = useStay();
const channel = useChannel();
const imports = () => calendarImports(ctx);
let feedSerial = 0;

/** A feed served by the test channel and imported for `slug` ('scheduled work' below sets its own due time). */
async function importFeed(slug: string, body: string, name = 'airbnb') {
  const path = `/feeds/${feedSerial++}.ics`;
  channel.serve(path, body);
  const { id, made } = await imports().add(slug, channel.url(path), name);
  expect(made).toMatchObject({ import_id: id, listing: slug, channel: name });
  return { path, id, made };
}
const sync = (slug: string, id: string) => imports().sync(slug, id);
const blocks = (slug: string) => blocksOf(ctx, slug);
const events = async (type: string) =>
  (
    await ctx.api.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('company_id', '=', ctx.company.id)
      .where('type', '=', type)
      .execute()
  ).map((e) => e.data as Record<string, unknown>);

describe('an Airbnb-shaped feed', () => {
  it('imports its events as blocks (imported, airbnb), gone from availability, quotes and booking requests', async () => {
    const home = await newHome(ctx);
    const feed = airbnbFeed([
      { uid: 'r1', start: day(20), end: day(23) },
      { uid: 'b1', start: day(30), end: day(32), blocked: true },
    ]);
    const { id, made } = await importFeed(home, feed);
    expect(made).toMatchObject({ import_id: id, listing: home, channel: 'airbnb', interval_minutes: 10, last_synced_at: null });
    expect(made).not.toHaveProperty('url');
    const synced = await sync(home, id);
    expect(synced.status, synced.text).toBe(200);
    expect(synced.json).toMatchObject({ event_count: 2, last_error: null, failures: 0 });
    expect(synced.json.last_synced_at).toEqual(synced.json.last_changed_at);
    expect((await blocks(home)).map((b) => [b.reason, b.channel, b.starts_on, b.ends_on])).toEqual([
      ['imported', 'airbnb', day(20), day(23)],
      ['imported', 'airbnb', day(30), day(32)],
    ]);
    const open = await availability(ctx, home, `?from=${day(15)}&to=${day(40)}`);
    expect(open.json.blocked).toEqual([
      { start: day(20), end: day(23) },
      { start: day(30), end: day(32) },
    ]);
    const refused = await postBooking(ctx, bookingBody(home, day(21), day(24)));
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe('unavailable');
    expect((await quote(ctx, home, day(30), day(31))).json.code).toBe('unavailable');
    expect((await postBooking(ctx, bookingBody(home, day(23), day(25)))).status).toBe(201);
  });

  it('moves a changed event, removes a gone one (its own blocks only); a 304 changes nothing', async () => {
    const home = await newHome(ctx);
    const staff = await addBlock(ctx, home, day(60), day(61));
    expect(staff.status).toBe(201);
    const { id, path } = await importFeed(
      home,
      airbnbFeed([
        { uid: 'a', start: day(20), end: day(22) },
        { uid: 'b', start: day(25), end: day(27) },
      ]),
    );
    const first = (await sync(home, id)).json;
    const unchanged = await sync(home, id);
    expect(channel.requests(path).at(-1)?.ifNoneMatch).toBeDefined();
    expect(unchanged.json.last_changed_at).toBe(first.last_changed_at);
    expect(unchanged.json.event_count).toBe(2);
    const before = await blocks(home);
    channel.serve(path, airbnbFeed([{ uid: 'a', start: day(21), end: day(24) }]));
    const changed = await sync(home, id);
    expect(changed.json.event_count).toBe(1);
    const after = await blocks(home);
    expect(after.map((b) => [b.reason, b.starts_on, b.ends_on])).toEqual([
      ['imported', day(21), day(24)],
      ['owner', day(60), day(61)],
    ]);
    // The moved event keeps its block (keyed by UID).
    expect(after[0]?.id).toBe(before.find((b) => b.starts_on === day(20))?.id);
    // A valid, empty calendar removes them.
    channel.serve(path, airbnbFeed([]));
    expect((await sync(home, id)).json.event_count).toBe(0);
    expect((await blocks(home)).map((b) => b.reason)).toEqual(['owner']);
  });

  it('keeps the last good blocks on a broken feed; calendar_import.failed once after 3 failures, again only after recovery', async () => {
    const home = await newHome(ctx);
    const { id, path } = await importFeed(home, airbnbFeed([{ uid: 'k', start: day(20), end: day(22) }]), 'vrbo');
    await sync(home, id);
    const announced = async () => (await events('calendar_import.failed')).filter((d) => d.import_id === id).length;
    channel.serve(path, 'this is not a calendar');
    const bad = await sync(home, id);
    expect(bad.json.last_error).toContain('not a valid iCalendar');
    channel.serve(path, 'oops', 500);
    for (let i = 0; i < 3; i++) await sync(home, id);
    const failing = await sync(home, id);
    expect(failing.json).toMatchObject({ failures: 5, last_error: 'HTTP 500 from the feed.' });
    expect((await blocks(home)).map((b) => [b.starts_on, b.ends_on])).toEqual([[day(20), day(22)]]);
    expect(await announced()).toBe(1);
    channel.serve(path, airbnbFeed([{ uid: 'k', start: day(20), end: day(22) }]));
    expect((await sync(home, id)).json).toMatchObject({ failures: 0, last_error: null });
    channel.serve(path, '', 503);
    for (let i = 0; i < 3; i++) await sync(home, id);
    expect(await announced()).toBe(2);
  });

  it('announces calendar.conflict for an imported range over a held booking; both stay', async () => {
    const home = await newHome(ctx);
    const held = await book(ctx, home, day(40), day(43));
    const { id } = await importFeed(home, airbnbFeed([{ uid: 'c', start: day(42), end: day(45) }]));
    await sync(home, id);
    await sync(home, id);
    const conflicts = (await events('calendar.conflict')).filter((d) => d.import_id === id);
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]).toMatchObject({ reference: held.reference, import_id: id });
    const row = await ctx.api.db
      .selectFrom('bookings')
      .select('status')
      .where('reference', '=', held.reference)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('held');
    expect((await blocks(home)).map((b) => b.reason)).toEqual(['imported']);
  });

  it('leaves one block per event under 20 concurrent syncs', async () => {
    const home = await newHome(ctx);
    const feed = airbnbFeed([
      { uid: 'x1', start: day(70), end: day(72) },
      { uid: 'x2', start: day(75), end: day(77) },
      { uid: 'x3', start: day(80), end: day(81) },
    ]);
    const { id } = await importFeed(home, feed);
    const answers = await Promise.all(Array.from({ length: 20 }, () => sync(home, id)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const rows = await sql<{ n: number; uids: number }>`
      select count(*)::int as n, count(distinct uid)::int as uids from calendar_blocks where import_id = ${id}::uuid`.execute(
      ctx.api.db,
    );
    expect(rows.rows[0]).toEqual({ n: 3, uids: 3 });
  });
});

describe('Booking.com- and channel-manager-shaped feeds', () => {
  it('reads all-day closed windows, a time-zoned stay, a weekly recurrence, and leaves a cancelled event out', async () => {
    const home = await newHome(ctx);
    const booking = await importFeed(home, bookingComFeed([{ uid: 'bc-77', start: day(20), end: day(22) }]), 'booking.com');
    const manager = await importFeed(
      home,
      channelManagerFeed({ stay: [day(30), day(33)], weekly: day(50), cancelled: [day(90), day(92)] }),
      'channel manager',
    );
    expect((await sync(home, booking.id)).json.event_count).toBe(1);
    const cm = await sync(home, manager.id);
    expect(cm.json, cm.text).toMatchObject({ event_count: 4, last_error: null });
    expect((await blocks(home)).map((b) => [b.channel, b.starts_on, b.ends_on])).toEqual([
      ['booking.com', day(20), day(22)],
      ['channel manager', day(30), day(33)],
      ['channel manager', day(50), day(51)],
      ['channel manager', day(57), day(58)],
      ['channel manager', day(64), day(65)],
    ]);
  });
});

describe('the admin API', () => {
  it('refuses a loopback URL on production (400 url_refused), an interval under 5 minutes; PATCH and DELETE', async () => {
    const production = await setup({ api: ctx.api, environment: 'production' });
    const refused = await calendarImports(production).create('palm-5br-villa-private-beach-holiday', {
      url: channel.url('/x.ics'),
      channel: 'airbnb',
    });
    expect(refused.status).toBe(400);
    expect(refused.json.errors[0]).toMatchObject({ path: 'url', code: 'url_refused' });
    const home = await newHome(ctx);
    const short = await imports().create(home, { url: channel.url('/y.ics'), channel: 'a', interval_minutes: 4 });
    expect(short.status).toBe(400);
    const { id } = await importFeed(home, airbnbFeed([{ uid: 'p', start: day(20), end: day(21) }]));
    await sync(home, id);
    const patched = await imports().patch(home, id, { interval_minutes: 30, channel: 'Airbnb' });
    expect(patched.json).toMatchObject({ interval_minutes: 30, channel: 'Airbnb' });
    expect((await imports().list(home)).json.results).toHaveLength(1);
    expect((await imports().remove(home, id)).status).toBe(204);
    expect(await blocks(home)).toEqual([]);
    expect((await imports().remove(home, id)).status).toBe(404);
  });

  it('keeps the URL encrypted at rest', async () => {
    const home = await newHome(ctx);
    const { id, path } = await importFeed(home, airbnbFeed([]));
    const row = await ctx.api.db.selectFrom('calendar_imports').select('url_jwe').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.url_jwe).not.toContain(path);
    expect(row.url_jwe.split('.')).toHaveLength(5);
  });
});

describe('scheduled work', () => {
  // The import is made due at a scheduler time of its own (2100; the file's other imports wait until 2200), and only
  // the calendar job runs at that time (booking expiry at 2100 would cancel other test files' holds on PostgreSQL).
  it('syncs the imports that are due, by the scheduler’s clock, and not again before their interval', async () => {
    const home = await newHome(ctx);
    const { id, path } = await importFeed(home, airbnbFeed([{ uid: 's', start: day(20), end: day(22) }]));
    const dueAt = new Date('2100-01-01T00:00:00Z');
    await sql`update calendar_imports set next_sync_at = case when id = ${id}::uuid then ${dueAt.toISOString()}::timestamptz
      else '2200-01-01T00:00:00Z'::timestamptz end`.execute(ctx.api.db);
    const calendarJob = scheduledJobs.filter((job) => job.name === 'calendar_imports');
    expect(calendarJob).toHaveLength(1);
    const at = (minutes: number) => ({ ...ctx.api.platform.services(), now: () => new Date(dueAt.getTime() + minutes * 60_000) });
    const before = channel.requests(path).length;
    expect((await runScheduledWork(at(-1), calendarJob)).calendar_imports).toBe(0);
    expect((await runScheduledWork(at(0), calendarJob)).calendar_imports).toBe(1);
    expect(channel.requests(path).length - before).toBe(1);
    expect((await runScheduledWork(at(9), calendarJob)).calendar_imports).toBe(0);
    expect(channel.requests(path).length - before).toBe(1);
    const row = await ctx.api.db.selectFrom('calendar_imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      last_error: null,
      failures: 0,
      last_synced_at: dueAt,
      next_sync_at: new Date(dueAt.getTime() + 10 * 60_000),
    });
    expect((await runScheduledWork(at(10), calendarJob)).calendar_imports).toBe(1);
    expect(channel.requests(path).length - before).toBe(2);
  });
});

describe('the admin command line', cliTimeout, () => {
  const cli = adminCli(() => ctx.api);

  it('calendars add, list, sync and remove (the import and its blocks)', async () => {
    const home = await newHome(ctx);
    const path = `/feeds/${feedSerial++}.ics`;
    channel.serve(path, airbnbFeed([{ uid: 'cli1', start: day(40), end: day(42) }]));
    const made = await cli(
      'calendars',
      'add',
      ctx.company.id,
      home,
      '--url',
      channel.url(path),
      '--channel',
      'vrbo',
      '--interval',
      '15',
    );
    expect(made).toMatchObject({ listing: home, channel: 'vrbo', interval_minutes: 15, last_synced_at: null });
    const listed = await cli('calendars', 'list', ctx.company.id, home);
    expect(listed.results.map((i: { import_id: string }) => i.import_id)).toEqual([made.import_id]);
    const synced = await cli('calendars', 'sync', ctx.company.id, home, made.import_id);
    expect(synced).toMatchObject({ import_id: made.import_id, event_count: 1, last_error: null });
    expect((await blocks(home)).map((b) => [b.reason, b.channel, b.starts_on])).toEqual([['imported', 'vrbo', day(40)]]);
    await cli('calendars', 'remove', ctx.company.id, home, made.import_id);
    expect(await blocks(home)).toEqual([]);
    expect((await cli('calendars', 'list', ctx.company.id, home)).results).toEqual([]);
  });
});

describe('the per-channel export feed', () => {
  const exportFeed = (slug: string, query: string, host = ctx.company.host) => calendarFeed(ctx, slug, { query, host });
  const starts = (text: string) => [...text.matchAll(/DTSTART;VALUE=DATE:(\d{8})/g)].map((m) => m[1]);
  const compact = (d: string) => d.replaceAll('-', '');

  it('leaves out what came from that import only; another home’s or company’s import is 404, a malformed id 400', async () => {
    const home = await newHome(ctx);
    const airbnb = await importFeed(home, airbnbFeed([{ uid: 'x1', start: day(50), end: day(52) }]), 'airbnb');
    const booking = await importFeed(home, bookingComFeed([{ uid: 'y1', start: day(60), end: day(61) }]), 'booking.com');
    expect((await sync(home, airbnb.id)).status).toBe(200);
    expect((await sync(home, booking.id)).status).toBe(200);
    const all = await exportFeed(home, '');
    expect(starts(all.text)).toEqual([compact(day(50)), compact(day(60))]);
    const forAirbnb = await exportFeed(home, `?channel=${airbnb.id}`);
    expect(forAirbnb.status, forAirbnb.text).toBe(200);
    expect(starts(forAirbnb.text)).toEqual([compact(day(60))]);
    expect(forAirbnb.text).not.toMatch(/airbnb|booking\.com/i);
    expect(starts((await exportFeed(home, `?channel=${booking.id}`)).text)).toEqual([compact(day(50))]);

    const otherHome = await newHome(ctx);
    const unknown = await exportFeed(otherHome, `?channel=${airbnb.id}`);
    expect([unknown.status, unknown.json?.code]).toEqual([404, 'not_found']);
    const other = await setup({ api: ctx.api });
    const foreign = await exportFeed(home, `?channel=${airbnb.id}`, other.company.host);
    expect(foreign.status).toBe(404);
    const malformed = await exportFeed(home, '?channel=airbnb');
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('content-type')).toMatch(/problem\+json/);
  });
});

describe('confirming a booking while an import is stale', () => {
  it('answers the warning import_stale (never a refusal) past twice the interval by the services’ clock, or never synced', async () => {
    const home = await newHome(ctx);
    const { id } = await importFeed(home, airbnbFeed([{ uid: 'z1', start: day(70), end: day(72) }]));
    const synced = await sync(home, id);
    const at = new Date(synced.json.last_synced_at).getTime();
    const early = await book(ctx, home, day(80), day(82));
    const late = await book(ctx, home, day(84), day(86));
    try {
      ctx.api.clock.set(new Date(at + 19 * 60_000));
      const fresh = await step(ctx, early.reference, 'confirm');
      expect([fresh.status, fresh.json.status, fresh.json.warnings]).toEqual([200, 'confirmed', []]);
      ctx.api.clock.set(new Date(at + 21 * 60_000));
      const stale = await step(ctx, late.reference, 'confirm');
      expect([stale.status, stale.json.status]).toEqual([200, 'confirmed']);
      expect(stale.json.warnings).toEqual([{ code: 'import_stale', message: expect.stringContaining(id) }]);
    } finally {
      ctx.api.clock.set(null);
    }
    const unsynced = await newHome(ctx);
    await importFeed(unsynced, airbnbFeed([]), 'vrbo');
    const never = await step(ctx, (await book(ctx, unsynced, day(80), day(82))).reference, 'confirm');
    expect([never.status, never.json.warnings.map((w: { code: string }) => w.code)]).toEqual([200, ['import_stale']]);
    const plain = await newHome(ctx);
    const none = await step(ctx, (await book(ctx, plain, day(80), day(82))).reference, 'confirm');
    expect([none.status, none.json.warnings]).toEqual([200, []]);
  });
});
