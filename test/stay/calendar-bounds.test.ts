import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runScheduledWork, scheduledJobs } from '../../functions/jobs';
import { feedBounds, readFeedBounded } from '../../lib/ical-read';
import { airbnbFeed, useChannel } from './channel-feeds';
import { datedEvent, everySecond, longUid, manyExceptions, manyNights, neverMatching } from './hostile-feeds';
import { calendarImports, day, newHome, useStay } from './support';

/**
 * Issue 32, defects 1 and 2: no imported feed can stop the server or answer 500. Each probe of the issue is served by
 * a test channel on a loopback HTTP server; the sync answers with the import's failure recorded (`last_error` with its
 * code, `failures` + 1, the last good blocks kept) or with what it could read within the bounds, and other requests are
 * answered while a feed is read (on Node, in a worker thread). Outcomes only: no clock is read.
 */
const ctx = useStay();
const channel = useChannel();
const imports = () => calendarImports(ctx);
let serial = 0;

async function importUrl(slug: string, url: string) {
  const { id, made } = await imports().add(slug, url, 'probe');
  expect(made).toMatchObject({ import_id: id, listing: slug, channel: 'probe' });
  return id;
}
async function importFeed(slug: string, body: string) {
  const path = `/bounds/${serial++}.ics`;
  channel.serve(path, body);
  return { id: await importUrl(slug, channel.url(path)), path };
}
const sync = (slug: string, id: string) => imports().sync(slug, id);
const blockUids = async (id: string) =>
  (
    await sql<{ uid: string; starts_on: string }>`select uid, starts_on::text from calendar_blocks where import_id = ${id}::uuid
      order by starts_on, uid`.execute(ctx.api.db)
  ).rows;

/** A home with one good block from its import, then `feed` served in its place and synced. */
async function probe(feed: string) {
  const home = await newHome(ctx);
  const { id, path } = await importFeed(home, airbnbFeed([{ uid: 'kept', start: day(20), end: day(22) }]));
  expect((await sync(home, id)).json).toMatchObject({ event_count: 1, failures: 0 });
  channel.serve(path, feed);
  const res = await sync(home, id);
  return { home, id, path, res };
}

describe('the probes of issue 32 (defect 1): a recorded failure of that import, the last good blocks kept', () => {
  const cases: Array<[string, () => string, string]> = [
    ['a daily rule that never matches (BYMONTH=2;BYMONTHDAY=30)', () => neverMatching(day(-30)), 'rule_too_costly'],
    ['a rule every second (FREQ=SECONDLY)', () => everySecond(day(-30)), 'rule_unsupported'],
    ['21,000 one-night events in about 2 MiB', () => manyNights(day(-400), 21_000), 'too_many_events'],
    ['9,000 events with 9,000 RECURRENCE-ID exceptions', () => manyExceptions(day(10), 9_000), 'too_many_blocks'],
  ];
  for (const [name, feed, code] of cases) {
    it(`${name}: ${code}`, async () => {
      const text = feed();
      expect(new TextEncoder().encode(text).byteLength).toBeLessThanOrEqual(feedBounds.maxBytes);
      const { id, res } = await probe(text);
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ failures: 1, event_count: 1 });
      expect(res.json.last_error).toMatch(new RegExp(`^${code}: `));
      expect((await blockUids(id)).map((b) => b.uid)).toEqual(['kept@airbnb.com']);
    });
  }

  it('answers other requests (/health) while a large feed is read', async () => {
    const { home, id } = await (async () => {
      const slug = await newHome(ctx);
      return { home: slug, ...(await importFeed(slug, manyNights(day(-100), 19_000))) };
    })();
    let finished = false;
    const syncing = sync(home, id).then((res) => {
      finished = true;
      return res;
    });
    // raw: /health is not a path of the public API's document
    const health = await ctx.api.request('/health', { host: ctx.company.host });
    expect(health.status).toBe(200);
    // The health check was answered while the feed was still being read: nothing waits for the reading.
    expect(finished).toBe(false);
    const done = await syncing;
    expect(done.status, done.text).toBe(200);
    // Within the bounds: every night of the window from the 19,000 (the window is 730 days from today).
    expect(done.json).toMatchObject({ failures: 0, last_error: null, event_count: feedBounds.horizonDays });
  });

  it('relates RECURRENCE-ID exceptions by UID: each series moves its own occurrence only', async () => {
    const home = await newHome(ctx);
    const { id } = await importFeed(home, manyExceptions(day(10), 3));
    const res = await sync(home, id);
    expect(res.json, res.text).toMatchObject({ failures: 0, event_count: 6 });
    const blocks = await blockUids(id);
    // Each series: its first occurrence moved a day on by its own exception, its second a week after the first.
    for (const n of [0, 1, 2]) {
      expect(blocks.filter((b) => b.uid.startsWith(`s${n}@probe#`)).map((b) => b.starts_on)).toEqual([day(11), day(17)]);
    }
  });
});

