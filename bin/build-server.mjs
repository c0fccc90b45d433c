// `npm start`'s prestart: bundles bin/server.ts (our code; packages stay imports from node_modules) into
// dist/node/server.mjs, so the server starts as plain JavaScript instead of compiling TypeScript through tsx
// on every start. Rebuilds only when a source file the last bundle read is newer than it, or the bundle is
// missing. Plain JavaScript on purpose: this runs before anything is compiled.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// dist/node/: `../../migrations/` from the bundle is the repository's migrations folder, as from lib/db/.
const outfile = join(root, 'dist', 'node', 'server.mjs');
const inputsFile = join(root, 'dist', 'node', 'server.inputs.json');

async function upToDate() {
  const built = await stat(outfile).catch(() => undefined);
  if (!built) return false;
  const inputs = await readFile(inputsFile, 'utf8').then(JSON.parse, () => undefined);
  if (!Array.isArray(inputs) || inputs.length === 0) return false;
  const times = await Promise.all(
    inputs.map((file) =>
      stat(join(root, file)).then(
        (s) => s.mtimeMs,
        () => Infinity,
      ),
    ),
  );
  return times.every((time) => time <= built.mtimeMs);
}

if (!(await upToDate())) {
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['bin/server.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
  });
  await writeFile(inputsFile, `${JSON.stringify([...Object.keys(result.metafile.inputs), 'package-lock.json'])}\n`);
}
