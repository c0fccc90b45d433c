import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { inject } from 'vitest';

/**
 * The Node server (bin/server.ts) and its command lines as real processes on a data folder of the test's own, with
 * none of the settings a developer's shell may have (DATABASE_URL, ADMIN_URL, …) unless the test gives them.
 */
export const repo = resolve('.');
const tsx = pathToFileURL(join(repo, 'node_modules/tsx/dist/loader.mjs')).href;

const inherited = [
  'DATABASE_URL',
  'ADMIN_TOKEN',
  'ADMIN_URL',
  'DATA_DIR',
  'PORT',
  'HOST',
  'NODE_ENV',
  'WEBHOOK_SECRET_KEY',
  'QSTASH_TOKEN',
];

export function bareEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of inherited) delete env[name];
  return { ...env, ...extra };
}

export type ServerProcess = {
  child: ChildProcess;
  output: () => string;
  /** Resolves once the server announced itself (its "Admin:" line), rejects when it exits first. */
  started: Promise<void>;
  /** Resolves with the exit code (or the signal) when the process ends. */
  exited: Promise<number | NodeJS.Signals>;
};

/**
 * V8's flags for every Node process a test starts: `--liftoff-only` keeps PGlite's WebAssembly on V8's baseline
 * compiler. Such a process lives a few seconds, and V8 would spend about as long again optimising PostgreSQL's
 * WebAssembly on its background threads for a speed it never uses (docs/performance.md, "The processes the tests
 * start"). The semantics are the same; `npm start` itself keeps V8's defaults.
 */
export const childNodeFlags = ['--liftoff-only'];

/**
 * `npm start`'s server, on `dataDir`, on a port the system picks: the run's bundle of bin/server.ts (made once by
 * test/support/global-setup.ts as bin/build-server.mjs makes `npm start`'s), so a start does not compile the server.
 */
export function startServer(dataDir: string, extra: Record<string, string> = {}): ServerProcess {
  const env = bareEnv({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...extra });
  const child = spawn(process.execPath, [...childNodeFlags, '--enable-source-maps', inject('serverBundle')], {
    cwd: repo,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | NodeJS.Signals>((done) =>
    child.once('exit', (code, signal) => done(code ?? (signal as NodeJS.Signals))),
  );
  const started = new Promise<void>((done, fail) => {
    const check = () => {
      if (output.includes('Admin:')) done();
    };
    child.stdout?.on('data', check);
    void exited.then((code) => fail(new Error(`the server exited (${code}) before it started:\n${output}`)));
  });
  // Only observed where a test awaits it.
  started.catch(() => {});
  return { child, output: () => output, started, exited };
}

export async function stopServer(server: ServerProcess | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGTERM');
  await server.exited;
}

/** The address the server recorded in its data folder. */
export async function baseUrlOf(dataDir: string): Promise<string> {
  return JSON.parse(await readFile(join(dataDir, 'server.json'), 'utf8')).base_url;
}

/** The run's bundles of the scripts of bin/ (test/support/global-setup.ts). */
const bundles = { 'admin.ts': 'adminCli', 'server.ts': 'serverBundle', 'migrate.ts': 'migrateCli' } as const;

/**
 * The arguments that run a script of bin/ with node: its bundle of this run, or with `viaTsx` through tsx as its npm
 * script does (`npm run admin`, `npm run migrate`: compiled at each start, several seconds of CPU; one test of each
 * goes that way).
 */
export function binArgs(script: keyof typeof bundles, options: { viaTsx?: boolean } = {}): string[] {
  if (options.viaTsx) return ['--import', tsx, join(repo, 'bin', script)];
  return [...childNodeFlags, inject(bundles[script])];
}

/** A script of bin/ (`admin.ts`, `migrate.ts`) with a bare environment: its exit code and output, failing or not. */
export async function runBin(
  script: keyof typeof bundles,
  args: string[],
  extra: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [...binArgs(script), ...args], {
      cwd: repo,
      env: bareEnv(extra),
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
