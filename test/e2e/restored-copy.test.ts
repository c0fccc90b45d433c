import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import createClient from 'openapi-fetch';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { paths as AdminPaths } from '../../clients/admin/schema';
import { newDetailsKey } from '../../lib/crypto-jwe';
import { backupOfFolder } from '../../lib/node/backup';
import { openDatabase } from '../../lib/node/database';
import { newSecretKey } from '../../lib/webhooks/secrets';
import { createTestApi } from '../support/harness';
import { adminOf } from '../support/world';
import { baseUrlOf, runBin, type ServerProcess, startServer, stopServer } from '../support/server-process';
import { airbnbFeed } from '../stay/channel-feeds';
import { day, newHome, setup } from '../stay/support';
import { type Receiver, startReceiver, subscribe, verify } from '../webhooks/support';

/**
 * Issue 32, defect 8, as an operator meets it: a backup holding a due webhook delivery and a due calendar import (at
 * receivers on loopback) is restored into a new data folder and the server started on it. The copy says at start that
 * its outbound work is paused, and sends nothing (its scheduler runs, counted, hold it) until the operator runs
 * `npm run admin -- outbound resume`; then the delivery and the import's fetch go out. PGlite only: a restore is the
 * embedded database's (an export to PostgreSQL: test/e2e/move-to-postgres.test.ts).
 */
const work = await mkdtemp(join(tmpdir(), 'pa-copy-'));
let hooks: Receiver | undefined;
let feeds: Receiver | undefined;
let server: ServerProcess | undefined;
afterAll(async () => {
  await stopServer(server);
  await Promise.all([hooks?.close(), feeds?.close()]);
  await rm(work, { recursive: true, force: true });
});

/** Resolves with what happened first: `condition` came true, or something reached a receiver. */
async function firstOf(condition: () => Promise<boolean>, sent: () => number): Promise<'held' | 'sent'> {
  for (;;) {
    if (sent() > 0) return 'sent';
    if (await condition()) return sent() > 0 ? 'sent' : 'held';
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe.skipIf(Boolean(inject('databaseUrl')))('a database restored from a backup', { timeout: 900_000 }, () => {
  it('starts with outbound work paused, says so, sends nothing until resumed, then sends', async () => {
    const hookServer = await startReceiver(() => ({ status: 204 }));
    const feedServer = await startReceiver(() => ({
      status: 200,
      headers: { 'content-type': 'text/calendar; charset=utf-8' },
      body: airbnbFeed([{ uid: 'copy-1', start: day(40), end: day(43) }]),
    }));
    hooks = hookServer;
    feeds = feedServer;
    const sent = () => hookServer.requests.length + feedServer.requests.length;

    // The original: its keys, a company with a holiday home, a subscription and a ping (a due delivery), an import
    // (due at once). Made in this process, where nothing dispatches: the backup holds them due.
    const original = join(work, 'original');
    await mkdir(original);
    const details = newDetailsKey();
    const keys = {
      WEBHOOK_SECRET_KEY: newSecretKey(),
      DETAILS_KEYS: JSON.stringify({ [details.kid]: details.key }),
      DETAILS_KEY_ID: details.kid,
    };
    const api = await createTestApi({ handle: await openDatabase({ DATA_DIR: original }), env: keys });
    let subscription: { id: string; secret: string };
    try {
      const ctx = await setup({ api });
      subscription = await subscribe(api, ctx.company.id, { url: `${hookServer.url}/hook` });
      const ping = await adminOf(api).POST('/admin/v1/companies/{company_id}/webhook-subscriptions/{subscription_id}/ping', {
        params: { path: { company_id: ctx.company.id, subscription_id: subscription.id } },
      });
      expect(ping.response.status).toBe(202);
      const home = await newHome(ctx);
      const added = await adminOf(api).POST('/admin/v1/companies/{company_id}/listings/{slug}/calendar-imports', {
        params: { path: { company_id: ctx.company.id, slug: home } },
        body: { url: `${feedServer.url}/feed.ics`, channel: 'airbnb' } as never, // interval_minutes left to its default
      });
      expect(added.response.status, JSON.stringify(added.error)).toBe(201);
    } finally {
      await api.close();
    }
    const backup = join(work, 'nightly.tar.gz');
    await writeFile(backup, Buffer.from(await (await backupOfFolder(original)).arrayBuffer()));

    // The copy: restored into a new data folder, with the original's keys beside it (as docs/node-server.md says).
    const copy = join(work, 'copy');
    const restored = await runBin('admin.ts', ['restore', backup], { DATA_DIR: copy });
    expect(restored.code, restored.stderr).toBe(0);
    await writeFile(join(copy, 'webhook-secret-key'), `${keys.WEBHOOK_SECRET_KEY}\n`);
    await writeFile(
      join(copy, 'details-keys.json'),
      JSON.stringify({ DETAILS_KEY_ID: details.kid, DETAILS_KEYS: { [details.kid]: details.key } }),
    );
    server = startServer(copy, { NODE_ENV: 'production', SCHEDULER_INTERVAL_SECONDS: '0.2', WEBHOOK_DISPATCH_INTERVAL_MS: '50' });
    await server.started;
    expect(server.output()).toMatch(/^ {2}Outbound: {2}PAUSED since \S+ \(restored from nightly\.tar\.gz\)/m);
    expect(server.output()).toContain(`DATA_DIR=${copy} npm run --silent admin -- outbound resume`);

    const base = await baseUrlOf(copy);
    const token = (await readFile(join(copy, 'admin-token'), 'utf8')).trim();
    // The copy's admin API over real HTTP, through the typed admin client.
    const admin = createClient<AdminPaths>({ baseUrl: base, headers: { Authorization: `Bearer ${token}` } });
    const status = async () => (await admin.GET('/admin/v1/outbound')).data as { status: string; held_runs: number };
    // Two scheduler runs held the import (and the dispatcher ran every 50 ms meanwhile): nothing went out.
    expect(await firstOf(async () => (await status()).held_runs >= 2, sent)).toBe('held');
    expect(sent()).toBe(0);
    // raw: the health routes are not operations of the documents
    expect((await (await fetch(`${base}/health/ready`)).json()).outbound).toBe('paused');

    const resumed = await runBin('admin.ts', ['outbound', 'resume'], { DATA_DIR: copy });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: 'running', resumed: { reason: 'restored from nightly.tar.gz' } });
    await until(() => hookServer.requests.length > 0 && feedServer.requests.length > 0);
    expect(verify(subscription.secret, hookServer.requests[0]!).type).toBe('ping');
    expect(feedServer.requests[0]).toMatchObject({ method: 'GET', path: '/feed.ics' });
    await until(() => server?.output().includes('Outbound work resumed') ?? false);
    expect((await status()).status).toBe('running');
  });
});
