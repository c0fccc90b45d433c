// The pre-initialised PGlite data folder that a new data folder starts from (issue 28): `initdb` run once, its folder
// kept under dist/pglite/, named by the PGlite version. PGlite's own initialisation runs a second PostgreSQL and initdb
// beside the first and peaks near 800 MB resident; copying this folder instead keeps a first start of the server under
// 512 MiB (docs/performance.md). Run by `npm install` (postinstall), and by the server's first start in a process of
// its own. Plain JavaScript: it runs before anything is compiled.
//
//   node bin/pglite-template.mjs                     makes the template folder unless it exists; prints its path
//   node bin/pglite-template.mjs --into DIR [--from FILE]
//                                                    makes the PGlite data folder DIR from the template (or from the
//                                                    tarball FILE), in this process: the server then opens a folder
//                                                    that exists, and never holds a tarball nor PGlite's loading of it
import { mkdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The template folder's path for the installed PGlite (its package.json's version). */
export async function templatePath() {
  const entry = createRequire(join(root, 'package.json')).resolve('@electric-sql/pglite');
  const manifest = JSON.parse(await readFile(join(dirname(entry), '..', 'package.json'), 'utf8'));
  return join(root, 'dist', 'pglite', `template-${manifest.version}`);
}

const exists = (path) =>
  stat(path).then(
    () => true,
    () => false,
  );

/**
 * Makes the template folder unless it exists: PGlite's initdb straight into a folder beside it, closed (so its
 * PostgreSQL was shut down cleanly), then renamed into place; answers its path.
 */
export async function ensureTemplate() {
  const folder = await templatePath();
  // A whole folder: this script renames only whole ones into place.
  const made = () => exists(join(folder, 'PG_VERSION'));
  if (await made()) return folder;
  const { PGlite } = await import('@electric-sql/pglite');
  const partial = `${folder}.${process.pid}.partial`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(dirname(folder), { recursive: true });
  // Small shared buffers for the run (a runtime setting, not kept in the folder): the initialisation peaks lower.
  const pglite = await PGlite.create({
    dataDir: partial,
    startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'],
  });
  await pglite.close();
  if (await made()) {
    // Made meanwhile by another process: that one stays (a new data folder may be being copied from it).
    await rm(partial, { recursive: true, force: true });
    return folder;
  }
  // A folder there without PG_VERSION is none of this script's (it renames whole folders into place).
  await rm(folder, { recursive: true, force: true });
  await rename(partial, folder).catch(async (error) => {
    await rm(partial, { recursive: true, force: true });
    if (!(await made())) throw error;
  });
  return folder;
}

/**
 * The file a folder made from another database's tarball carries until it is first opened with the migrations
 * (lib/node/backup.ts, adoptCopyMark): outbound work of such a copy starts paused (lib/outbound.ts). Its name is
 * kept in lib/node/backup.ts too.
 */
export const copyMarkFile = 'property-api-copy.json';

/**
 * Makes the data folder `dir` (which must not exist, or be empty) from `from` or the template: made beside it, then
 * renamed into place, so a folder is never left half made. The template is copied (0.2 s, where PGlite loading the
 * same folder from a tarball, then starting and closing PostgreSQL on it, took 2.4 s). A tarball given as `from` (a
 * backup, an image's database) is loaded by PGlite, which refuses one that holds no database; one that holds this
 * API's database is a copy, marked so ({@link copyMarkFile}) before it is put in place, so no start can find it
 * unmarked.
 */
export async function makeFolder(dir, from) {
  const partial = `${dir}.${process.pid}.partial`;
  await rm(partial, { recursive: true, force: true });
  if (from) {
    const { PGlite } = await import('@electric-sql/pglite');
    const pglite = await PGlite.create({ dataDir: partial, loadDataDir: new Blob([await readFile(from)]) });
    const ours = (await pglite.query("select to_regclass('public.kysely_migration') is not null as ours")).rows[0]?.ours;
    await pglite.close();
    if (ours) await writeFile(join(partial, copyMarkFile), `${JSON.stringify({ from: basename(from) })}\n`);
  } else {
    // Synchronously: this process does nothing else meanwhile, and Node's asynchronous copy took twice as long.
    cpSync(await ensureTemplate(), partial, { recursive: true });
  }
  await rmdir(dir).catch((error) => {
    if (error.code !== 'ENOENT') throw error;
  });
  await rename(partial, dir);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { into: { type: 'string' }, from: { type: 'string' } } });
  if (values.into) await makeFolder(values.into, values.from);
  else console.log(await ensureTemplate());
}
