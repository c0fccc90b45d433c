import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { SqlMigrations } from './migrate';

export const migrationsDir = fileURLToPath(new URL('../../migrations/', import.meta.url));

/** Reads `migrations/NNNN_name.sql` (Node only; Workers never migrate). */
export async function readSqlMigrations(dir = migrationsDir): Promise<SqlMigrations> {
  const files = (await readdir(dir)).filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f)).sort();
  const scripts = await Promise.all(files.map((file) => readFile(dir + file, 'utf8')));
  return Object.fromEntries(files.map((file, i) => [file.replace(/\.sql$/, ''), scripts[i] as string]));
}
