// The pre-initialised PGlite data folder that a new data folder starts from (issue 28): `initdb` run once, its folder
// kept as a gzipped tarball under dist/pglite/, named by the PGlite version. PGlite's own initialisation runs a second
// PostgreSQL and initdb beside the first and peaks near 800 MB resident; loading this tarball instead keeps a first
// start of the server under 512 MiB (docs/performance.md). Run by `npm install` (postinstall), and by the server's
// first start in a process of its own when the tarball is missing. Plain JavaScript: it runs before anything is
// compiled. `node bin/pglite-template.mjs` prints the tarball's path; it is written once (atomically) per version.
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(await ensureTemplate());
}
