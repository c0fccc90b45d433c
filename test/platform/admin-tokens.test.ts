import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueAdminToken, newAdminToken, registerAdminToken } from '../../lib/admin-tokens';
import { randomToken, sha256 } from '../../lib/crypto';
import { openPostgres } from '../../lib/db/postgres';
import { adminClient } from '../support/client';
import { createTestApi, type TestApi } from '../support/harness';
import { binArgs } from '../support/server-process';

/**
 * The first admin token of a deployment that has no Node server to generate one (Workers + Neon): issued by
 * `npm run migrate` against DATABASE_URL when the database has none, shown once, accepted by the admin API.
 */
let api: TestApi;
beforeAll(async () => {
  api = await createTestApi({ ownDatabase: true });
});
afterAll(async () => {
  await api.close();
});

/** The company list read through the typed admin client with `token`. */
const companiesWith = (token: string | undefined) => adminClient(api, { token: token ?? '' }).GET('/admin/v1/companies');

const tokenCount = async () =>
  Number(
    (
      await api.db
        .selectFrom('admin_tokens')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('issueAdminToken', () => {
  it('issues one token to a database with none, which the admin API accepts; then none while one exists', async () => {
    await api.db.deleteFrom('admin_tokens').execute();
    const first = await issueAdminToken(api.db);
    expect(first.existing).toBe(0);
    expect(first.token).toMatch(/^adm_[A-Za-z0-9_-]{40}$/);
    expect((await companiesWith(first.token)).response.status).toBe(200);
    expect((await companiesWith(`adm_${randomToken(40)}`)).response.status).toBe(403);
    const stored = await api.db.selectFrom('admin_tokens').select('token_hash').execute();
    expect(stored.map((r) => Buffer.from(r.token_hash).toString('hex'))).toEqual([
      Buffer.from(await sha256(first.token as string)).toString('hex'),
    ]);
    expect(await issueAdminToken(api.db)).toEqual({ existing: 1 });
    const another = await issueAdminToken(api.db, { always: true });
    expect(another.token).toBeTruthy();
    expect((await companiesWith(another.token)).response.status).toBe(200);
    expect(await tokenCount()).toBe(2);
  });
});

describe('registerAdminToken', () => {
  // Both ways an operator's token is taken (the Node server's ADMIN_TOKEN or DATA_DIR/admin-token, and
  // `npm run migrate` with ADMIN_TOKEN) register it through this function.
  it('refuses an operator token under 32 characters (ADMIN_TOKEN=changeme), registering nothing', async () => {
    const before = await tokenCount();
    for (const weak of ['changeme', 'adm_short', 'x'.repeat(31)]) {
      await expect(registerAdminToken(api.db, weak)).rejects.toThrow(/at least 32/);
      expect((await companiesWith(weak)).response.status).toBe(403);
    }
    expect(await tokenCount()).toBe(before);
    const chosen = `adm_${randomToken(28)}`; // 32 characters: taken
    await registerAdminToken(api.db, chosen);
    expect((await companiesWith(chosen)).response.status).toBe(200);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('first admin token on PostgreSQL', () => {
  it('two runs at once on an empty table issue one token between them', async () => {
    await api.db.deleteFrom('admin_tokens').execute();
    const runs = await Promise.all([issueAdminToken(api.db), issueAdminToken(api.db), issueAdminToken(api.db)]);
    expect(runs.filter((r) => r.token).length).toBe(1);
    expect(await tokenCount()).toBe(1);
  });

  it('waits for a token being added by another transaction instead of issuing a second one', async () => {
    await api.db.deleteFrom('admin_tokens').execute();
    let commit = () => {};
    const gate = new Promise<void>((resolve) => {
      commit = resolve;
    });
    let inserted = () => {};
    const insertedSignal = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const other = api.db.transaction().execute(async (trx) => {
      await registerAdminToken(trx, newAdminToken());
      inserted();
      await gate;
    });
    await insertedSignal;
    let settled = false;
    const issued = issueAdminToken(api.db).finally(() => {
      settled = true;
    });
    // Until issueAdminToken either finishes (no lock: it saw no committed token) or waits for the table's lock.
    const waiting = async () =>
      Number(
        (
          await sql<{
            n: string;
          }>`select count(*) as n from pg_locks where relation = 'admin_tokens'::regclass and not granted`.execute(api.db)
        ).rows[0]?.n,
      );
    while (!settled && (await waiting()) === 0) {}
    commit();
    await other;
    expect(await issued).toEqual({ existing: 1 });
    expect(await tokenCount()).toBe(1);
  });

  it('npm run migrate on a new database prints the first admin token once', async () => {
    const server = openPostgres(process.env.DATABASE_URL as string, { max: 1 });
    const name = `pa_test_migrate_${randomToken(8).toLowerCase()}`;
    await sql`create database ${sql.id(name)}`.execute(server.db);
    const url = new URL(process.env.DATABASE_URL as string);
    url.pathname = `/${name}`;
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: url.toString() };
    delete env.ADMIN_TOKEN;
    const migrate = async (...args: string[]) =>
      // As `npm run migrate` runs it, through tsx: the one test of that script that does (test/support/server-process.ts).
      (await promisify(execFile)(process.execPath, [...binArgs('migrate.ts', { viaTsx: true }), ...args], { env })).stdout;
    const fresh = openPostgres(url.toString(), { max: 1 });
    try {
      const first = await migrate();
      expect(first).toContain('0001_platform');
      const token = first.match(/adm_[A-Za-z0-9_-]{40}/)?.[0] as string;
      expect(token).toBeTruthy();
      const second = await migrate();
      expect(second).toContain('Already up to date.');
      expect(second).toContain('1 already registered');
      expect(second).not.toMatch(/adm_[A-Za-z0-9_-]{40}/);
      const third = await migrate('--new-admin-token');
      const newer = third.match(/adm_[A-Za-z0-9_-]{40}/)?.[0];
      expect(newer).toBeTruthy();
      expect(newer).not.toBe(token);
      const hashes = await fresh.db.selectFrom('admin_tokens').select('token_hash').execute();
      const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
      expect(hashes.map((r) => hex(r.token_hash)).sort()).toEqual(
        [hex(await sha256(token)), hex(await sha256(newer as string))].sort(),
      );
    } finally {
      await fresh.close();
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(server.db);
      await server.close();
    }
  }, 120_000);
});
