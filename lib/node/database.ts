import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { DatabaseHandle } from '../db/index';
import { openPGlite } from '../db/pglite';
import { dataDirOf } from './local-server';

/**
 * Opens the database named by the environment: DATABASE_URL (PostgreSQL via pg) or PGlite under DATA_DIR. A module
 * of its own with few imports, so `npm start` begins opening PGlite before the routes' modules are evaluated.
 */
export async function openDatabase(env: NodeJS.ProcessEnv): Promise<DatabaseHandle> {
  if (env.DATABASE_URL) return (await import('../db/postgres')).openPostgres(env.DATABASE_URL);
  const dataDir = dataDirOf(env);
  await mkdir(dataDir, { recursive: true });
  return openPGlite({ dataDir: join(dataDir, 'pglite') });
}
