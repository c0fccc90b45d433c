import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { openDatabase } from '../../lib/node/database';

/**
 * A new PGlite data folder starts from a tarball (issue 28), never from PGlite's own initialisation in the server's
 * process (which peaks near 800 MB): PGLITE_TEMPLATE names one, else bin/pglite-template.mjs makes and keeps the
 * pre-initialised one. PGlite only (the PostgreSQL pass has no PGlite snapshot).
 */
const folders: string[] = [];
const newFolder = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'pa-template-'));
  folders.push(dir);
  return dir;
};
afterAll(() => Promise.all(folders.map((dir) => rm(dir, { recursive: true, force: true }))));

const tables = async (handle: Awaited<ReturnType<typeof openDatabase>>) =>
  (await sql<{ n: number }>`select count(*)::int as n from pg_tables where schemaname = 'public'`.execute(handle.db)).rows[0]!.n;

describe.skipIf(Boolean(inject('databaseUrl')))('a new PGlite data folder', () => {
  it('starts from the tarball PGLITE_TEMPLATE names (here the tests’ migrated snapshot: its tables are there at once)', async () => {
    const dir = await newFolder();
    const handle = await openDatabase({ DATA_DIR: dir, PGLITE_TEMPLATE: inject('pgliteSnapshot') });
    try {
      expect(await tables(handle)).toBeGreaterThan(20);
    } finally {
      await handle.close();
    }
    // Opened again, the folder is used as it is (the template is read only for a new folder).
    const again = await openDatabase({ DATA_DIR: dir, PGLITE_TEMPLATE: join(dir, 'no-such-template.tar.gz') });
    try {
      expect(await tables(again)).toBeGreaterThan(20);
    } finally {
      await again.close();
    }
  });

  it('starts from the pre-initialised folder otherwise: empty, ready to migrate, its tarball kept under dist/pglite/', async () => {
    const handle = await openDatabase({ DATA_DIR: await newFolder() });
    try {
      expect(await tables(handle)).toBe(0);
      expect((await sql<{ v: string }>`select current_setting('shared_buffers') as v`.execute(handle.db)).rows[0]!.v).toBe(
        '32MB',
      );
    } finally {
      await handle.close();
    }
    // @ts-expect-error: plain JavaScript, no declarations
    const { templatePath } = await import('../../bin/pglite-template.mjs');
    expect((await stat(await templatePath())).size).toBeGreaterThan(1_000_000);
  });
});
