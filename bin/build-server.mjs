// What `npm start` (bin/start.mjs) runs first: bundles bin/server.ts and the packages it uses into dist/node/server.mjs, so the server
// starts as plain JavaScript in one file instead of compiling TypeScript through tsx, and resolving, reading and
// compiling several hundred package files, on every start. PGlite stays an import: it finds its WebAssembly and
// data files beside its own module. Rebuilds only when a source file the last bundle read (ours, or
// package-lock.json for the packages) is newer than it, or the bundle is missing. Plain JavaScript on purpose:
// this runs before anything is compiled. `node bin/build-server.mjs` does the same alone. The bench's server
// (bench/server-main.ts) is bundled the same way, so that it runs as `npm start` does.
import { readFileSync, statSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * A bundle of `entry` (relative to the repository) at `out` (under dist/, two folders deep, so that `../../migrations/`
 * from it is the repository's migrations folder as from lib/db/), once up to date: built again only when a source
 * file it read changed.
 */
export async function bundleOf(entry, out) {
  const outfile = join(root, out);
  const inputsFile = outfile.replace(/\.mjs$/, '.inputs.json');
  if (upToDate(outfile, inputsFile)) return outfile;
  const { build } = await import('esbuild');
  // Split: what the start imports only when first asked (route groups, the admin API, the scheduler's jobs; see
  // functions/lazy-app.ts) is in chunks beside the bundle, read and compiled only then. The chunks are named after the
  // bundle (another bundle may share the folder).
  const name = basename(outfile, '.mjs');
  const folder = dirname(outfile);
  // Built in a folder beside the bundle's, at the same depth (the source maps' relative paths hold), then moved in,
  // the bundle itself last: another process building the same bundle at the same moment (CI's two passes each run
  // `npm start` on a fresh clone) or a server importing its chunks meanwhile never finds a chunk missing. A chunk is
  // named by its content's hash, so one moved over another is the same file.
  // One staging folder per bundle: a process builds several into one folder at once (test/support/global-setup.ts).
  const staging = `${folder}.${name}.${process.pid}.partial`;
  await rm(staging, { recursive: true, force: true });
  try {
    const result = await build({
      absWorkingDir: root,
      entryPoints: { [name]: entry },
      outdir: staging,
      outExtension: { '.js': '.mjs' },
      splitting: true,
      chunkNames: `${name}.chunk-[hash]`,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // PGlite loads pglite.wasm, pglite.data and its extensions from its own folder (pglite-tools its pg_dump.wasm);
      // fs-native-extensions loads its prebuilt native addon from its own; pg's native binding is optional; esbuild
      // runs its own binary (lib/node/feed-reader.ts bundles the feed reader's worker script with it).
      external: ['@electric-sql/pglite', '@electric-sql/pglite-tools', 'fs-native-extensions', 'pg-native', 'esbuild'],
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
    // The build script itself too: a change of how the bundle is built builds it again.
    await writeFile(
      join(staging, basename(inputsFile)),
      `${JSON.stringify([...ours, 'package-lock.json', 'bin/build-server.mjs'])}\n`,
    );
    await mkdir(folder, { recursive: true });
    const made = await readdir(staging);
    const last = [basename(inputsFile), `${name}.mjs.map`, `${name}.mjs`];
    for (const file of [...made.filter((file) => !last.includes(file)), ...last]) {
      await rename(join(staging, file), join(folder, file));
    }
    // The chunks of an earlier build that this one did not make.
    const current = new Set(made);
    const earlier = (await readdir(folder)).filter((file) => file.startsWith(`${name}.chunk-`) && !current.has(file));
    await Promise.all(earlier.map((file) => rm(join(folder, file), { force: true })));
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return outfile;
}

/**
 * Whether the bundle is newer than every file it read. Synchronous on purpose: `npm start` waits for it before anything
 * else, and some 500 `stat` calls one after another take a quarter of the time they take as promises on libuv's
 * thread pool (7 against 25–30 ms, measured on the project's machine).
 */
function upToDate(outfile, inputsFile) {
  const built = statSync(outfile, { throwIfNoEntry: false });
  if (!built) return false;
  let inputs;
  try {
    inputs = JSON.parse(readFileSync(inputsFile, 'utf8'));
  } catch {
    return false;
  }
  if (!Array.isArray(inputs) || inputs.length === 0) return false;
  return inputs.every((file) => {
    const input = statSync(join(root, file), { throwIfNoEntry: false });
    return input !== undefined && input.mtimeMs <= built.mtimeMs;
  });
}

/** The server's bundle (dist/node/server.mjs), once up to date. */
export function serverBundle() {
  return bundleOf('bin/server.ts', 'dist/node/server.mjs');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await serverBundle();
