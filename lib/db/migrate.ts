import { type Migration, type MigrationResult, Migrator } from 'kysely';
import type { DatabaseHandle } from './index';

/** Ordered SQL migrations, as `{ '0001_platform': 'create table …' }`. */
export type SqlMigrations = Record<string, string>;

/** Applies the SQL migrations not yet applied, in name order, each in its own transaction. */
export async function migrateToLatest(handle: DatabaseHandle, migrations: SqlMigrations): Promise<MigrationResult[]> {
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
  return results ?? [];
}
