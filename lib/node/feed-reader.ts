import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type FeedInput, type FeedRead, type FeedReader, feedBounds } from '../ical-read';

/**
 * Imported calendars read off the thread that serves requests (issue 32, defect 1): each feed in a worker thread with a
 * heap limit ({@link feedBounds}.heapMb) and a time limit ({@link feedBounds}.timeMs), after which the thread is
 * terminated; at most {@link parallel} at once, the others wait their turn. A feed over a limit is a failure of its
 * import (`too_slow`, `too_much_memory`), the server goes on. The worker's code is lib/node/feed-worker.ts bundled once
 * per process with esbuild (the server runs from a bundle too, bin/build-server.mjs), as one script with ical.js in it.
 *
 * A thread that answered is kept for the next feed (issue 39: starting one and compiling its script took about 35 ms of
 * CPU, a calendar sync's whole cost), and stopped after {@link idleMs} without work; one that failed, was stopped or
 * exited is never used again. Each feed is read with ical.js's timezones as a new thread has them (feed-worker.ts).
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

/** How long a thread without work is kept. */
const idleMs = 30_000;

type Reader = { worker: Worker; idle?: ReturnType<typeof setTimeout> };
/** Threads that answered their last feed, waiting for the next. */
const idle: Reader[] = [];

function newReader(code: string): Reader {
  const worker = new Worker(code, {
    eval: true,
    resourceLimits: { maxOldGenerationSizeMb: feedBounds.heapMb, maxYoungGenerationSizeMb: 16 },
    stdout: true,
    stderr: true,
  });
  const reader: Reader = { worker };
  // A kept thread that fails or exits while it waits is dropped (never an unhandled 'error' event).
  const drop = () => {
    const at = idle.indexOf(reader);
    if (at >= 0) idle.splice(at, 1);
    if (reader.idle) clearTimeout(reader.idle);
  };
  worker.on('error', drop);
  worker.on('exit', drop);
  return reader;
}

function keep(reader: Reader): void {
  reader.worker.unref();
  reader.idle = setTimeout(() => {
    const at = idle.indexOf(reader);
    if (at >= 0) idle.splice(at, 1);
    void reader.worker.terminate();
  }, idleMs);
  reader.idle.unref();
  idle.push(reader);
}

function inWorker(code: string, input: FeedInput): Promise<FeedRead> {
  const reader = idle.pop() ?? newReader(code);
  if (reader.idle) clearTimeout(reader.idle);
  const { worker } = reader;
  worker.ref();
  return new Promise<FeedRead>((resolve) => {
    let settled = false;
    const settle = (read: FeedRead, answered: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      if (answered) keep(reader);
      else void worker.terminate();
      resolve(read);
    };
    const timer = setTimeout(
      () =>
        settle(
          {
            ok: false,
            code: 'too_slow',
            message: `Reading the feed took longer than ${feedBounds.timeMs / 1000} s; it was stopped.`,
          },
          false,
        ),
      feedBounds.timeMs,
    );
    const onMessage = (read: FeedRead) => settle(read, true);
    const onError = (error: Error & { code?: string }) =>
      settle(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? {
              ok: false,
              code: 'too_much_memory',
              message: `Reading the feed needed more than ${feedBounds.heapMb} MB; it was stopped.`,
            }
          : { ok: false, code: 'not_icalendar', message: `The feed could not be read: ${error.message}` },
        false,
      );
    const onExit = () =>
      settle({ ok: false, code: 'not_icalendar', message: 'The feed could not be read: the reader stopped.' }, false);
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(input);
  });
}
