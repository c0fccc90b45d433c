import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { pauseOutbound } from '../../lib/outbound';
import { heldReport } from '../../lib/scheduler';
import { deliver } from '../../lib/webhooks/deliver';
import { dispatchDue } from '../../lib/webhooks/local';
import { testClient } from '../support/client';
import { createTestApi, type TestApi } from '../support/harness';
import { adminOf } from '../support/world';
import { airbnbFeed } from '../stay/channel-feeds';
import { calendarImports, type Ctx, day, newHome, setup } from '../stay/support';
import { qstashTestApi } from '../webhooks/qstash-support';
import { type Receiver, startReceiver, subscribe, verify, webhooksAdmin } from '../webhooks/support';

/**
 * Issue 32, defect 8, on the real scheduler, dispatcher and QStash adapter over a database of this file alone (the pause
 * is the whole database's): a copy's due webhook delivery, due calendar import and due rebuild hook, at receivers on
 * loopback, are held while its outbound work is paused (each scheduler run counted), requests are served meanwhile,
 * and all of them go out once the operator resumes (POST /admin/v1/outbound/resume). The copies themselves (restore,
 * export) are made in test/admin/restore.test.ts and test/e2e/move-to-postgres.test.ts.
 */
let api: TestApi;
let ctx: Ctx;
let hooks: Receiver;
let feeds: Receiver;
let builds: Receiver;
let subscription: { id: string; secret: string };
let home: string;

beforeAll(async () => {
  hooks = await startReceiver(() => ({ status: 204 }));
  feeds = await startReceiver(() => ({
    status: 200,
    headers: { 'content-type': 'text/calendar; charset=utf-8' },
    body: airbnbFeed([{ uid: 'copy-1', start: day(40), end: day(43) }]),
  }));
  builds = await startReceiver(() => ({ status: 200 }));
  api = await createTestApi({ ownDatabase: true });
  ctx = await setup({ api, settings: { rebuild_hook_url: `${builds.url}/build` } });
  subscription = await subscribe(api, ctx.company.id, { url: `${hooks.url}/hook` });
  home = await newHome(ctx);
});
afterAll(async () => {
  await Promise.all([hooks.close(), feeds.close(), builds.close()]);
  await api.close();
});

/** The scheduler as it runs `minutes` from now (past the rebuild hook's delay, the import due). */
const schedulerIn = (minutes: number) => {
  const services = api.platform.services();
  const at = new Date(Date.now() + minutes * 60_000);
  return runScheduledWork({ ...services, now: () => at, webhooks: { ...services.webhooks, now: () => at } });
};
const sent = () => ({ hooks: hooks.requests.length, feeds: feeds.requests.length, builds: builds.requests.length });
/** The operator's outbound routes through the typed admin client. */
const outbound = (on: TestApi) => ({
  status: () => adminOf(on).GET('/admin/v1/outbound'),
  resume: () => adminOf(on).POST('/admin/v1/outbound/resume'),
});
/** GET /health/ready as any probe asks it. */
const ready = async () =>
  // raw: the health routes are not operations of the API's documents
  (await api.request('/health/ready')).json;

describe('outbound work on a copy of the database', () => {
  it('is held while paused, requests are served, and everything goes out once the operator resumes', async () => {
    await pauseOutbound(api.db, new Date(), 'restored from copy.tar.gz');
    // Due work of every kind, made while paused: a ping (a due delivery), an import (due at once), a rebuild queued by
    // the home published above.
    const ping = await webhooksAdmin(api, ctx.company.id).ping(subscription.id);
    expect(ping.response.status).toBe(202);
    const added = await calendarImports(ctx).create(home, { url: `${feeds.url}/feed.ics`, channel: 'airbnb' });
    expect(added.status, added.text).toBe(201);

    const held = await schedulerIn(5);
    for (const job of ['outbox', 'rebuild_hooks', 'calendar_imports']) expect([job, held[job]]).toEqual([job, heldReport]);
    // The jobs that stay inside the database run (they may queue deliveries, which wait).
    expect(typeof held.booking_expiry).toBe('number');
    await dispatchDue(api.db, api.platform.webhooks);
    expect(await deliver(api.db, api.platform.webhooks, ping.data?.id as string)).toBe('busy');
    await schedulerIn(6);
    expect(sent()).toEqual({ hooks: 0, feeds: 0, builds: 0 });

    const status = await outbound(api).status();
    expect(status.data).toMatchObject({ status: 'paused', reason: 'restored from copy.tar.gz', held_runs: 2 });
    expect(await ready()).toMatchObject({ status: 'ready', outbound: 'paused' });
    // Requests are served as usual.
    expect((await testClient(api, { host: ctx.company.host }).GET('/api/v1/listings')).response.status).toBe(200);

    const resumed = await outbound(api).resume();
    expect(resumed.response.status).toBe(200);
    expect(resumed.data).toMatchObject({ status: 'running', resumed: { status: 'paused', held_runs: 2 } });
    expect((await ready()).outbound).toBe('running');

    const ran = await schedulerIn(5);
    expect(ran.calendar_imports).toBe(1);
    expect(ran.rebuild_hooks).toBe(1);
    await dispatchDue(api.db, api.platform.webhooks);
    expect(sent()).toEqual({ hooks: 1, feeds: 1, builds: 1 });
    expect(verify(subscription.secret, hooks.requests[0]!).type).toBe('ping');
    // Nothing to resume any more: the call says so and changes nothing.
    expect((await outbound(api).resume()).data).toEqual({ status: 'running', resumed: null });
  });
});

describe('outbound work on a copy that delivers through QStash', () => {
  it('hands nothing to QStash and attempts no callback while paused; both run once resumed', async () => {
    const t = await qstashTestApi();
    try {
      await pauseOutbound(t.api.db, new Date(), 'exported for PostgreSQL');
      const ping = await webhooksAdmin(t.api, t.company.id).ping(t.subscription.id);
      expect(ping.response.status).toBe(202);
      const pingId = ping.data?.id as string;
      expect((await runScheduledWork(t.api.platform.services())).outbox).toEqual(heldReport);
      expect(t.publishes()).toHaveLength(0);
      // A callback QStash makes for a message published before the copy was made: refused (QStash retries it).
      expect((await t.callback(pingId)).status).toBe(409);
      expect(t.subscriber.requests).toHaveLength(0);

      await outbound(t.api).resume();
      await runScheduledWork(t.api.platform.services());
      expect(t.publishes()).toHaveLength(1);
      expect((await t.callback(pingId)).status).toBe(200);
      expect(t.subscriber.requests).toHaveLength(1);
    } finally {
      await t.close();
    }
  });
});
