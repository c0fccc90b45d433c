import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { createHash } from 'node:crypto';
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
  const teardown = () => rm(dirname(adminCli), { recursive: true, force: true });
  await prepareDatabase(project);
  return teardown;
}

async function prepareDatabase(project: TestProject): Promise<void> {
  const migrations = await readSqlMigrations();
  const databaseUrl = process.env.DATABASE_URL ?? '';
  project.provide('databaseUrl', databaseUrl);
  if (databaseUrl) {
    const handle = openPostgres(databaseUrl);
    await migrateToLatest(handle, migrations);
    await handle.close();
    project.provide('pgliteSnapshot', '');
    return;
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
}
