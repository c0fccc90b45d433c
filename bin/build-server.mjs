// What `npm start` (bin/start.mjs) runs first: bundles bin/server.ts and the packages it uses into dist/node/server.mjs, so the server
// starts as plain JavaScript in one file instead of compiling TypeScript through tsx, and resolving, reading and
// compiling several hundred package files, on every start. PGlite stays an import: it finds its WebAssembly and
// data files beside its own module. Rebuilds only when a source file the last bundle read (ours, or
// package-lock.json for the packages) is newer than it, or the bundle is missing. Plain JavaScript on purpose:
// this runs before anything is compiled. `node bin/build-server.mjs` does the same alone.
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

/** The bundle's path, once it is up to date (built again only when a source file it read changed). */
export async function serverBundle() {
  if (await upToDate()) return outfile;
  const { build } = await import('esbuild');
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['bin/server.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // PGlite loads pglite.wasm, pglite.data and its extensions from its own folder (pglite-tools its pg_dump.wasm);
    // fs-native-extensions loads its prebuilt native addon from its own; pg's native binding is optional.
    external: ['@electric-sql/pglite', '@electric-sql/pglite-tools', 'fs-native-extensions', 'pg-native'],
    // Packages written as CommonJS call require() for Node's modules: give the ES module bundle one.
    banner: {
      js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);",
    },
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
  });
  const ours = Object.keys(result.metafile.inputs).filter((file) => !file.includes('node_modules/'));
  await writeFile(inputsFile, `${JSON.stringify([...ours, 'package-lock.json'])}\n`);
  return outfile;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await serverBundle();
