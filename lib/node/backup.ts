import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { Hono } from 'hono';
import { sql } from 'kysely';
import { accessMiddleware } from '../access';
import type { Db } from '../db/index';
import { migrateToLatest } from '../db/migrate';
import { readSqlMigrations } from '../db/migrations-fs';
import { openPGlite } from '../db/pglite';
import type { AppEnv } from '../env';
import { pauseOutbound } from '../outbound';
import { ArchiveProblem, checkArchive } from './archive';
import { makeFolder } from './database';

/**
 * Backups of the embedded database (issue 23), for the admin command line (bin/admin-database.ts) and the running
 * server's admin route. A backup is PGlite's own data folder archive (`dumpDataDir`, a gzipped tar that
 * `new PGlite({ loadDataDir })` opens): taken under PGlite's query lock, so no statement runs while it is read, and a
 * transaction between two of its statements is rolled back when the copy is opened, as after a crash. It is
 * consistent while the server runs. The export for PostgreSQL is `pg_dump` (@electric-sql/pglite-tools, the
 * PostgreSQL's own pg_dump compiled to WebAssembly) run on a copy opened from such a backup, never on the serving
 * database: pg_dump's session settings and its `DEALLOCATE ALL` would reach the server's session.
 */

/** The PGlite folder inside a data folder (lib/node/database.ts opens it). */
export const pgliteDirOf = (dataDir: string) => join(dataDir, 'pglite');

/** A consistent archive of an open PGlite (gzipped tar). */
export async function backupOf(pglite: PGlite): Promise<Blob> {
  return pglite.dumpDataDir('gzip');
}

/** A backup of a data folder no process has open (the caller holds its lock, lib/node/data-lock.ts). */
export async function backupOfFolder(dataDir: string): Promise<Blob> {
  const dir = pgliteDirOf(dataDir);
  if (!existsSync(dir)) throw new Error(`There is no database in ${dir}: nothing to back up.`);
  const handle = await openPGlite({ dataDir: dir });
  try {
    return await backupOf(handle.pglite);
  } finally {
    await handle.close();
  }
}

/**
 * Settings a pg_dump newer than the target server writes and that server refuses: PGlite's pg_dump is PostgreSQL 18's,
 * and a server before 17 stops at `SET transaction_timeout` (new in 17). Dropping the line changes nothing: it only
 * turns the timeout off for the load. psql's `\restrict` / `\unrestrict` lines (pg_dump 17.6+) are dropped too, for
 * psql before 17.6 and for loaders that are not psql (a SQL editor, a driver).
 */
const newerThanTheTarget = /^(SET transaction_timeout = 0;|\\restrict \S+|\\unrestrict \S+)\n/gm;

/**
 * The database of a backup as plain SQL that `psql -f` or any client loads into an empty PostgreSQL (15 or newer) or
 * Neon database: schema, rows as INSERT statements, sequences, no owners or grants (the target's user owns it all).
 * The copy it is dumped from is migrated to this code and marked as a copy (lib/outbound.ts): the database loaded
 * from the file starts with its outbound work paused, beside an original that may still run.
 */
export async function sqlDumpOf(backup: Blob, now: Date): Promise<string> {
  const { pgDump } = await import('@electric-sql/pglite-tools/pg_dump');
  const copy = await openPGlite({ loadDataDir: backup });
  try {
    await migrateToLatest(copy, await readSqlMigrations());
    await pauseOutbound(copy.db, now, 'exported for PostgreSQL with npm run admin -- export');
    const file = await pgDump({ pg: copy.pglite, args: ['--no-owner', '--no-privileges', '--rows-per-insert=100'] });
    return (await file.text()).replace(newerThanTheTarget, '');
  } finally {
    await copy.close();
  }
}

/** The mark of a folder made from another database's tarball (bin/pglite-template.mjs writes it). */
export const copyMarkFile = 'property-api-copy.json';

/**
 * Turns a PGlite folder's copy mark into the outbound pause (the database migrated first, so its table exists), then
 * removes the mark; nothing when there is no mark. The server does it at start, `npm run migrate` when it runs, and a
 * restore before it puts the folder in place.
 */
