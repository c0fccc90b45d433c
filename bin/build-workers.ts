import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { writeDocsAssets } from './docs-assets';
import { workerBuilds } from './wrangler-config';

const root = fileURLToPath(new URL('..', import.meta.url));
const wrangler = join(root, 'node_modules', '.bin', 'wrangler');

export type WorkerBundle = {
  /** `default` or the route group's name (its wrangler environment). */
  name: string;
  /** The bundle (worker.js) as `wrangler deploy` uploads it, and its esbuild metafile. */
  script: string;
  metafile: string;
  /** Gzipped bytes, measured as wrangler's "Total Upload … gzip" figure (zlib's default level). */
  gzipBytes: number;
};

/**
 * Bundles every Worker exactly as `wrangler deploy` would (a dry run, with wrangler.jsonc's settings), into
 * `<outRoot>/worker` and `<outRoot>/worker-<group>`, each with its esbuild metafile, after writing the static
 * assets (dist/assets). Builds run in parallel.
 */
export async function buildWorkers(outRoot: string): Promise<WorkerBundle[]> {
  // Each wrangler run below writes the static assets first (wrangler.jsonc `build.command`); writing them once here
  // leaves those ten runs nothing to copy.
  await writeDocsAssets(root);
  return Promise.all(
    workerBuilds.map(async (build) => {
      const { dir, metafile } = placeOf(outRoot, build.outdir);
      const env = `--env=${build.env}`;
      await promisify(execFile)(wrangler, ['deploy', '--dry-run', env, '--outdir', dir, '--metafile', metafile], {
        cwd: root,
        env: { ...process.env, WRANGLER_SEND_METRICS: 'false' },
        maxBuffer: 16 * 1024 * 1024,
      });
      return bundleIn(outRoot, build);
    }),
  );
}

const placeOf = (outRoot: string, outdir: string) => ({
  dir: join(outRoot, outdir),
  metafile: join(outRoot, `${outdir}.meta.json`),
});

async function bundleIn(outRoot: string, { name, outdir }: { name: string; outdir: string }): Promise<WorkerBundle> {
  const { dir, metafile } = placeOf(outRoot, outdir);
  const script = join(dir, 'worker.js');
  return { name, script, metafile, gzipBytes: gzipSync(await readFile(script)).byteLength };
}

/**
 * The bundles a `buildWorkers(outRoot)` of this same tree has already written (CI builds them once, for workerd
 * and for test/platform/workers.test.ts: .ci/run), read as buildWorkers returns them.
 */
export function builtWorkers(outRoot: string): Promise<WorkerBundle[]> {
  return Promise.all(workerBuilds.map((build) => bundleIn(outRoot, build)));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // `npm run build:worker`: dist/worker (the default Worker) and dist/worker-<group>.
  for (const bundle of await buildWorkers(join(root, 'dist'))) {
    console.log(`${bundle.name.padEnd(10)} ${(bundle.gzipBytes / 1024).toFixed(2)} KiB gzipped  ${bundle.script}`);
  }
}
