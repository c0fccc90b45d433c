import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomToken } from '../../lib/crypto';
import type { DatabaseHandle } from '../../lib/db/index';
import { openPostgres } from '../../lib/db/postgres';
import { plannedEachRun, runNamed } from '../../lib/db/prepared';
import { searchConditions } from '../../lib/listing-search';

/**
 * Reads sent as named statements (lib/db/prepared.ts runNamed; issue 28): planned once per connection, and still
 * answered after a table they read changed shape while the connection kept its plan (PostgreSQL refuses such a plan
 * for good: "cached plan must not change result type"). PostgreSQL only: the pg client names them (PGlite's one
 * session is tested through every route that uses them).
 */
const databaseUrl = inject('databaseUrl');
let handle: DatabaseHandle;
const table = `named_${randomToken(8).toLowerCase()}`;

describe.skipIf(!databaseUrl)('named statements on PostgreSQL', () => {
  beforeAll(async () => {
    // One connection: the plan kept by the first run is the one the second meets.
    handle = openPostgres(databaseUrl, { max: 1 });
    await sql`create table ${sql.id(table)} (id int primary key, name text)`.execute(handle.db);
    await sql`insert into ${sql.id(table)} values (1, 'one')`.execute(handle.db);
  });
  afterAll(async () => {
    await sql`drop table if exists ${sql.id(table)}`.execute(handle.db);
    await handle.close();
  });

  const read = () =>
    runNamed(handle.db, sql<Record<string, unknown>>`select * from ${sql.id(table)} where id = ${1}`.compile(handle.db));

  it('is prepared once on the connection, then only bound and run', async () => {
    expect((await read()).rows).toEqual([{ id: 1, name: 'one' }]);
    const prepared = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_prepared_statements where statement like ${`%${table}%`}`.execute(handle.db);
    expect(prepared.rows[0]!.n).toBe(1);
    expect((await read()).rows).toEqual([{ id: 1, name: 'one' }]);
  });

  it('answers with the new shape after a column was added, on the same connection, from then on', async () => {
    await read();
    await sql`alter table ${sql.id(table)} add column note text default 'n'`.execute(handle.db);
    expect((await read()).rows).toEqual([{ id: 1, name: 'one', note: 'n' }]);
    expect((await read()).rows).toEqual([{ id: 1, name: 'one', note: 'n' }]);
  });

  it('never prepares a statement marked as planned for each run, however it is sent: a listing search by words', async () => {
    const text = sql<{ name: string }>`select ${sql.raw(plannedEachRun)} name from ${sql.id(table)} where id = ${1}`;
    for (let run = 0; run < 3; run++) {
      expect((await runNamed(handle.db, text.compile(handle.db))).rows).toEqual([{ name: 'one' }]);
      expect((await text.execute(handle.db)).rows).toEqual([{ name: 'one' }]);
    }
    const prepared = await sql<{ n: number }>`
      select count(*)::int as n from pg_prepared_statements where statement like ${`%${table}%`}
        and statement like ${'%planned each run%'}`.execute(handle.db);
    expect(prepared.rows[0]!.n).toBe(0);
    const company = '00000000-0000-4000-8000-000000000000';
    expect(searchConditions(['marina'], company).compile(handle.db).sql).toContain(plannedEachRun);
  });
});
