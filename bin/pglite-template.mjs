// The pre-initialised PGlite data folder that a new data folder starts from (issue 28): `initdb` run once, its folder
// kept as a gzipped tarball under dist/pglite/, named by the PGlite version. PGlite's own initialisation runs a second
// PostgreSQL and initdb beside the first and peaks near 800 MB resident; loading this tarball instead keeps a first
// start of the server under 512 MiB (docs/performance.md). Run by `npm install` (postinstall), and by the server's
// first start in a process of its own. Plain JavaScript: it runs before anything is compiled.
//
//   node bin/pglite-template.mjs                     makes the tarball unless it exists; prints its path
//   node bin/pglite-template.mjs --into DIR [--from FILE]
//                                                    makes the PGlite data folder DIR from the tarball (or FILE), in
//                                                    this process: the server then opens a folder that exists, and
//                                                    never holds the tarball nor PGlite's loading of it
import { mkdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The tarball's path for the installed PGlite (its package.json's version). */
export async function templatePath() {
  const entry = createRequire(join(root, 'package.json')).resolve('@electric-sql/pglite');
  const manifest = JSON.parse(await readFile(join(dirname(entry), '..', 'package.json'), 'utf8'));
  return join(root, 'dist', 'pglite', `template-${manifest.version}.tar.gz`);
}

/** Writes the tarball unless it exists; answers its path. */
export async function ensureTemplate() {
  const file = await templatePath();
  if (
    await stat(file).then(
      () => true,
      () => false,
    )
  )
    return file;
  const { PGlite } = await import('@electric-sql/pglite');
  // Small shared buffers for the run (a runtime setting, not kept in the folder): the initialisation peaks lower.
  const pglite = await PGlite.create({ startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'] });
  const tarball = await pglite.dumpDataDir('gzip');
  await pglite.close();
  await mkdir(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, Buffer.from(await tarball.arrayBuffer()));
  await rename(partial, file);
  return file;
}

/**
 * The file a folder made from another database's tarball carries until it is first opened with the migrations
 * (lib/node/backup.ts, adoptCopyMark): outbound work of such a copy starts paused (lib/outbound.ts). Its name is
 * kept in lib/node/backup.ts too.
 */
export const copyMarkFile = 'property-api-copy.json';

/**
 * Makes the data folder `dir` (which must not exist, or be empty) from `from` or the template: loaded into a folder
 * beside it, then renamed into place, so a folder is never left half made. A folder made from `from` that holds this
 * API's database (a backup, an image's database) is a copy: it is marked so ({@link copyMarkFile}) before it is put
 * in place, so no start can find it unmarked.
 */
export async function makeFolder(dir, from) {
  const tarball = new Blob([await readFile(from ?? (await ensureTemplate()))]);
  const partial = `${dir}.${process.pid}.partial`;
  await rm(partial, { recursive: true, force: true });
  const { PGlite } = await import('@electric-sql/pglite');
  const pglite = await PGlite.create({ dataDir: partial, loadDataDir: tarball });
  const ours = from
    ? (await pglite.query("select to_regclass('public.kysely_migration') is not null as ours")).rows[0]?.ours
    : false;
  await pglite.close();
  if (ours) await writeFile(join(partial, copyMarkFile), `${JSON.stringify({ from: basename(from) })}\n`);
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
