import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll } from 'vitest';
import type { TestApi } from './harness';
import { binArgs } from './server-process';

/**
 * The admin CLI (bin/admin.ts) run in a child process against the test API served on loopback HTTP. Call inside a
 * `describe`: it serves the API before the block's tests and stops after them. The returned function runs one
 * command and gives its JSON output.
 */
/**
 * The options of a block whose tests run the admin CLI: each command starts a Node process (the bundle, a fraction of a
 * second; more on a loaded machine: CI runs both databases' suites side by side), so such tests wait up to two minutes.
 */
export const cliTimeout = { timeout: 120_000 };

export function adminCli(api: () => TestApi): (...args: string[]) => Promise<any> {
  let server: ServerType;
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => {
      server = serve({ fetch: api().app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
        url = `http://127.0.0.1:${info.port}`;
        resolve();
      });
    });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return async (...args) => {
    const env = { ...process.env, ADMIN_URL: url, ADMIN_TOKEN: api().adminToken };
    // bin/admin.ts bundled once per run (test/support/global-setup.ts): the same source, without compiling it each time.
    const { stdout } = await promisify(execFile)(process.execPath, [...binArgs('admin.ts'), ...args], { env });
    return JSON.parse(stdout);
  };
}
