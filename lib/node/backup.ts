import { existsSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { Hono } from 'hono';
import { sql } from 'kysely';
import { accessMiddleware } from '../access';
import { openPGlite } from '../db/pglite';
import type { AppEnv } from '../env';

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
 */
export async function sqlDumpOf(backup: Blob): Promise<string> {
  const { pgDump } = await import('@electric-sql/pglite-tools/pg_dump');
  const copy = await openPGlite({ loadDataDir: backup });
  try {
    const file = await pgDump({ pg: copy.pglite, args: ['--no-owner', '--no-privileges', '--rows-per-insert=100'] });
    return (await file.text()).replace(newerThanTheTarget, '');
  } finally {
    await copy.close();
  }
}

/**
 * Replaces the data folder's database by a backup's (the caller holds the folder's lock: no server runs on it). The
 * database it replaces is kept beside it, renamed, and put back when the backup cannot be opened.
 */
export async function restoreInto(dataDir: string, backup: Blob, now: Date): Promise<{ kept?: string; companies: number }> {
  const dir = pgliteDirOf(dataDir);
  const kept = existsSync(dir) ? `${dir}.before-restore-${now.toISOString().replace(/[:.]/g, '-')}` : undefined;
  if (kept) await rename(dir, kept);
  try {
    const handle = await openPGlite({ dataDir: dir, loadDataDir: backup });
    try {
      const { rows } = await sql<{ n: string }>`select count(*) as n from companies`.execute(handle.db);
      return { kept, companies: Number(rows[0]?.n ?? 0) };
    } finally {
      await handle.close();
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    if (kept) await rename(kept, dir);
    throw new Error(`The backup could not be opened (${(error as Error).message}); the database was left as it was.`);
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
