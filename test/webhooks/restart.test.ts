import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths as AdminPaths } from '../../clients/admin/schema';
import { freePort, type Receiver, startReceiver, verify, waitFor } from './support';
import { spawnedServersHere } from '../support/passes';
import { binArgs } from '../support/server-process';

/**
 * The Node server (bin/server.ts, embedded PGlite, in-process dispatcher) killed with SIGKILL while its
 * deliveries are in flight to a slow subscriber, then started again on the same data folder: every pending
 * delivery still arrives (at least once). The subscriber timeout is 3 s here, so an interrupted attempt's
 * hold on its delivery lapses after 8 s instead of 20.
 */
let dataDir: string;
let port: number;
let server: ChildProcess | undefined;
let hook: Receiver;

async function start(): Promise<void> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    WEBHOOK_TIMEOUT_MS: '3000',
    WEBHOOK_DISPATCH_INTERVAL_MS: '200',
  };
  for (const name of ['DATABASE_URL', 'ADMIN_TOKEN', 'WEBHOOK_SECRET_KEY', 'QSTASH_TOKEN']) delete env[name];
  const child = spawn(process.execPath, binArgs('server.ts'), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  server = child;
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), 90_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Admin:')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
}

/** The typed admin client of the server on its port, with the operator token the server wrote. */
async function admin() {
  const token = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();
  return createClient<AdminPaths>({ baseUrl: `http://127.0.0.1:${port}`, headers: { Authorization: `Bearer ${token}` } });
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'property-api-webhooks-'));
  port = await freePort();
  // At first the subscriber is slow: it answers after 30 s, long after the server is killed.
  hook = await startReceiver(() => ({ status: 200, delayMs: 30_000 }));
});
afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  await hook.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe.runIf(spawnedServersHere)('the Node server killed during dispatch', () => {
  it('delivers every pending delivery after a restart', async () => {
    await start();
    const [company] = (await (await admin()).GET('/admin/v1/companies')).data?.results ?? [];
    const company_id = company?.id as string;
    const created = await (await admin()).POST('/admin/v1/companies/{company_id}/webhook-subscriptions', {
      params: { path: { company_id } },
      // Pings reach a subscription whatever its types; a type the start never emits keeps out what the demo's scheduled
      // work records when the server starts (its months' closings and tax documents, their e-invoices' warnings).
      body: { url: `${hook.url}/hook`, event_types: ['deal.won'] } as never,
    });
    expect(created.response.status).toBe(201);
    const subscription_id = created.data?.id as string;
    const pings: Array<{ event_id: string }> = [];
    for (let i = 0; i < 5; i++) {
      const ping = await (await admin()).POST('/admin/v1/companies/{company_id}/webhook-subscriptions/{subscription_id}/ping', {
        params: { path: { company_id, subscription_id } },
      });
      pings.push(ping.data as { event_id: string });
    }
    const expected = pings.map((p) => p.event_id).sort();
    // Every delivery is in flight to the slow subscriber: kill the server now.
    await waitFor(() => hook.requests.length >= 5, 20_000, 'five deliveries in flight');
    server!.kill('SIGKILL');
    await new Promise((resolve) => server!.once('exit', resolve));
    const before = hook.requests.length;
    hook.respond(() => ({ status: 204 }));

    await start();
    await waitFor(
      async () => {
        const states = await Promise.all(
          pings.map(
            async (p) =>
              (
                await (
                  await admin()
                ).GET('/admin/v1/companies/{company_id}/events/{event_id}/deliveries', {
                  params: { path: { company_id, event_id: p.event_id } },
                })
              ).data?.results[0]?.status,
          ),
        );
        return states.every((s) => s === 'succeeded');
      },
      45_000,
      'every delivery to succeed after the restart',
    );
    const after = hook.requests.slice(before);
    // At least once, as documented: every pending ping arrives, signed, and nothing else does. A second arrival of one
    // ping is allowed (an attempt slower than its hold on a loaded machine is tried again; CI, 2026-11-29).
    const arrived = after.map((r) => verify(created.data?.secret as string, r).id);
    expect([...new Set(arrived)].sort()).toEqual(expected);
  }, 150_000);
});
