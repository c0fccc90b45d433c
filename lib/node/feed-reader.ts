import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type FeedInput, type FeedRead, type FeedReader, feedBounds } from '../ical-read';

/**
 * Imported calendars read off the thread that serves requests (issue 32, defect 1): each feed in a worker thread of its
 * own with a heap limit ({@link feedBounds}.heapMb) and a time limit ({@link feedBounds}.timeMs), after which it is
 * terminated; at most {@link parallel} at once, the others wait their turn. A feed over a limit is a failure of its
 * import (`too_slow`, `too_much_memory`), the server goes on. The worker's code is lib/node/feed-worker.ts bundled once
 * per process with esbuild (the server runs from a bundle too, bin/build-server.mjs), as one script with ical.js in it.
 */
const parallel = 2;

let script: Promise<string> | undefined;
/** The worker's script: bundled on first use (about 230 KB, a tenth of a second). */
function workerScript(): Promise<string> {
  script ??= (async () => {
    const { build } = await import('esbuild');
    // From lib/node/ and from dist/node/ (the server's bundle), two folders up is the repository.
    const entry = fileURLToPath(new URL('../../lib/node/feed-worker.ts', import.meta.url));
    const built = await build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      legalComments: 'none',
      logLevel: 'silent',
    });
    return built.outputFiles[0]?.text ?? '';
  })();
  script.catch(() => {
    script = undefined;
  });
  return script;
}

let running = 0;
const waiting: Array<() => void> = [];

async function turn(): Promise<() => void> {
  if (running >= parallel) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  return () => {
    running--;
    waiting.shift()?.();
  };
}

/** Reads a feed in a worker thread; never throws (a worker that fails or is stopped is a failed read). */
export const nodeFeedReader: FeedReader = async (input) => {
  const done = await turn();
  try {
    return await inWorker(await workerScript(), input);
  } catch (error) {
    return { ok: false, code: 'not_icalendar', message: `The feed could not be read: ${(error as Error).message}` };
  } finally {
    done();
  }
};

function inWorker(code: string, input: FeedInput): Promise<FeedRead> {
  return new Promise<FeedRead>((resolve) => {
    const worker = new Worker(code, {
      eval: true,
      workerData: input,
      resourceLimits: { maxOldGenerationSizeMb: feedBounds.heapMb, maxYoungGenerationSizeMb: 16 },
      stdout: true,
      stderr: true,
    });
    let settled = false;
    const settle = (read: FeedRead) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(read);
      void worker.terminate();
    };
    const timer = setTimeout(
      () =>
        settle({
          ok: false,
          code: 'too_slow',
          message: `Reading the feed took longer than ${feedBounds.timeMs / 1000} s; it was stopped.`,
        }),
      feedBounds.timeMs,
    );
    worker.on('message', (read: FeedRead) => settle(read));
    worker.on('error', (error: Error & { code?: string }) =>
      settle(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? {
              ok: false,
              code: 'too_much_memory',
              message: `Reading the feed needed more than ${feedBounds.heapMb} MB; it was stopped.`,
            }
          : { ok: false, code: 'not_icalendar', message: `The feed could not be read: ${error.message}` },
      ),
    );
    worker.on('exit', () =>
      settle({ ok: false, code: 'not_icalendar', message: 'The feed could not be read: the reader stopped.' }),
    );
  });
}
