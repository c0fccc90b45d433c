import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { createTestApi, demo, type TestApi } from '../support/harness';
import { newHome, setup } from '../stay/support';
import { deliveriesOf, dispatch, record, subscribe } from '../webhooks/support';
import { adminOf, createCompany, importCatalogue } from '../support/world';

/**
 * DNS rebinding (issue 32): a name whose DNS answers a public address when the URL is checked and 127.0.0.1 when it
 * is asked again (TTL 0). Everything fetched goes through lib/outbound/guard.ts, which resolves once, checks every
 * address and connects to the checked ones; a fetch that resolved the name again itself would reach the loopback
 * receiver below. For webhook deliveries, the static-site rebuild hook and calendar imports, on production workspaces.
 */

/**
 * The public address the DNS answers first: ORCHIDv2 (2001:20::/28), globally reachable by the IPv6 registry, so the
 * check passes, but no host answers there (a machine without IPv6 fails at once, one with it when the attempt times
 * out). The connection to it fails; what matters is that none reaches 127.0.0.1.
 */
const publicAddress = '2001:20::1';

/**
 * The DNS of the outside world, with names under rebind.test run by a rebinding attacker: per name, the first answer
 * after `rebind()` is public, every later one 127.0.0.1. Other names do not resolve.
 */
function rebindingDns() {
  const asked = new Map<string, number>();
  return {
    resolve: async (host: string) => {
      if (!host.endsWith('.rebind.test')) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      const times = asked.get(host) ?? 0;
      asked.set(host, times + 1);
      return times === 0 ? [publicAddress] : ['127.0.0.1'];
    },
    rebind: () => asked.clear(),
  };
}

/** A real HTTP server on loopback that counts every TCP connection made to it (a TLS handshake included). */
async function loopbackReceiver() {
  let connections = 0;
  const server: Server = createServer((_req, res) => res.writeHead(200).end());
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const dns = rebindingDns();
/**
 * The machine's own fetch, whose resolver is that DNS: a fetch that resolves the name itself when it connects (as the
 * global fetch does with the system's resolver) asks it a second time.
 */
const resolvingAgent = new Agent({
  connect: {
    lookup: (host: string, options: { all?: boolean }, callback: (...args: any[]) => void) => {
      dns.resolve(host).then(([address]) => {
        if (options.all) callback(null, [{ address, family: 4 }]);
        else callback(null, address, 4);
      }, callback);
    },
  },
});
const systemFetch = ((url: string, init: RequestInit) =>
  undiciFetch(url, { dispatcher: resolvingAgent, ...(init as object) })) as unknown as typeof fetch;

let api: TestApi;
let receiver: Awaited<ReturnType<typeof loopbackReceiver>>;

beforeAll(async () => {
  // A short timeout: on a machine with IPv6, the attempt to the public address waits for it.
  api = await createTestApi({
    ownDatabase: true,
    env: { WEBHOOK_TIMEOUT_MS: '2000' },
    outbound: { resolveHost: dns.resolve, fetch: systemFetch },
  });
  receiver = await loopbackReceiver();
});
afterAll(async () => {
  await receiver.close();
  await resolvingAgent.close();
  await api.close();
});

const networkFailure = /^(network error|timed out)/;

describe('a name that rebinds to 127.0.0.1 after the check', () => {
  it('never leads a webhook delivery to the loopback receiver', async () => {
    const company = await createCompany(api, { environment: 'production' });
    const url = `https://hook.rebind.test:${receiver.port}/hook`;
    await subscribe(api, company.id, { url });
    dns.rebind();
    const id = await record(api, company.id, 'lead.created');
    await dispatch(api);
    expect(receiver.connections()).toBe(0);
    // The attempt was made, to the checked public address, and failed there; it is retried.
    const [delivery] = await deliveriesOf(api, id);
    expect(delivery).toMatchObject({ status: 'pending', attempt_count: 1 });
    expect(delivery?.last_error).toMatch(networkFailure);
    // The next check sees 127.0.0.1 and refuses the URL for good, still without a connection.
    await dispatch(api, new Date(Date.now() + 3_600_000));
    const [after] = await deliveriesOf(api, id);
    expect(after).toMatchObject({ status: 'failed', attempt_count: 2 });
    expect(after?.last_error).toBe(
      'URL refused: hook.rebind.test resolves to 127.0.0.1, not a public address, which production workspaces need.',
    );
    expect(receiver.connections()).toBe(0);
  });

  it('never leads the static-site rebuild hook to the loopback receiver', async () => {
    const rebuild_hook_url = `https://build.rebind.test:${receiver.port}/build`;
    const company = await createCompany(api, { environment: 'production', settings: { rebuild_hook_url } });
    await importCatalogue(api, company.id, {
      areas: demo.areas,
      listings: demo.listings.filter((l) => l.status === 'published'),
    });
    dns.rebind();
    const services = api.platform.services();
    const later = new Date(Date.now() + 60_000);
    await runScheduledWork({ ...services, webhooks: { ...services.webhooks, now: () => later } });
    expect(receiver.connections()).toBe(0);
    const job = await api.db
      .selectFrom('rebuild_jobs')
      .selectAll()
      .where('company_id', '=', company.id)
      .executeTakeFirstOrThrow();
    expect(job.attempt_count).toBe(1);
    expect(job.last_error).toMatch(networkFailure);
  });

  it('never leads a calendar import to the loopback receiver', async () => {
    const ctx = await setup({ api, environment: 'production' });
    const home = await newHome(ctx);
    const listing = { company_id: ctx.company.id, slug: home };
    const url = `https://feed.rebind.test:${receiver.port}/calendar.ics`;
    const made = await adminOf(api).POST('/admin/v1/companies/{company_id}/listings/{slug}/calendar-imports', {
      params: { path: listing },
      body: { url, channel: 'airbnb' } as never, // interval_minutes left to its default
    });
    expect(made.response.status, JSON.stringify(made.error)).toBe(201);
    const id = made.data?.import_id as string;
    // Synced here, by hand, not by the scheduler of the test above.
    await sql`update calendar_imports set next_sync_at = '2200-01-01T00:00:00Z' where id = ${id}::uuid`.execute(api.db);
    dns.rebind();
    const synced = await adminOf(api).POST('/admin/v1/companies/{company_id}/listings/{slug}/calendar-imports/{import_id}/sync', {
      params: { path: { ...listing, import_id: id } },
    });
    expect(synced.response.status, JSON.stringify(synced.error)).toBe(200);
    expect(receiver.connections()).toBe(0);
    expect(synced.data?.last_error).toMatch(/^The feed (could not be fetched|did not answer in time)/);
  });

  it('refuses a name that does not resolve when the URL is set (production)', async () => {
    const company = await createCompany(api, { environment: 'production' });
    const res = await adminOf(api).POST('/admin/v1/companies/{company_id}/webhook-subscriptions', {
      params: { path: { company_id: company.id } },
      body: { url: 'https://nowhere.invalid/hook' },
    });
    expect(res.response.status).toBe(400);
    expect(res.error?.errors).toEqual([expect.objectContaining({ path: 'url', code: 'url_not_allowed' })]);
  });
});
