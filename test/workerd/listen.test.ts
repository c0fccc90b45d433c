/**
 * `npm run admin -- events listen --key … --url …` against the BUILT events Worker in workerd (Neon driver → local
 * PostgreSQL), as against a deployed API (issue 38): the CLI in a child process reads the feed over HTTP from
 * Miniflare's address (the company answers on 127.0.0.1), re-signs each event with its session secret and forwards
 * it to a loopback receiver. A burst of 50 events, written in 5 waves of 10 concurrent transactions, arrives whole,
 * once each, in order of commit.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Miniflare } from 'miniflare';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createCompany } from '../../functions/admin/companies';
import type { DatabaseHandle } from '../../lib/db/index';
import { recordEvent } from '../../lib/events';
import { createKey } from '../../lib/keys';
import { CreateCompanyInput } from '../../schema/platform/admin';
import { bareEnv, repo } from '../support/server-process';
import { type Receiver, startReceiver, verify } from '../webhooks/support';
import { bundleOf, startWorkerd, type Workerd } from './support';

const suffix = randomBytes(4).toString('hex');
let workerd: Workerd | undefined;
let mf: Miniflare | undefined;
let handle: DatabaseHandle | undefined;
let companyId = '';
let reader = '';
let hook: Receiver;
let child: ChildProcess | undefined;

beforeAll(async () => {
  workerd = await startWorkerd({
    template: inject('workerdTemplate'),
    databaseName: `pa_workerd_listen_${suffix}`,
    applicationName: 'pa_workerd_listen',
    workers: [{ name: 'events', bundle: bundleOf('events') }],
    seed: async (db) => {
      await db.db.transaction().execute(async (trx) => {
        const company = await createCompany(
          trx,
          CreateCompanyInput.parse({
            name: 'Workerd Listen',
            hosts: ['127.0.0.1'],
            environment: 'development',
            currency: 'AED',
            time_zone: 'Asia/Dubai',
          }),
        );
        companyId = company.id;
        reader = (await createKey(trx, company.id, { kind: 'server', scopes: ['read:events'] }, 'admin')).secret;
      });
    },
  });
  ({ mf, handle } = workerd);
  hook = await startReceiver();
});

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGTERM');
  await hook?.close();
  await workerd?.close();
});

describe('events listen against the events Worker', () => {
  it('forwards a burst of 50 events in order of commit, each signed with the session’s secret', {
    timeout: 120_000,
  }, async () => {
    const url = (await mf?.ready)?.origin as string;
    const db = (handle as DatabaseHandle).db;
    const total = 50;
    const tsx = join(repo, 'node_modules/tsx/dist/loader.mjs');
    const args = ['events', 'listen', '--key', reader, '--url', url, '--forward-to', `${hook.url}/hook`];
    child = spawn(process.execPath, ['--import', tsx, 'bin/admin.ts', ...args, '--count', String(total), '--interval', '50'], {
      cwd: repo,
      env: bareEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((done) => child?.once('exit', (code) => done(code)));
    const secret = await new Promise<string>((done, fail) => {
      child?.stdout?.on('data', () => {
        const found = /signing secret: (whsec_\S+)/.exec(output)?.[1];
        if (found) done(found);
      });
      void exited.then((code) => fail(new Error(`events listen exited (${code}):\n${output}`)));
    });
    const waveOf = new Map<string, number>();
    for (let wave = 0; wave < 5; wave++) {
      const ids = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          db
            .transaction()
            .execute((trx) =>
              recordEvent(trx, { companyId, type: 'task.created', causedBy: 'admin', data: { task_id: `t-${wave}-${i}` } }),
            ),
        ),
      );
      for (const id of ids) waveOf.set(id, wave);
    }
    expect(await exited, output).toBe(0);
    const events = hook.requests.map((r) => verify(secret, r));
    const { rows } = await sql<{ id: string }>`
      select id from events where company_id = ${companyId}::uuid order by txid, position`.execute(db);
    expect(rows).toHaveLength(total);
    expect(events.map((e) => e.id)).toEqual(rows.map((r) => r.id));
    const waves = events.map((e) => waveOf.get(e.id) as number);
    expect(waves).toEqual([...waves].sort((a, b) => a - b));
    expect(output.split('\n').filter((line) => line.endsWith('-> 204'))).toHaveLength(total);
  });
});
