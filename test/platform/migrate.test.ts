import type { LogEvent } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../lib/db/index';
import { migrateToLatest, type SqlMigrations } from '../../lib/db/migrate';
import { readSqlMigrations } from '../../lib/db/migrations-fs';
import { openPGlite } from '../../lib/db/pglite';

/**
 * A start on a database that has every migration (`npm start` on an existing data folder) asks one question and
 * applies nothing; a database missing one gets it, through Kysely's migrator as before.
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
