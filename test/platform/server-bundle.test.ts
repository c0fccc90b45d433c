import { existsSync, readdirSync } from 'node:fs';
import { readdir, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { afterAll, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript (bin/build-server.mjs), no declarations
import { bundleOf } from '../../bin/build-server.mjs';

/**
 * `npm start` bundles the server into dist/node/ when a source changed (bin/build-server.mjs). CI's two passes each
 * run `npm start` on a fresh clone, and a running server imports its chunks when first asked: a build must never leave
 * the folder without a chunk the bundle names, not even for a moment (the chunks of a build used to be removed before
 * the next was written, and a server started meanwhile failed with ERR_MODULE_NOT_FOUND). Here a small entry with one
 * chunk, in a folder of this process's own, rebuilt three times while a thread checks every chunk it names is there;
 * and two bundles built into one folder at once, as the tests' global setup builds its three.
 */
const out = `dist/bundle-test-${process.pid}/entry.mjs`;
const root = join(import.meta.dirname, '..', '..');
const folder = join(root, `dist/bundle-test-${process.pid}`);
const entry = 'test/fixtures/bundle/entry.ts';
afterAll(() => rm(folder, { recursive: true, force: true }));

const chunksOf = (dir: string) => readdirSync(dir).filter((file) => file.startsWith('entry.chunk-') && file.endsWith('.mjs'));

it('keeps every chunk the bundle names in place while it is built again, and leaves no staging folder', async () => {
  // Two bundles into one folder at once, as the tests' global setup builds its three.
  const [first, other] = await Promise.all([bundleOf(entry, out), bundleOf(entry, out.replace('entry.mjs', 'other.mjs'))]);
  expect(first).toBe(join(root, out));
  expect(await (await import(pathToFileURL(other).href)).later()).toBe('from the chunk');
  const chunks = chunksOf(folder);
  expect(chunks).toHaveLength(1);
  const { later } = await import(`${pathToFileURL(first).href}?first`);
  expect(await later()).toBe('from the chunk');

  // A thread looks for the bundle and its chunks as fast as it can while the builds below run.
  const watcher = new Worker(
    `const { existsSync } = require('node:fs');
     const { parentPort, workerData } = require('node:worker_threads');
     let looks = 0, missing = null, stop = false;
     parentPort.on('message', () => { stop = true; });
     parentPort.postMessage('looking');
     (function look() {
       for (let i = 0; i < 200 && !missing; i++, looks++) missing = workerData.files.find((file) => !existsSync(file)) ?? null;
       if (stop || missing) parentPort.postMessage({ looks, missing }); else setImmediate(look);
     })();`,
    { eval: true, workerData: { files: [first, ...chunks.map((chunk) => join(folder, chunk))] } },
  );
  await new Promise((resolve) => watcher.once('message', resolve));
  const seen = new Promise<{ looks: number; missing: string | null }>((resolve) => watcher.once('message', resolve));
  for (let round = 0; round < 3; round++) {
    // The bundle older than its sources: it is built again (the same content, so the same chunk names).
    await utimes(first, new Date(0), new Date(0));
    await bundleOf(entry, out);
    expect((await stat(first)).mtimeMs).toBeGreaterThan(0);
  }
  watcher.postMessage('stop');
  const { looks, missing } = await seen;
  await watcher.terminate();
  expect(missing).toBeNull();
  expect(looks).toBeGreaterThan(0);
  expect(chunksOf(folder)).toEqual(chunks);
  expect((await readdir(join(root, 'dist'))).filter((name) => name.startsWith(`bundle-test-${process.pid}.`))).toEqual([]);
  expect(existsSync(join(folder, 'entry.inputs.json'))).toBe(true);
});
