import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPropertyApiClient } from '../../clients/typescript/src/index';
import { freePort } from '../webhooks/support';
import { spawnedServersHere } from '../support/passes';
import { binArgs } from '../support/server-process';

/**
 * The README's walkthrough with no settings at all: `npm start` in a folder (default data folder ./.data,
 * PORT=0 so the system picks the port), then the admin CLI from the same folder with no PORT, DATA_DIR,
 * ADMIN_URL or ADMIN_TOKEN: it finds the server through .data/server.json. Then a webhook subscription
 * delivered to examples/webhook-receiver, which verifies the signature. Real processes, loopback HTTP.
 */
const repo = resolve('.');
let cwd: string;
let server: ChildProcess | undefined;
let receiver: ChildProcess | undefined;

/** Environment with none of the settings the CLI could otherwise be given. */
function bareEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of ['DATABASE_URL', 'ADMIN_TOKEN', 'ADMIN_URL', 'DATA_DIR', 'PORT', 'WEBHOOK_SECRET_KEY', 'QSTASH_TOKEN']) {
    if (!(name in extra)) delete env[name];
  }
  return env;
}

/** Starts a child and resolves with its output once a line contains `ready`. */
function startChild(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: string,
): { child: ChildProcess; output: () => string; started: Promise<void> } {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const started = new Promise<void>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`did not start:\n${output}`)), 90_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(ready)) {
        clearTimeout(timer);
        resolvePromise();
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
  return { child, output: () => output, started };
}

/** Waits until the child's output contains `text` (an event, not a timer; the test's timeout bounds it). */
function outputContains(child: ChildProcess, output: () => string, text: string): Promise<void> {
  return new Promise((resolvePromise) => {
    if (output().includes(text)) return resolvePromise();
    const check = () => {
      if (output().includes(text)) {
        child.stdout?.off('data', check);
        resolvePromise();
      }
    };
    child.stdout?.on('data', check);
  });
}

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const run = promisify(execFile);
/**
 * The admin CLI, run from the server's folder with a bare environment: the run's bundle, or with `viaTsx` as
 * `npm run admin` runs it (test/support/server-process.ts).
 */
async function cli(args: string[], extra: Record<string, string> = {}, options: { viaTsx?: boolean } = {}) {
  return run(process.execPath, [...binArgs('admin.ts', options), ...args], { cwd, env: bareEnv(extra) });
}
async function cliFails(args: string[], extra: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  try {
    await cli(args, extra);
  } catch (error) {
    const e = error as { code: number; stderr: string };
    return { code: e.code, stderr: e.stderr };
  }
  throw new Error('the command succeeded');
}

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'property-api-cli-'));
});
afterAll(async () => {
  await stopChild(receiver);
  await stopChild(server);
  await rm(cwd, { recursive: true, force: true });
});

describe.runIf(spawnedServersHere)('npm start, then the admin CLI with no settings', () => {
  let companyId: string;
  let base: string;

  it('records where it listens in .data/server.json', async () => {
    const started = startChild(binArgs('server.ts'), bareEnv({ PORT: '0', HOST: '127.0.0.1' }), 'Admin:');
    server = started.child;
    await started.started;
    const record = JSON.parse(await readFile(join(cwd, '.data', 'server.json'), 'utf8'));
    expect(record.pid).toBe(server.pid);
    expect(record.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(record.base_url).not.toBe('http://127.0.0.1:0');
    base = record.base_url;
  }, 120_000);

  it('lists companies and creates a server key, saying the secret is shown once; the key reads /contacts', async () => {
    const companies = JSON.parse((await cli(['companies', 'list'], {}, { viaTsx: true })).stdout);
    expect(companies.results).toHaveLength(1);
    companyId = companies.results[0].id;
    const created = await cli(['keys', 'create', companyId, '--kind', 'server', '--scope', 'read:contacts']);
    const key = JSON.parse(created.stdout);
    expect(created.stderr).toContain('`secret` is shown only this once');
    const contacts = await createPropertyApiClient({ baseUrl: base, serverKey: key.secret }).GET('/api/v1/contacts');
    expect(contacts.response.status).toBe(200);
    expect((await createPropertyApiClient({ baseUrl: base }).GET('/api/v1/contacts')).response.status).toBe(403); // no key
    const listed = await cli(['keys', 'list', companyId]);
    expect(listed.stderr).not.toContain('shown only this once');
  }, 60_000);

  it('delivers a ping to examples/webhook-receiver, which verifies its signature and refuses a forged one', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/hook`;
    const subscription = JSON.parse((await cli(['webhooks', 'create', companyId, '--url', url])).stdout);
    expect(subscription.secret).toMatch(/^whsec_/);
    const started = startChild(
      [join(repo, 'examples/webhook-receiver/server.mjs'), '--port', String(port)],
      { ...process.env, WEBHOOK_SECRET: subscription.secret },
      'Webhook receiver:',
    );
    receiver = started.child;
    await started.started;
    const ping = JSON.parse((await cli(['webhooks', 'ping', companyId, subscription.id])).stdout);
    await outputContains(receiver, started.output, `verified ping ${ping.event_id}`);
    // raw: these go to the example receiver, not to the API (a forged signature, then an oversized body)
    const forged = await fetch(url, {
      method: 'POST',
      headers: {
        'webhook-id': ping.event_id,
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,Zm9yZ2Vk',
      },
      body: JSON.stringify({ id: ping.event_id, type: 'ping', data: {} }),
    });
    expect(forged.status).toBe(400);
    await outputContains(receiver, started.output, 'refused:');
    // A body far larger than any event is refused without being kept, and the receiver goes on.
    const huge = await fetch(url, { method: 'POST', body: 'x'.repeat(4 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    await outputContains(receiver, started.output, 'refused: a body over');
    const again = JSON.parse((await cli(['webhooks', 'ping', companyId, subscription.id])).stdout);
    await outputContains(receiver, started.output, `verified ping ${again.event_id}`);
  }, 60_000);

  it('after shutdown the record is gone and the CLI says which folder it looked in', async () => {
    await stopChild(server);
    const gone = await cliFails(['companies', 'list']);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(join(cwd, '.data', 'server.json'));
    expect(gone.stderr).toContain('npm start');
  });

  it('names a stale record (its process has ended) and another DATA_DIR', async () => {
    const ended = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => ended.once('exit', r));
    await writeFile(
      join(cwd, '.data', 'server.json'),
      JSON.stringify({ base_url: 'http://127.0.0.1:9', pid: ended.pid, started_at: '' }),
    );
    const stale = await cliFails(['companies', 'list']);
    expect(stale.stderr).toContain(`process ${ended.pid}) is no longer running`);
    const other = join(cwd, 'elsewhere');
    await mkdir(other);
    const elsewhere = await cliFails(['companies', 'list'], { DATA_DIR: other });
    expect(elsewhere.stderr).toContain(join(other, 'server.json'));
    expect(elsewhere.stderr).toContain(`DATA_DIR=${other} npm start`);
    const token = await cliFails(['token'], { DATA_DIR: other });
    expect(token.stderr).toContain(join(other, 'admin-token'));
  });
});
