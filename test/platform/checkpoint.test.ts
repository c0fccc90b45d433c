import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DatabaseHandle } from '../../lib/db/index';
import { checkpointIfWalGrown, checkpointJob, walBetweenCheckpoints } from '../../lib/node/checkpoint';
import { openTestDatabase } from '../support/harness';

/**
 * Checkpoints on the embedded database (lib/node/checkpoint.ts): PGlite has no checkpointer, so the Node server's job
 * checkpoints once the WAL since the last checkpoint reaches its bound, and the WAL files beyond `max_wal_size` then
 * go. On PGlite alone, on a database of its own: on the PostgreSQL server its own checkpointer may start one at any
 * moment, and the job does not run there (lib/node/statistics.ts `nodeJobs`).
 */
let handle: DatabaseHandle;
beforeAll(async () => {
  if (!inject('databaseUrl')) handle = await openTestDatabase({ own: true });
});
afterAll(() => handle?.close());

const state = async () =>
  (
    await sql<{ redo: string; since: string; files: number }>`
      select redo_lsn::text as redo, pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::text as since,
             (select count(*) from pg_ls_waldir())::int as files
        from pg_control_checkpoint()`.execute(handle.db)
  ).rows[0] as { redo: string; since: string; files: number };

describe.runIf(!inject('databaseUrl'))('the checkpoint PGlite does not do itself', () => {
  it('leaves the WAL alone below its bound', async () => {
    await sql`checkpoint`.execute(handle.db);
    const before = await state();
    expect(await checkpointIfWalGrown(handle.db)).toBe(false);
    expect((await state()).redo).toBe(before.redo);
  });

  it('checkpoints once the WAL since the last checkpoint reaches its bound, and the WAL files beyond it go', async () => {
    await sql`create table wal_fill (id serial primary key, note text)`.execute(handle.db);
    // Each switch ends the current WAL file: 16 MB of WAL each time, five times over the bound of 64 MB.
    for (let i = 0; i < 5; i++) {
      await sql`insert into wal_fill (note) values (${`row ${i}`})`.execute(handle.db);
      await sql`select pg_switch_wal()`.execute(handle.db);
    }
    const grown = await state();
    expect(Number(grown.since)).toBeGreaterThanOrEqual(walBetweenCheckpoints);
    expect(await checkpointJob.run({ db: handle.db } as never)).toEqual({ checkpointed: true });
    const after = await state();
    expect(after.redo).not.toBe(grown.redo);
    expect(Number(after.since)).toBeLessThan(walBetweenCheckpoints);
    // max_wal_size (lib/db/pglite.ts) bounds what is kept for reuse: with PostgreSQL's 1 GB every file would stay.
    expect(after.files).toBeLessThan(grown.files);
    expect(await checkpointIfWalGrown(handle.db)).toBe(false);
  });
});
