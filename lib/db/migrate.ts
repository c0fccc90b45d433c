import { type Migration, type MigrationResult, Migrator, sql } from 'kysely';
import { fillSearchText } from '../listing-search';
import type { DatabaseHandle } from './index';

/** Ordered SQL migrations, as `{ '0001_platform': 'create table …' }`. */
export type SqlMigrations = Record<string, string>;

/**
 * Applies the SQL migrations not yet applied, in name order, each in its own transaction. When the database has
 * applied exactly these, one statement says so and nothing else runs: Kysely's migrator would first look for its
 * two tables by introspecting every table of the schema, twice (about half a second of a start on PGlite).
 */
export async function migrateToLatest(handle: DatabaseHandle, migrations: SqlMigrations): Promise<MigrationResult[]> {
  if (await allApplied(handle, Object.keys(migrations))) return [];
  const migrator = new Migrator({
    db: handle.db,
    provider: {
      async getMigrations() {
        const entries: Record<string, Migration> = {};
        for (const [name, script] of Object.entries(migrations)) {
          entries[name] = { up: (db) => handle.runScript(db, script) };
        }
        return entries;
      },
    },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  // What a migration adds that only TypeScript can compute is written once the migrations are applied (0050: the
  // listings' search text, lib/search-text.ts).
  if ((results ?? []).length > 0 && (await hasSearchText(handle))) await fillSearchText(handle.db);
  return results ?? [];
}

/** Whether the database has applied these migrations and no other (Kysely's table, `kysely_migration`). */
async function allApplied(handle: DatabaseHandle, names: string[]): Promise<boolean> {
  const table = await sql<{ present: boolean }>`select to_regclass('kysely_migration') is not null as present`.execute(handle.db);
  if (!table.rows[0]?.present) return false;
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(handle.db);
  const wanted = new Set(names);
  return rows.length === wanted.size && rows.every((row) => wanted.has(row.name));
}

/** Whether the listings have their search text (a set of migrations before 0050 has not). */
async function hasSearchText(handle: DatabaseHandle): Promise<boolean> {
  const { rows } = await sql<{ present: boolean }>`
    select exists (select from information_schema.columns where table_name = 'listings' and column_name = 'search_text')
      as present`.execute(handle.db);
  return rows[0]?.present === true;
}
