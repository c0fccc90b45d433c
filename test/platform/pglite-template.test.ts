import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { SettingsError } from '../../lib/config';
import { adoptCopyMark } from '../../lib/node/backup';
import { openDatabase } from '../../lib/node/database';
import { outboundPause } from '../../lib/outbound';

/**
 * A new PGlite data folder starts from a tarball PGLITE_TEMPLATE names, or from a copy of the pre-initialised folder
 * bin/pglite-template.mjs makes and keeps (issue 28), never from PGlite's own initialisation in the server's process
 * (which peaks near 800 MB). PGlite only (the PostgreSQL pass has no PGlite snapshot).
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
    // Another database's tarball makes a copy (issue 32, defect 8): marked from the moment it is made; the mark becomes
    // the outbound pause once migrated (as the server's start and npm run migrate do), then is gone.
    const mark = join(dir, 'pglite', 'property-api-copy.json');
    expect(JSON.parse(await readFile(mark, 'utf8'))).toEqual({ from: basename(inject('pgliteSnapshot')) });
    const marked = await openDatabase({ DATA_DIR: dir });
    try {
      await adoptCopyMark(marked.db, join(dir, 'pglite'), new Date('2026-11-28T03:00:00Z'));
      expect(await outboundPause(marked.db)).toMatchObject({
        reason: `made from ${basename(inject('pgliteSnapshot'))} (PGLITE_TEMPLATE)`,
      });
    } finally {
      await marked.close();
    }
    expect(existsSync(mark)).toBe(false);
    // Opened again, the folder is used as it is (the template is read only for a new folder).
    const again = await openDatabase({ DATA_DIR: dir, PGLITE_TEMPLATE: join(dir, 'no-such-template.tar.gz') });
    try {
      expect(await tables(again)).toBeGreaterThan(20);
    } finally {
      await again.close();
    }
  });

  it('starts from a copy of the pre-initialised folder otherwise: empty, ready to migrate, kept under dist/pglite/', async () => {
    // @ts-expect-error: plain JavaScript, no declarations
    const { templatePath } = await import('../../bin/pglite-template.mjs');
    const template = await templatePath();
    const dir = await newFolder();
    const handle = await openDatabase({ DATA_DIR: dir });
    try {
      expect(await tables(handle)).toBe(0);
      // Not a copy of anything: no mark.
      expect(existsSync(join(dir, 'pglite', 'property-api-copy.json'))).toBe(false);
      expect((await sql<{ v: string }>`select current_setting('shared_buffers') as v`.execute(handle.db)).rows[0]!.v).toBe(
        '32MB',
      );
      // The same cluster as the template's (initdb ran once), in a folder of its own: the template is never opened.
      const identifier = (folder: string) => readFile(join(folder, 'global', 'pg_control')).then((b) => b.subarray(0, 8));
      expect(await identifier(join(dir, 'pglite'))).toEqual(await identifier(template));
      expect(await readFile(join(template, 'PG_VERSION'), 'utf8')).toMatch(/^\d+\n$/);
      expect(existsSync(join(template, 'postmaster.pid'))).toBe(false);
    } finally {
      await handle.close();
    }
  });

  it('says in one line that a PGLITE_TEMPLATE which cannot make the new folder is the setting at fault', async () => {
    const dir = await newFolder();
    const garbage = join(dir, 'garbage.tar.gz');
    await writeFile(garbage, randomBytes(4096));
    const refused = await openDatabase({ DATA_DIR: join(dir, 'data'), PGLITE_TEMPLATE: garbage }).then(
      (handle) => handle.close().then(() => undefined),
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(SettingsError);
    const { problems } = refused as SettingsError;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^PGLITE_TEMPLATE: expected a gzipped tarball PGlite dumped, .*got ".*garbage\.tar\.gz"$/);
    expect(existsSync(join(dir, 'data', 'pglite'))).toBe(false);
  });
});
