import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { createHash, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { migrateToLatest } from '../../lib/db/migrate';
import { readSqlMigrations } from '../../lib/db/migrations-fs';
import { openPGlite } from '../../lib/db/pglite';
import { openPostgres } from '../../lib/db/postgres';
// @ts-expect-error: plain JavaScript (bin/build-server.mjs), no declarations
import { bundleOf } from '../../bin/build-server.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshot: string;
    databaseUrl: string;
    /** On PostgreSQL, a copy of the migrated database made before any test ran, which each file's own is copied from. */
    ownDatabaseTemplate: string;
    adminCli: string;
    serverBundle: string;
    migrateCli: string;
  }
}

/**
 * Migrates once per run. On PostgreSQL (DATABASE_URL) the test files share the database and isolate by
 * company; on PGlite each file opens its own copy of a migrated snapshot (creating one takes seconds).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The admin command line as one bundle of this run's own (a folder per process: CI runs two passes side by side),
  // as `npm start` runs the server: a command starts in a fraction of a second where tsx compiles it each time (several
  // seconds on a loaded machine; test/support/admin-cli.ts). The server too (test/support/server-process.ts), bundled
  // as `npm start` bundles it: each start of a test's server no longer compiles it with tsx; and bin/migrate.ts. One
  // test of each npm script that runs tsx still goes through it (`binArgs`'s `viaTsx`, test/support/server-process.ts).
  const folder = `dist/test-${process.pid}`;
  const [adminCli, serverBundle, migrateCli]: [string, string, string] = await Promise.all([
    bundleOf('bin/admin.ts', `${folder}/admin.mjs`),
    bundleOf('bin/server.ts', `${folder}/server.mjs`),
    bundleOf('bin/migrate.ts', `${folder}/migrate.mjs`),
  ]);
  project.provide('adminCli', adminCli);
  project.provide('serverBundle', serverBundle);
  project.provide('migrateCli', migrateCli);
  const dropTemplate = await prepareDatabase(project);
  return async () => {
    await rm(dirname(adminCli), { recursive: true, force: true });
    await dropTemplate();
  };
}

/** Migrates the run's database (PostgreSQL) or makes PGlite's migrated snapshot; answers what undoes it at the end. */
async function prepareDatabase(project: TestProject): Promise<() => Promise<void>> {
  const migrations = await readSqlMigrations();
  const databaseUrl = process.env.DATABASE_URL ?? '';
  project.provide('databaseUrl', databaseUrl);
  project.provide('ownDatabaseTemplate', '');
  if (databaseUrl) {
    const handle = openPostgres(databaseUrl);
    await migrateToLatest(handle, migrations);
    await handle.close();
    project.provide('pgliteSnapshot', '');
    return ownDatabaseTemplate(project, databaseUrl);
  }
  const digest = createHash('sha256').update(JSON.stringify(migrations)).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'property-api-test');
  // Uncompressed: each test file loads it (a tar opens in about 0.4 s where its gzip took 0.65 s; 200 files).
  const snapshot = join(dir, `pglite-${digest}.tar`);
  const exists = await stat(snapshot).then(
    () => true,
    () => false,
  );
  if (!exists) {
    await mkdir(dir, { recursive: true });
    const handle = await openPGlite();
    await migrateToLatest(handle, migrations);
    const dump = await handle.pglite.dumpDataDir('none');
    await writeFile(`${snapshot}.tmp`, Buffer.from(await dump.arrayBuffer()));
    await handle.close();
    await import('node:fs/promises').then((fs) => fs.rename(`${snapshot}.tmp`, snapshot));
  }
  project.provide('pgliteSnapshot', snapshot);
  return async () => {};
}

/**
 * The migrated database copied, before any test connects to it (a template must have no connections), as the one
 * the files that ask for a database of their own start from (test/support/harness.ts `openOwnPostgres`): a copy is a
 * quarter of a second where the platform migrating a new one takes about two. Dropped at the end.
 */
async function ownDatabaseTemplate(project: TestProject, databaseUrl: string): Promise<() => Promise<void>> {
  const url = new URL(databaseUrl);
  const migrated = decodeURIComponent(url.pathname.slice(1));
  const template = `pa_own_template_${randomBytes(6).toString('hex')}`;
  url.pathname = '/postgres';
  const server = openPostgres(url.toString(), { max: 1 });
  try {
    await sql`create database ${sql.id(template)} template ${sql.id(migrated)}`.execute(server.db);
  } catch (error) {
    // Someone else is connected to the migrated database (a psql beside the run): each file's own is then migrated.
    console.warn(`no template of ${migrated} for the files' own databases: ${(error as Error).message}`);
    return async () => {};
  } finally {
    await server.close();
  }
  project.provide('ownDatabaseTemplate', template);
  return async () => {
    const dropping = openPostgres(url.toString(), { max: 1 });
    try {
      await sql`drop database if exists ${sql.id(template)} with (force)`.execute(dropping.db);
    } finally {
      await dropping.close();
    }
  };
}
