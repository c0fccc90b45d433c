import type { Db, Trx } from './db/index';
import { type Stale, type WriteScope, writeOnce } from './write';

/**
 * A write of one record that stays fair under a burst (thirty writes of one job at once): tried first as lib/write.ts
 * says — one read, one write guarded by the version read, two round trips —, and when a concurrent write made that
 * stale, tried again in a transaction that first locks the record's bare row (`lock`, `for update` on one table: the
 * house's lock rule), then reads and writes the same way. Under the lock the version read is the row's last, so the
 * attempt is not stale again for the record's sake; another guard (a contractor stopped, a night taken meanwhile) may
 * still make it stale, and it is then run once more the same way (at most lib/write.ts's `writeTries`).
 */
export async function writeLockedWhenStale<T, S extends Pick<WriteScope, 'db'> = WriteScope>(
  scope: S,
  lock: (trx: Trx) => Promise<unknown>,
  attempt: (scope: S) => Promise<T | Stale>,
): Promise<T> {
  return writeOnce(async (tryNumber) => {
    if (tryNumber === 1) return attempt(scope);
    return (scope.db as Db).transaction().execute(async (trx) => {
      await lock(trx);
      return attempt({ ...scope, db: trx });
    });
  });
}
