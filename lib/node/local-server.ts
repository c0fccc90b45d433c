import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * Where the Node server keeps its files and where it listens, shared by `npm start` (bin/server.ts), `npm run
 * migrate` and the admin command line (bin/admin.ts), so the command line finds a running server with no flags.
 * The server writes `DATA_DIR/server.json` once it listens and removes it on shutdown; a file left by a killed
 * server is recognised as stale by its process id.
 */
export const DEFAULT_PORT = 8787;
export const DEFAULT_DATA_DIR = '.data';
export const SERVER_FILE = 'server.json';

type Env = Record<string, string | undefined>;

/** The data folder the environment names (DATA_DIR, or ./.data), as an absolute path for messages. */
export function dataDirOf(env: Env): string {
  return resolve(env.DATA_DIR || DEFAULT_DATA_DIR);
}

/**
 * The admin command line as the operator of the server on `env`'s data folder runs it: with DATA_DIR when the folder
 * is not the default one (the command finds the server through DATA_DIR/server.json), quoted for a POSIX shell.
 */
export function adminCommandOf(env: Env): string {
  const dir = dataDirOf(env);
  if (dir === resolve(DEFAULT_DATA_DIR)) return 'npm run --silent admin --';
  const quoted = /^[A-Za-z0-9_./:@%+=,-]+$/.test(dir) ? dir : `'${dir.replaceAll("'", "'\\''")}'`;
  return `DATA_DIR=${quoted} npm run --silent admin --`;
}

/** The port the server is asked to listen on (PORT, or 8787; 0 lets the system pick one). */
export function portOf(env: Env): number {
  return env.PORT === undefined || env.PORT === '' ? DEFAULT_PORT : Number(env.PORT);
}

/**
 * The Node server's production mode: `NODE_ENV=production npm start`. It creates no demo company (the demo answers on
 * localhost and 127.0.0.1 and accepts Turnstile's public test token and local origins); `npm start` alone is the demo.
 */
export function isProduction(env: Env): boolean {
  return env.NODE_ENV === 'production';
}

/** What `DATA_DIR/server.json` holds. */
export type ServerRecord = { base_url: string; pid: number; started_at: string };

/** The URL a local client uses for a server listening on `host`: a wildcard address is reached on loopback. */
export function baseUrlFor(host: string, port: number): string {
  if (host === '' || host === '0.0.0.0' || host === '::') return `http://127.0.0.1:${port}`;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Writes the record; a data folder that cannot be written only costs the CLI its defaults (a warning, no crash). At
 * once (one small file, written once): the start is announced only once the record is there.
 */
export async function recordServer(dataDir: string, record: ServerRecord): Promise<void> {
  try {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, SERVER_FILE), `${JSON.stringify(record, null, 2)}\n`);
  } catch (error) {
    console.warn(`Could not write ${join(dataDir, SERVER_FILE)} (${(error as Error).message}): the admin CLI needs ADMIN_URL.`);
  }
}

/** Removes the record on shutdown, unless another server on the same data folder has written its own since. */
export async function forgetServer(dataDir: string, pid = process.pid): Promise<void> {
  const file = join(dataDir, SERVER_FILE);
  const record = await readFile(file, 'utf8').then(
    (text) => JSON.parse(text) as ServerRecord,
    () => undefined,
  );
  if (record?.pid === pid) await rm(file, { force: true });
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Where the admin API is and how that was found, or an error message that names the folder looked in. */
export type AdminTarget = { url: string; from: string } | { error: string };

/**
 * The admin API's base URL: ADMIN_URL when set; otherwise the running server's record in the data folder;
 * otherwise, when PORT is set, that port on loopback. Without any of them there is no server to talk to.
 */
export async function adminTarget(env: Env): Promise<AdminTarget> {
  if (env.ADMIN_URL) return { url: env.ADMIN_URL.replace(/\/+$/, ''), from: 'ADMIN_URL' };
  const dataDir = dataDirOf(env);
  const file = join(dataDir, SERVER_FILE);
  const record = await readFile(file, 'utf8').then(
    (text) => JSON.parse(text) as ServerRecord,
    () => undefined,
  );
  if (record && isRunning(record.pid)) return { url: record.base_url, from: file };
  if (env.PORT) return { url: baseUrlFor('', portOf(env)), from: 'PORT' };
  const start = env.DATA_DIR ? `DATA_DIR=${env.DATA_DIR} npm start` : 'npm start';
  if (record) {
    return {
      error: `The server recorded in ${file} (process ${record.pid}) is no longer running. Start it with \`${start}\`, or set ADMIN_URL.`,
    };
  }
  return {
    error: `No running server found: ${file} does not exist. Start one with \`${start}\` (it records its address there), or set ADMIN_URL (and ADMIN_TOKEN) for a server elsewhere; DATA_DIR names another data folder.`,
  };
}

/** The admin token for the command line: ADMIN_TOKEN, or the one the server generated into the data folder. */
export async function adminTokenOf(env: Env): Promise<string> {
  if (env.ADMIN_TOKEN) return env.ADMIN_TOKEN;
  const file = join(dataDirOf(env), 'admin-token');
  const token = await readFile(file, 'utf8').then(
    (text) => text.trim(),
    () => '',
  );
  if (!token) throw new Error(`No admin token: set ADMIN_TOKEN, or start the server once so it writes ${file}.`);
  return token;
}
