import { execFile } from 'node:child_process';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { KyselyConfig } from 'kysely';
import { SettingsError, settingLine } from '../config';
import type { DatabaseHandle } from '../db/index';
import { openPGlite } from '../db/pglite';
import { dataDirOf } from './local-server';

/**
 * Opens the database named by the environment: DATABASE_URL (PostgreSQL via pg) or PGlite under DATA_DIR. A module
 * of its own with few imports, so `npm start` begins opening PGlite before the routes' modules are evaluated.
 * A new PGlite folder is a copy of the pre-initialised one (bin/pglite-template.mjs), made in a process of its own,
 * never by PGlite's own initialisation in this process (which peaks near 850 MB; issue 28).
 */
export async function openDatabase(env: NodeJS.ProcessEnv, options: { log?: KyselyConfig['log'] } = {}): Promise<DatabaseHandle> {
  if (env.DATABASE_URL) return (await import('../db/postgres')).openPostgres(env.DATABASE_URL);
  const folder = dataDirOf(env);
  await mkdir(folder, { recursive: true });
  const dataDir = join(folder, 'pglite');
  const initialised = await stat(join(dataDir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
  if (!initialised) {
    await makeFolder(dataDir, env.PGLITE_TEMPLATE).catch((error: { stderr?: string; message: string }) => {
      if (!env.PGLITE_TEMPLATE) throw error;
      // The template is a setting: one that cannot make a folder is said in one line (lib/node/settings.ts).
      const said = (error.stderr ?? error.message).split('\n').find((line) => /error/i.test(line)) ?? error.message;
      const form = `a gzipped tarball PGlite dumped, to make the new folder ${dataDir} from (${said.trim()})`;
      throw new SettingsError([settingLine('PGLITE_TEMPLATE', form, env.PGLITE_TEMPLATE)]);
    });
  }
  return openPGlite({ dataDir, sharedBuffers: env.PGLITE_SHARED_BUFFERS, log: options.log });
}

/**
 * Makes a new data folder in a process of its own (bin/pglite-template.mjs): from PGLITE_TEMPLATE when set (a tarball
 * PGlite dumped, e.g. a backup or a prepared image's), which PGlite loads there, so that neither the tarball nor that
 * loading is this process's memory; else a copy of the pre-initialised folder `npm install` made (made first when
 * missing, PGlite's initdb). `../../bin` from lib/node/ and from the bundle (dist/node/). A folder made from another
 * database's tarball is marked as a copy (bin/pglite-template.mjs; lib/node/backup.ts turns the mark into the outbound
 * pause once migrated).
 */
export async function makeFolder(dataDir: string, template: string | undefined): Promise<void> {
  const script = fileURLToPath(new URL('../../bin/pglite-template.mjs', import.meta.url));
  const args = [script, '--into', dataDir, ...(template ? ['--from', template] : [])];
  // A process that opens PGlite (a template given, or the pre-initialised folder still to make) does so once and
  // ends: V8's optimising compiler would spend its time on PostgreSQL's WebAssembly for nothing. On its baseline
  // compiler alone it took 2.4 against 2.7 s, 2.6 against 3.3 s of CPU, and peaked at 365 against 398 MB
  // (docs/performance.md, "The processes the tests start").
  await promisify(execFile)(process.execPath, ['--liftoff-only', ...args], { maxBuffer: 16 * 1024 * 1024 });
}
