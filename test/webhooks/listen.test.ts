import { type ChildProcess, spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenUserAgent } from '../../bin/admin-listen';
import { cliTimeout } from '../support/admin-cli';
import { createTestApi, type TestApi } from '../support/harness';
import { bareEnv, binArgs, repo } from '../support/server-process';
import { createCompany, createKey } from '../support/world';
import { type Receiver, startReceiver, verify } from './support';

/**
 * `npm run admin -- events listen` (bin/admin-listen.ts) in a child process against the API served by the Node
 * server on loopback: it follows the event feed, re-signs each event with its session secret and forwards it to a
 * loopback receiver, printing a line per event. The company answers on 127.0.0.1, so a server key reaches it by URL.
 */
let api: TestApi;
let server: ServerType;
let base = '';
let company: { id: string; host: string };
let writer: string;
let hook: Receiver;
const children: ChildProcess[] = [];

beforeAll(async () => {
  api = await createTestApi({ ownDatabase: true });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: api.app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      base = `http://127.0.0.1:${info.port}`;
      resolve();
    });
  });
  company = await createCompany(api, { hosts: ['127.0.0.1'], environment: 'development' });
  writer = (await createKey(api, company.id, { scopes: ['write:contacts'] })).secret;
  hook = await startReceiver();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  await hook.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await api.close();
});

type Listener = { output: () => string; ready: Promise<string>; exited: Promise<number | null> };

/** The CLI's `events listen …` in a child process: its output, its session secret once ready, its exit code. */
function listener(args: string[]): Listener {
  const env = bareEnv({ ADMIN_URL: base, ADMIN_TOKEN: api.adminToken });
  // bin/admin.ts as this run bundled it (test/support/global-setup.ts)
  const child = spawn(process.execPath, [...binArgs('admin.ts'), 'events', 'listen', ...args], {
    cwd: repo,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const ready = new Promise<string>((done, fail) => {
    child.stdout?.on('data', () => {
      const secret = /signing secret: (whsec_\S+)/.exec(output)?.[1];
      if (secret) done(secret);
    });
    void exited.then((code) => fail(new Error(`events listen exited (${code}) before it was ready:\n${output}`)));
  });
  ready.catch(() => {});
  return { output: () => output, ready, exited };
}

/** A contact written through the API (one `contact.created` each): its reference. */
async function addContact(n: number): Promise<string> {
  const res = await api.request('/api/v1/contacts', {
    host: company.host,
    key: writer,
    body: { name: `Burst ${n}`, email: `burst.${n}.${Date.now()}@example.com` },
  });
  if (res.status !== 201) throw new Error(`contact not written: ${res.status} ${res.text}`);
  return res.json.reference as string;
}

/** The company's contact.created events in the feed's order (the inserting transaction's id, then insert order). */
async function committedOrder(): Promise<Array<{ id: string; reference: string }>> {
  const { rows } = await sql<{ id: string; reference: string }>`
    select id, data->>'reference' as reference from events
    where company_id = ${company.id}::uuid and type = 'contact.created' order by txid, position`.execute(api.db);
  return rows;
}

describe('events listen', () => {
  it(
    'forwards every event of a burst of 50 writes, in order of commit, each signed with the session’s secret',
    cliTimeout,
    async () => {
      const waves = 5;
      const perWave = 10;
      const total = waves * perWave;
      const cli = listener([company.id, '--forward-to', `${hook.url}/hook`, '--count', String(total), '--interval', '50']);
      const secret = await cli.ready;
      // Waves of concurrent writes: every write of a wave commits before the next wave starts.
      const waveOf = new Map<string, number>();
      for (let wave = 0; wave < waves; wave++) {
        const written = await Promise.all(Array.from({ length: perWave }, (_, i) => addContact(wave * perWave + i)));
        for (const reference of written) waveOf.set(reference, wave);
      }
      expect(await cli.exited, cli.output()).toBe(0);
      const received = hook.requests.filter((r) => r.path === '/hook');
      expect(received).toHaveLength(total);
      const events = received.map((r) => verify(secret, r));
      expect(received.every((r) => r.headers['user-agent'] === listenUserAgent)).toBe(true);
      const committed = await committedOrder();
      expect(committed).toHaveLength(total);
      // The feed's order, nothing lost, nothing twice.
      expect(events.map((e) => e.id)).toEqual(committed.map((e) => e.id));
      // And the order of commit: no event of a later wave before one of an earlier wave.
      const wavesSeen = events.map((e) => waveOf.get(e.data.reference) as number);
      expect(wavesSeen).toEqual([...wavesSeen].sort((a, b) => a - b));
      // One line per event with the receiver's status.
      const lines = cli
        .output()
        .split('\n')
        .filter((line) => line.includes(' -> '));
      expect(lines.map((line) => line.split(/\s+/)[2])).toEqual(committed.map((e) => e.id));
      expect(lines.every((line) => line.endsWith('-> 204'))).toBe(true);
    },
  );

  it('follows with a server key from an event on, and prints the answer’s status, a failure included', cliTimeout, async () => {
    const reader = (await createKey(api, company.id, { scopes: ['read:events'] })).secret;
    const from = await addContact(100);
    const fromId = (await committedOrder()).find((e) => e.reference === from)?.id as string;
    const next = [await addContact(101), await addContact(102)];
    const receiver = await startReceiver((_, index) => ({ status: index === 0 ? 500 : 200 }));
    try {
      const cli = listener([
        '--key',
        reader,
        '--url',
        base,
        '--forward-to',
        `${receiver.url}/in`,
        '--after',
        fromId,
        '--count',
        '2',
      ]);
      const secret = await cli.ready;
      expect(await cli.exited, cli.output()).toBe(0);
      expect(receiver.requests.map((r) => verify(secret, r).data.reference)).toEqual(next);
      const lines = cli
        .output()
        .split('\n')
        .filter((line) => line.includes(' -> '));
      expect(lines.map((line) => line.slice(line.indexOf('->')))).toEqual(['-> 500', '-> 200']);
    } finally {
      await receiver.close();
    }
  });

  it('ends with the API’s refusal when the key may not read events', cliTimeout, async () => {
    const cli = listener(['--key', writer, '--url', base, '--forward-to', `${hook.url}/hook`]);
    expect(await cli.exited).not.toBe(0);
    expect(cli.output()).toContain('403');
  });
});
