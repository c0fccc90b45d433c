import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { tryLock } from 'fs-native-extensions';
import { SERVER_FILE, type ServerRecord } from './local-server';
import { systemClock } from '../clock';

/**
 * One process at a time on a data folder (issue 21, defect 6): two writers on one PGlite folder corrupt it. The
 * holder keeps an exclusive OS lock on `DATA_DIR/data.lock` for its whole life (fs-native-extensions: an open file
 * description lock, fcntl F_OFD_SETLK on Linux, flock on macOS, LockFileEx on Windows). The operating system drops
 * it when the process ends in any way, kill -9 included, so there is never a stale lock to clean up. The file
 * itself only says who holds it (pid, what it is, since when), for the message a second process prints.
 */
export const LOCK_FILE = 'data.lock';

/** Who holds a data folder, as far as its files say. */
export type DataFolderHolder = { pid?: number; role?: string; base_url?: string; started_at?: string };

/** The lock, held until `release()` or the end of the process. */
export type DataFolderLock = { file: string; release(): void };

/** What a process that cannot have the folder is told: the holder's pid and address when known. */
export class DataFolderBusy extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: DataFolderHolder,
  ) {
    super(busyMessage(dataDir, holder));
  }
}

function readJson<T>(file: string): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The holder: the lock file's pid and role, with the address its server.json gives when that file is the same process's. */
export function holderOf(dataDir: string): DataFolderHolder {
  const locked = readJson<DataFolderHolder>(join(dataDir, LOCK_FILE)) ?? {};
  const server = readJson<ServerRecord>(join(dataDir, SERVER_FILE));
  if (server && (locked.pid === undefined || server.pid === locked.pid)) {
    return { ...locked, pid: server.pid, base_url: server.base_url };
  }
  return locked;
}

function busyMessage(dataDir: string, holder: DataFolderHolder): string {
  const who =
    holder.role === 'server' || holder.base_url ? 'A property API server' : `Another process (${holder.role ?? 'unknown'})`;
  const pid = holder.pid === undefined ? 'an unknown process' : `process ${holder.pid}`;
  const port = holder.base_url
    ? `, listening on port ${new URL(holder.base_url).port} (${holder.base_url})`
    : ', not yet listening';
  return `${who} already uses the data folder ${dataDir}: ${pid}${port}. Stop it first (kill ${holder.pid ?? '<pid>'}), or set DATA_DIR to another folder.`;
}

/**
 * Takes the data folder's lock for this process, or throws {@link DataFolderBusy} naming the process that has it.
 * Synchronous, so nothing else of a start (opening PGlite above all) runs before it.
 */
export function lockDataFolder(dataDir: string, role: string): DataFolderLock {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, LOCK_FILE);
  // 'a+' creates the file without truncating it: a refused process must not wipe what the holder wrote.
  const fd = openSync(file, 'a+', 0o600);
  if (!tryLock(fd)) {
    closeSync(fd);
    throw new DataFolderBusy(dataDir, holderOf(dataDir));
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${JSON.stringify({ pid: process.pid, role, started_at: systemClock().toISOString() })}\n`, 0);
  let held = true;
  return {
    file,
    release() {
      if (!held) return;
      held = false;
      // Closing the descriptor drops the lock; the file stays (its content is stale once nobody holds the lock).
      closeSync(fd);
    },
  };
}

/** Whether some process holds the folder now (the admin command line's question), without keeping the lock. */
export function dataFolderHolder(dataDir: string): DataFolderHolder | undefined {
  try {
    lockDataFolder(dataDir, 'probe').release();
    return undefined;
  } catch (error) {
    if (error instanceof DataFolderBusy) return error.holder;
    throw error;
  }
}
