import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openPGlite } from '../../lib/db/pglite';
import { backupOfFolder, pgliteDirOf } from '../../lib/node/backup';
import { openDatabase } from '../../lib/node/database';
import { createTestApi } from '../support/harness';
import { baseUrlOf, runBin, startServer, stopServer } from '../support/server-process';
import { createCompany } from '../support/world';

/**
 * Issue 32, defect 5, with the admin command line as a real process on a real data folder: a restore from a truncated
 * archive, from garbage, from a tarball that is not a database, from a PostgreSQL folder that is not this API's, or
 * from a tar cut inside a whole gzip says why in one line, exits 2, and leaves the folder's database exactly as it was
 * (opened here: its company is there, nothing beside it); the next `npm start` finds the old data, no demo seeded over
 * it. A whole backup is restored, the replaced database kept aside, and the copy's outbound work paused (defect 8).
 * PGlite only: a restore is the embedded database's.
 */
const work = await mkdtemp(join(tmpdir(), 'pa-restore-'));
afterAll(() => rm(work, { recursive: true, force: true }));

/** A data folder whose database has one company on localhost (the demo's host: a start seeds nothing over it). */
async function dataFolder(name: string): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir);
  await addCompany(dir, 'Before the restore', ['localhost']);
  return dir;
}

async function addCompany(dir: string, name: string, hosts: string[]): Promise<void> {
  const api = await createTestApi({ handle: await openDatabase({ DATA_DIR: dir }) });
  try {
    await createCompany(api, { name, hosts, environment: 'development' });
  } finally {
    await api.close();
  }
}

/** The folder's database, opened as the server opens it: its companies' names, and whether outbound work is paused. */
async function opened(pgliteDir: string): Promise<{ companies: string[]; paused: string | null }> {
  const handle = await openPGlite({ dataDir: pgliteDir });
  try {
    const companies = (await handle.db.selectFrom('companies').select('name').orderBy('name').execute()).map((c) => c.name);
    const pause = await sql<{ reason: string }>`select reason from outbound_pause`.execute(handle.db);
    return { companies, paused: pause.rows[0]?.reason ?? null };
  } finally {
    await handle.close();
  }
}

const restore = (dir: string, file: string) => runBin('admin.ts', ['restore', file], { DATA_DIR: dir });

let dataDir: string;
let backup: string;
const archives: Record<string, string> = {};

beforeAll(async () => {
  if (inject('databaseUrl')) return;
  dataDir = await dataFolder('data');
  backup = join(work, 'whole.tar.gz');
  const whole = Buffer.from(await (await backupOfFolder(dataDir)).arrayBuffer());
  await writeFile(backup, whole);
  const write = async (name: string, bytes: Uint8Array) => {
    archives[name] = join(work, `${name}.tar.gz`);
    await writeFile(archives[name], bytes);
  };
  await write('truncated', whole.subarray(0, Math.floor(whole.length / 2)));
  await write('garbage', randomBytes(256 * 1024));
  await write('gzipped garbage', gzipSync(randomBytes(256 * 1024)));
  const tar = gunzipSync(whole);
  await write('a tar cut inside a whole gzip', gzipSync(tar.subarray(0, Math.floor(tar.length / 3))));
  // A real tarball of files that are no database, as `tar` makes it.
  const notes = join(work, 'notes');
  await mkdir(notes);
  await writeFile(join(notes, 'readme.txt'), 'not a database\n');
  archives['a tarball of other files'] = join(work, 'notes.tar.gz');
  await promisify(execFile)('tar', ['czf', archives['a tarball of other files'], '-C', notes, '.']);
  // A PostgreSQL data folder PGlite dumped, but not this API's database: a copy of the pre-initialised template
  // (initdb only), dumped as a backup is.
  // @ts-expect-error: plain JavaScript, no declarations
  const { makeFolder } = await import('../../bin/pglite-template.mjs');
  const another = join(work, 'another');
  await makeFolder(another);
  const dumped = await openPGlite({ dataDir: another });
  try {
    await write('another PostgreSQL database', new Uint8Array(await (await dumped.pglite.dumpDataDir('gzip')).arrayBuffer()));
  } finally {
    await dumped.close();
  }
}, 300_000);

describe.skipIf(Boolean(inject('databaseUrl')))('npm run admin -- restore', { timeout: 900_000 }, () => {
  it('refuses every archive that is not a whole backup of this API, in one line, and leaves the database as it was', async () => {
    for (const [what, file] of Object.entries(archives)) {
      const result = await restore(dataDir, file);
      const said = result.stderr.trim();
      expect([what, result.code]).toEqual([what, 2]);
      expect(said).toMatch(/^The backup .* cannot be restored: .*\. The database was left as it was\.$/);
      expect(said.split('\n')).toHaveLength(1);
      expect(said).not.toMatch(/^\s+at /m);
      // The folder holds what it held: the database, its keys and lock; nothing staged or moved aside.
      expect([what, (await readdir(dataDir)).filter((name) => name.startsWith('pglite') || name.startsWith('restore'))]).toEqual([
        what,
        ['pglite'],
      ]);
      expect([what, await opened(pgliteDirOf(dataDir))]).toEqual([what, { companies: ['Before the restore'], paused: null }]);
    }
    expect(await restore(dataDir, join(work, 'missing.tar.gz'))).toMatchObject({ code: 2 });

    // The next start finds the old data: no new demo company seeded over it.
    const server = startServer(dataDir);
    try {
      await server.started;
      expect(server.output()).toContain('existing data reused');
      expect(server.output()).not.toContain('Outbound:');
      const token = (await readFile(join(dataDir, 'admin-token'), 'utf8')).trim();
      const listed = await fetch(`${await baseUrlOf(dataDir)}/admin/v1/companies`, {
        headers: { Authorization: `Bearer ${token}` },
      });
      expect((await listed.json()).results.map((c: { name: string }) => c.name)).toEqual(['Before the restore']);
    } finally {
      await stopServer(server);
    }
  });

  it('restores a whole backup, keeps the database it replaced aside, and pauses the copy’s outbound work', async () => {
    await addCompany(dataDir, 'After the backup', ['after.test']);
    const result = await restore(dataDir, backup);
    expect(result.code, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout);
    expect(answer).toMatchObject({ restored: backup, into: dataDir, companies: 1 });
    expect(answer.outbound).toContain('outbound resume');
    expect(await opened(pgliteDirOf(dataDir))).toEqual({
      companies: ['Before the restore'],
      paused: 'restored from whole.tar.gz',
    });
    expect(await opened(answer.previous_database_kept_in)).toEqual({
      companies: ['After the backup', 'Before the restore'],
      paused: null,
    });
    expect((await readdir(dataDir)).filter((name) => name.startsWith('restore'))).toEqual([]);
  });

  it('restores into a new data folder (a second machine)', async () => {
    const fresh = join(work, 'fresh');
    const result = await restore(fresh, backup);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).previous_database_kept_in).toBeNull();
    expect(await opened(pgliteDirOf(fresh))).toEqual({ companies: ['Before the restore'], paused: 'restored from whole.tar.gz' });
  });
});
