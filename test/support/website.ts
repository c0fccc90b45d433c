import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import createClient from 'openapi-fetch';
import { type Browser, chromium } from 'playwright-core';
import type { paths as AdminPaths } from '../../clients/admin/schema';
import { createPropertyApiClient } from '../../clients/typescript/src/index';
import { buildApp } from '../../functions/app';
import { afterResponsesSettled } from '../../lib/request-lifecycle';
import { randomToken } from '../../lib/crypto';
import { createNodePlatform, ensureAdminToken, ensureDetailsKeys, ensureWebhookSecretKey } from '../../lib/node/platform';

/**
 * What the browser test of examples/website runs on: the API as `npm start` builds it (bin/server.ts, without the
 * demo seed and the background timers) on a fresh PGlite data folder, served over loopback HTTP; the site served
 * by its own static server (examples/website/serve.mjs) in a child process; and Debian's Chromium.
 */

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(chromiumPath);

/**
 * The API on http://localhost:<port>, with an operator token, on a new PGlite database in its own data folder.
 * `extra` adds configuration (e.g. TURNSTILE_SITEVERIFY_URL).
 */
export async function startApi(extra: Record<string, string> = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'property-api-website-'));
  const adminToken = `adm_${randomToken(40)}`;
  const env: NodeJS.ProcessEnv = { DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, RELEASE: 'website-test', ...extra };
  env.WEBHOOK_SECRET_KEY = (await ensureWebhookSecretKey(env)).key;
  await ensureDetailsKeys(env);
  const platform = await createNodePlatform(env);
  await ensureAdminToken(platform.handle, env);
  const app = buildApp(platform.provide, { admin: true, maxBodyBytes: platform.config.MAX_BODY_BYTES });
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
  const { port } = server.address() as AddressInfo;
  // The company answers on the host `localhost`: the API's origin is http://localhost:<port>.
  const origin = `http://localhost:${port}`;

  async function call(path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
    const res = await fetch(`${origin}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
        ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : undefined, text };
  }
  const admin = (path: string, body?: unknown, method?: string) => call(`/admin/v1${path}`, { token: adminToken, body, method });

  return {
    origin,
    call,
    admin,
    /** The project's typed client over HTTP, on a server key when given. */
    client: (serverKey?: string) => createPropertyApiClient({ baseUrl: origin, serverKey }),
    /** The admin API's typed client over HTTP, with the operator's token. */
    adminClient: createClient<AdminPaths>({ baseUrl: origin, headers: { Authorization: `Bearer ${adminToken}` } }),
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await afterResponsesSettled();
      await platform.handle.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A copy of examples/website in a temporary folder, so the test can write its config.js. */
export async function copyWebsite() {
  const dir = await mkdtemp(join(tmpdir(), 'property-website-'));
  await cp(join(process.cwd(), 'examples', 'website'), dir, { recursive: true });
  return {
    dir,
    writeConfig: (config: Record<string, string>): Promise<void> =>
      writeFile(join(dir, 'config.js'), `export default ${JSON.stringify(config, null, 2)};\n`),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** examples/website/serve.mjs on 127.0.0.1 and a free port, serving `root`; resolves with its origin. */
export async function startStaticServer(root: string) {
  const child: ChildProcess = spawn(
    process.execPath,
    ['examples/website/serve.mjs', '--port', '0', '--host', '127.0.0.1', '--root', root],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const found = /Website: (http:\/\/127\.0\.0\.1:\d+)\//.exec(output);
      if (found?.[1]) resolve(found[1]);
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`the static server exited with ${code}:\n${output}`)));
  });
  return {
    origin,
    async close() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Headless Chromium (playwright-core), with a fresh profile. Every host but localhost resolves to nothing, so the
 * site is shown to work offline: whatever it needed from elsewhere would fail to load. (No request interception:
 * Playwright's routing answers CORS preflights itself, which would hide what the API grants.)
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
    ],
  });
}