describe('out-of-range values (defect 2): never a 500', () => {
  const compact = (date: string) => date.replaceAll('-', '');

  it('an event from year 0 into the window fails the import, recorded (date_out_of_range)', async () => {
    const { res } = await probe(datedEvent('zero@probe', '00000101', compact(day(15))));
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ failures: 1, event_count: 1 });
    expect(res.json.last_error).toMatch(/^date_out_of_range: /);
  });

  it('an event ending 9999-12-31 fails the import, recorded; one starting then is beyond the window, left out', async () => {
    const ending = await probe(datedEvent('end@probe', compact(day(15)), '99991231'));
    expect([ending.res.status, ending.res.json.failures]).toEqual([200, 1]);
    expect(ending.res.json.last_error).toMatch(/^date_out_of_range: /);
    const starting = await probe(datedEvent('late@probe', '99991231', '99991231'));
    expect(starting.res.status, starting.res.text).toBe(200);
    expect(starting.res.json).toMatchObject({ failures: 0, last_error: null, event_count: 0 });
  });

  it('a UID of 10,000 characters fails the import, recorded (uid_too_long)', async () => {
    const { res, id } = await probe(longUid(10_000, day(30), day(32)));
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ failures: 1, event_count: 1 });
    expect(res.json.last_error).toMatch(/^uid_too_long: /);
    expect((await blockUids(id)).map((b) => b.uid)).toEqual(['kept@airbnb.com']);
  });
});

describe('the in-process reader (Workers: no worker threads) keeps the same bounds', () => {
  const now = new Date().toISOString();
  it.each([
    ['never', () => neverMatching('2026-01-01'), 'rule_too_costly'],
    ['secondly', () => everySecond('2026-01-01'), 'rule_unsupported'],
    ['21,000 nights', () => manyNights('2026-01-01', 21_000), 'too_many_events'],
    ['year 0', () => datedEvent('zero', '00000101', '29000101'), 'date_out_of_range'],
    ['long UID', () => longUid(10_000, '2027-01-01', '2099-01-01'), 'uid_too_long'],
  ])('%s', (_name, feed, code) => {
    const read = readFeedBounded({ text: feed(), timeZone: 'Asia/Dubai', now });
    expect(read).toMatchObject({ ok: false, code });
  });
});

/**
 * A feed server whose answers wait until the test lets them go: a sync is held inside its fetch, deterministically,
 * while the test removes its import.
 */
