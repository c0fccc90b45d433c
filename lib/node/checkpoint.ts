import { sql } from 'kysely';
import type { Executor } from '../db/index';
import type { ScheduledJob } from '../scheduler';

/**
 * Checkpoints on the embedded database. PostgreSQL's checkpointer process starts a checkpoint once `max_wal_size` of
 * WAL has been written since the last one, and only then can the WAL before it be recycled or removed. PGlite runs
 * PostgreSQL as one process with no checkpointer, so that never happens: until the database is closed, its `pg_wal`
 * grows by a new 16 MB file, written full of zeros first, for every 16 MB of changes (on disk for the Node server, in
 * memory for a PGlite opened from a tarball). Measured on PGlite 0.5.16 (docs/performance.md, "PGlite never
 * checkpoints by itself"): 150 MB of inserts left 11 WAL files; a checkpoint then left 4 (with the `max_wal_size` of
 * lib/db/pglite.ts), and the next files were recycled ones instead of new. Twenty new files cost 3.0 s where, with a
 * checkpoint after every fourth, they cost 0.7 s.
 *
 * So the Node server on PGlite runs {@link checkpointJob} with its scheduled jobs, and the tests' shared PGlite
 * checkpoints the same way as each file starts: a checkpoint once the WAL since the last has reached
 * {@link walBetweenCheckpoints}.
 */
export const walBetweenCheckpoints = 64 * 1024 * 1024;

/** Checkpoints when the WAL written since the last checkpoint began has reached `bytes`; answers whether it did. */
export async function checkpointIfWalGrown(db: Executor, bytes = walBetweenCheckpoints): Promise<boolean> {
  const { rows } = await sql<{ since: string }>`
    select pg_wal_lsn_diff(pg_current_wal_lsn(), redo_lsn)::text as since from pg_control_checkpoint()`.execute(db);
  if (Number(rows[0]?.since ?? 0) < bytes) return false;
  await sql`checkpoint`.execute(db);
  return true;
}

/** The scheduled job of {@link checkpointIfWalGrown}: its report says whether it checkpointed. */
export const checkpointJob: ScheduledJob = {
  name: 'checkpoint',
  run: async ({ db }) => ({ checkpointed: await checkpointIfWalGrown(db) }),
};