export async function adoptCopyMark(db: Db, pgliteDir: string, now: Date, reason?: string): Promise<void> {
  const file = join(pgliteDir, copyMarkFile);
  const mark = await readFile(file, 'utf8').then(
    (text) => JSON.parse(text) as { from?: string },
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    },
  );
  if (!mark) return;
  await pauseOutbound(db, now, reason ?? `made from ${mark.from ?? 'a backup'} (PGLITE_TEMPLATE)`);
  await rm(file, { force: true });
}

/**
 * Replaces the data folder's database by a backup's (issue 32, defect 5; the caller holds the folder's lock: no server
 * runs on it). Nothing in the data folder is touched until the backup is known to be whole and this API's database:
 *
 * 1. the archive is read whole: a complete gzip, a well-formed tar, a PostgreSQL folder (lib/node/archive.ts);
 * 2. PGlite loads it into a folder of its own beside the database, in a process of its own (bin/pglite-template.mjs,
 *    as a new folder is made), so whatever its loader meets stays there;
 * 3. that folder is opened here: it must hold this API's migrations; it is migrated to this code and its outbound
 *    work is paused (a copy: lib/outbound.ts);
 * 4. only then the database is swapped: the one it replaces is renamed aside and kept, the new one renamed in (one
 *    rename each, on the same file system); should the second fail, the first is renamed back.
 *
 * Any failure before the swap removes the staged folder and leaves the database as it was.
 */
export async function restoreInto(dataDir: string, file: string, now: Date): Promise<{ kept?: string; companies: number }> {
  const dir = pgliteDirOf(dataDir);
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const staging = join(dataDir, `restore-${stamp}`);
  const staged = join(staging, 'pglite');
  try {
    await checkArchive(new Uint8Array(await readFile(file)));
    await mkdir(staging, { recursive: true });
    await makeFolder(staged, file).catch((error: { stderr?: string; message: string }) => {
      const said = (error.stderr ?? '').split('\n').find((line) => /error/i.test(line));
      throw new ArchiveProblem(`PGlite could not load it: ${said?.trim() ?? error.message.split('\n')[0]}`);
    });
    const companies = await prepareCopy(staged, `restored from ${basename(file)}`, now);
    const kept = existsSync(dir) ? `${dir}.before-restore-${stamp}` : undefined;
    if (kept) await rename(dir, kept);
    await rename(staged, dir).catch(async (error: Error) => {
      if (kept) await rename(kept, dir);
      throw error;
    });
    return { kept, companies };
  } catch (error) {
    throw new Error(`The backup ${file} cannot be restored: ${(error as Error).message}. The database was left as it was.`);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Opens a staged copy: this API's database, migrated to this code, its outbound work paused; its companies counted. */
async function prepareCopy(staged: string, reason: string, now: Date): Promise<number> {
  const handle = await openPGlite({ dataDir: staged });
  try {
    const { rows } = await sql<{ ours: boolean }>`select to_regclass('public.kysely_migration') is not null as ours`.execute(
      handle.db,
    );
    if (!rows[0]?.ours) throw new ArchiveProblem('it holds a PostgreSQL database, but not this API’s (no migrations table)');
    await migrateToLatest(handle, await readSqlMigrations()).catch((error: Error) => {
      throw new ArchiveProblem(`its migrations do not match this code’s (${error.message})`);
    });
    await pauseOutbound(handle.db, now, reason);
    await adoptCopyMark(handle.db, staged, now, reason);
    const counted = await sql<{ n: string }>`select count(*) as n from companies`.execute(handle.db);
    return Number(counted.rows[0]?.n ?? 0);
  } finally {
    await handle.close();
  }
}

/**
 * The running Node server's `GET /admin/v1/database/backup` (admin token): the backup of its PGlite database, taken
 * while it serves. Node only and not part of the admin OpenAPI document (a Worker's database is Neon's to back up).
 */
export function backupRoutes(pglite: PGlite): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get('/database/backup', accessMiddleware({ kind: 'admin' }), async (c) => {
    const archive = await backupOf(pglite);
    return c.body(archive.stream(), 200, {
      'Content-Type': 'application/gzip',
      'Content-Disposition': 'attachment; filename="property-api-backup.tar.gz"',
      'Cache-Control': 'no-store',
    });
  });
  return routes;
}