async function heldChannel() {
  const held: Array<() => void> = [];
  let requests = 0;
  let arrived: () => void = () => {};
  let arrival = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const server: Server = createServer((_req, res) => {
    requests++;
    held.push(() =>
      res.writeHead(200, { 'Content-Type': 'text/calendar' }).end(airbnbFeed([{ uid: 'h', start: day(40), end: day(41) }])),
    );
    arrived();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/held.ics`,
    requests: () => requests,
    /** Resolves once a request is waiting. */
    waiting: async () => {
      await arrival;
      arrival = new Promise<void>((resolve) => {
        arrived = resolve;
      });
    },
    release: () => {
      for (const answer of held.splice(0)) answer();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('a sync racing a DELETE of its import (defect 2)', () => {
  it('answers 404 (the import is gone) and writes nothing', async () => {
    const held = await heldChannel();
    try {
      const home = await newHome(ctx);
      const id = await importUrl(home, held.url);
      const syncing = sync(home, id);
      await held.waiting();
      expect((await imports().remove(home, id)).status).toBe(204);
      held.release();
      const res = await syncing;
      expect([res.status, res.json.code]).toEqual([404, 'not_found']);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
      expect(await blockUids(id)).toEqual([]);
    } finally {
      held.release();
      await held.close();
    }
  });

  it('in scheduled work: the job reports what it synced, nothing thrown', async () => {
    const held = await heldChannel();
    try {
      const home = await newHome(ctx);
      const id = await importUrl(home, held.url);
      const dueAt = new Date('2101-03-01T00:00:00Z');
      await sql`update calendar_imports set next_sync_at = ${dueAt.toISOString()}::timestamptz where id = ${id}::uuid`.execute(
        ctx.api.db,
      );
      const job = scheduledJobs.filter((j) => j.name === 'calendar_imports');
      const running = runScheduledWork({ ...ctx.api.platform.services(), now: () => dueAt }, job);
      await held.waiting();
      expect((await imports().remove(home, id)).status).toBe(204);
      held.release();
      const report = await running;
      // A count, not an error (on PostgreSQL other files' imports due by then may be synced in the same run).
      expect(report.calendar_imports).toEqual(expect.any(Number));
      expect(await blockUids(id)).toEqual([]);
    } finally {
      held.release();
      await held.close();
    }
  });
});

describe('scheduled work on a failing feed', () => {
  it('records last_error and failures, and backs off: a sync under way is not taken again; failures double the wait', async () => {
    const held = await heldChannel();
    const home = await newHome(ctx);
    const { id } = await importFeed(home, neverMatching(day(-30)));
    const dueAt = new Date('2102-05-01T00:00:00Z');
    const minutes = (n: number) => new Date(dueAt.getTime() + n * 60_000);
    const job = scheduledJobs.filter((j) => j.name === 'calendar_imports');
    const at = (n: number) => ({ ...ctx.api.platform.services(), now: () => minutes(n) });
    const row = () => ctx.api.db.selectFrom('calendar_imports').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    await sql`update calendar_imports set next_sync_at = ${dueAt.toISOString()}::timestamptz where id = ${id}::uuid`.execute(
      ctx.api.db,
    );
    try {
      // Outcomes on this import (on PostgreSQL other files' imports due by then may be synced in the same runs).
      await runScheduledWork(at(0), job);
      expect(await row()).toMatchObject({ failures: 1, next_sync_at: minutes(10) });
      expect((await row()).last_error).toMatch(/^rule_too_costly: /);
      // Second failure: twice the interval; the third: four times (calendar_import.failed once, as before).
      await runScheduledWork(at(10), job);
      expect(await row()).toMatchObject({ failures: 2, next_sync_at: minutes(30) });
      await runScheduledWork(at(29), job);
      expect(await row()).toMatchObject({ failures: 2, next_sync_at: minutes(30) });
      await runScheduledWork(at(30), job);
      expect(await row()).toMatchObject({ failures: 3, next_sync_at: minutes(70) });

      // A sync that never ends (a process stopped during it, as by kill -9): its claim already moved the next sync
      // on as after one more failure, so a start a minute later does not take the same import again.
      const changed = await imports().patch(home, id, { url: held.url });
      expect(changed.status, changed.text).toBe(200);
      await sql`update calendar_imports set next_sync_at = ${minutes(70).toISOString()}::timestamptz where id = ${id}::uuid`.execute(
        ctx.api.db,
      );
      const stuck = runScheduledWork(at(70), job);
      await held.waiting();
      expect((await row()).next_sync_at).toEqual(minutes(70 + 80));
      await runScheduledWork(at(71), job);
      expect(held.requests()).toBe(1);
      held.release();
      expect((await stuck).calendar_imports).toEqual(expect.any(Number));
      // A good sync: healthy again, next due one interval on.
      expect(await row()).toMatchObject({ failures: 0, last_error: null, next_sync_at: minutes(80) });
    } finally {
      held.release();
      await held.close();
    }
  });
});
