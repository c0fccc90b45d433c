import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseHandle, Executor } from '../../lib/db/index';
import { openTestDatabase } from '../support/harness';

/**
 * Every foreign key has an index whose leading columns are the key's columns (in any order, not partial):
 * without one, deleting or re-keying a parent row scans the whole child table, and the joins the API makes
 * from a parent to its children (a contact's activities, an area's listings) read every row.
 */
let handle: DatabaseHandle;
beforeAll(async () => {
  handle = await openTestDatabase();
});
afterAll(() => handle.close());

/** Foreign keys of the schema with no usable index, as `table(columns)`. */
async function unindexedForeignKeys(db: Executor): Promise<string[]> {
  const { rows } = await sql<{ fk: string }>`
    select c.conrelid::regclass::text || '(' ||
           array_to_string(array(select a.attname from unnest(c.conkey) with ordinality k(attnum, n)
                                 join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum
                                 order by k.n), ', ') || ')' as fk
      from pg_constraint c
     where c.contype = 'f'
       and c.connamespace = current_schema()::regnamespace
       and not exists (
         select 1 from pg_index i
          where i.indrelid = c.conrelid
            and i.indpred is null
            and (i.indkey::int2[])[0:cardinality(c.conkey) - 1] @> c.conkey
            and (i.indkey::int2[])[0:cardinality(c.conkey) - 1] <@ c.conkey)
     order by 1`.execute(db);
  return rows.map((r) => r.fk);
}

describe('foreign keys', () => {
  it('each has an index whose leading columns are its columns', async () => {
    expect(await unindexedForeignKeys(handle.db)).toEqual([]);
  });

  it('finds a foreign key without such an index (the check itself works)', async () => {
    await handle.db
      .transaction()
      .execute(async (trx) => {
        await sql`create table fk_probe_parent (a int, b int, primary key (a, b))`.execute(trx);
        await sql`create table fk_probe (id int primary key, a int, b int, foreign key (b, a) references fk_probe_parent (b, a))`.execute(
          trx,
        );
        // An index with the key's columns second, and a partial one, do not serve the key.
        await sql`create index fk_probe_late on fk_probe (id, a, b)`.execute(trx);
        await sql`create index fk_probe_partial on fk_probe (b, a) where a > 0`.execute(trx);
        const before = await unindexedForeignKeys(trx);
        await sql`create index fk_probe_key on fk_probe (a, b, id)`.execute(trx);
        const after = await unindexedForeignKeys(trx);
        expect(before).toContain('fk_probe(b, a)');
        expect(after).not.toContain('fk_probe(b, a)');
        // Leaves nothing behind: the probe tables go with the rollback.
        throw new RolledBack();
      })
      .catch((error: unknown) => {
        if (!(error instanceof RolledBack)) throw error;
      });
  });
});
class RolledBack extends Error {}
