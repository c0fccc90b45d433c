import { execFile } from 'node:child_process';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { KyselyConfig } from 'kysely';
import type { DatabaseHandle } from '../db/index';
import { openPGlite } from '../db/pglite';
import { dataDirOf } from './local-server';

/**
 * Opens the database named by the environment: DATABASE_URL (PostgreSQL via pg) or PGlite under DATA_DIR. A module
 * of its own with few imports, so `npm start` begins opening PGlite before the routes' modules are evaluated.
 * A new PGlite folder starts from the pre-initialised one (bin/pglite-template.mjs), never from PGlite's own
 * initialisation in this process (which peaks near 800 MB; issue 28).
 */
export async function openDatabase(env: NodeJS.ProcessEnv, options: { log?: KyselyConfig['log'] } = {}): Promise<DatabaseHandle> {
  if (env.DATABASE_URL) return (await import('../db/postgres')).openPostgres(env.DATABASE_URL);
  const dataDir = join(dataDirOf(env), 'pglite');
  await mkdir(dataDir, { recursive: true });
  const initialised = await stat(join(dataDir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
  return openPGlite({
    dataDir,
    loadDataDir: initialised ? undefined : await pgliteTemplate(env.PGLITE_TEMPLATE),
    sharedBuffers: env.PGLITE_SHARED_BUFFERS,
    log: options.log,
  });
}

/**
 * The tarball a new data folder starts from: PGLITE_TEMPLATE when set (a folder dumped by PGlite, e.g. a backup or a
 * prepared image's), else the pre-initialised one, made by `npm install` (postinstall) or now, in a process of its
 * own (so its memory is not this one's) when it is missing. `../../bin` from lib/node/ and from the bundle
 * (dist/node/).
 */
async function pgliteTemplate(file: string | undefined): Promise<Blob> {
  if (!file) {
    const script = fileURLToPath(new URL('../../bin/pglite-template.mjs', import.meta.url));
    file = (await promisify(execFile)(process.execPath, [script])).stdout.trim();
  }
  return new Blob([await readFile(file)]);
}
