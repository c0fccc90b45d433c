import type { LogEvent } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../lib/db/index';
import { migrateToLatest, type SqlMigrations } from '../../lib/db/migrate';
import { readSqlMigrations } from '../../lib/db/migrations-fs';
import { openPGlite } from '../../lib/db/pglite';
import { ensureAdminToken } from '../../lib/node/platform';

/**
 * What `npm start` does on an existing data folder before it listens, kept to reads: a database that has every
 * migration is asked one question and migrated no further (one missing is applied, through Kysely's migrator as
 * before); an admin token already registered is looked up, not written again.
 */
let handle: DatabaseHandle;
let statements: string[] = [];
let migrations: SqlMigrations;

beforeAll(async () => {
  handle = await openPGlite({ log: (event: LogEvent) => void statements.push(event.query.sql) });
  migrations = await readSqlMigrations();
});
afterAll(() => handle.close());

const first = (n: number) => Object.fromEntries(Object.entries(migrations).slice(0, n));

describe('migrateToLatest', () => {
  it('applies what is missing, then sees in two statements that nothing is', async () => {
    expect((await migrateToLatest(handle, first(2))).map((r) => r.status)).toEqual(['Success', 'Success']);
    statements = [];
    expect(await migrateToLatest(handle, first(2))).toEqual([]);
    expect(statements).toHaveLength(2);
    expect(statements.join('\n')).not.toMatch(/pg_catalog|information_schema/);
    // One more migration in the folder: the migrator applies it.
    const more = await migrateToLatest(handle, first(3));
    expect(more.map((r) => [r.migrationName, r.status])).toEqual([[Object.keys(migrations)[2], 'Success']]);
  });
});

describe('ensureAdminToken', () => {
  it('registers a new token, and only reads on a start that finds it registered', async () => {
    await migrateToLatest(handle, first(3)); // the admin tokens table (0001), as the test above left it
    const env = { ADMIN_TOKEN: 'adm_start_up_test_token_of_40_characters' };
    statements = [];
    await ensureAdminToken(handle, env);
    expect(statements.some((text) => /^insert into "admin_tokens"/.test(text))).toBe(true);
    statements = [];
    await ensureAdminToken(handle, env);
    expect(statements).toHaveLength(1);
    expect(statements[0]).toMatch(/^select /);
  });
});
