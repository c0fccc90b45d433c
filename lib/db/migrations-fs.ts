import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { SqlMigrations } from './migrate';

export const migrationsDir = fileURLToPath(new URL('../../migrations/', import.meta.url));

/** Reads `migrations/NNNN_name.sql` (Node only; Workers never migrate). */
export async function readSqlMigrations(dir = migrationsDir): Promise<SqlMigrations> {
  const files = (await readdir(dir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  const migrations: SqlMigrations = {};
  for (const file of files) migrations[file.replace(/\.sql$/, '')] = await readFile(dir + file, 'utf8');
  return migrations;
}
