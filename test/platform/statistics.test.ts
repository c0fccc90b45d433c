import { CompiledQuery, sql } from 'kysely';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { growListings } from '../../bench/growth-data';
import { platformJobs } from '../../lib/platform-jobs';
import { checkpointJob } from '../../lib/node/checkpoint';
import { analyseGrownTables, nodeJobs, statisticsJob } from '../../lib/node/statistics';
import { createTestApi, demo, openTestDatabase, type TestApi } from '../support/harness';
import { createCompany, importCatalogue } from '../support/world';

/**
 * The planner's statistics on the embedded database (lib/node/statistics.ts): PGlite has no autovacuum, so the Node
 * server analyses the tables that grew since their last analysis. On a database of its own: it reads every table.
 */

let api: TestApi;
let company: { id: string; host: string };
beforeAll(async () => {
  api = await createTestApi({ handle: await openTestDatabase({ own: true }) });
  // On PostgreSQL autovacuum could analyse the table first: here the job alone does (PGlite has none to turn off).
  for (const table of ['listings', 'listing_photos'])
    await sql`alter table ${sql.table(table)} set (autovacuum_enabled = off)`.execute(api.db);
  await analyseGrownTables(api.db);
  company = await createCompany(api);
  await importCatalogue(api, company.id, { areas: demo.areas, property_types: demo.property_types, listings: [] });
});
afterAll(() => api.close());

/** The planner's estimate of the company's listings, and how many there are. */
async function estimate() {
  const { rows } = await api.db.executeQuery<{ 'QUERY PLAN': unknown }>(
    CompiledQuery.raw(`explain (format json) select * from listings where company_id = $1`, [company.id]),
  );
  const json = rows[0]?.['QUERY PLAN'];
  const plan = (typeof json === 'string' ? JSON.parse(json) : json) as Array<{ Plan: { 'Plan Rows': number } }>;
  const counted = await api.db
    .selectFrom('listings')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('company_id', '=', company.id)
    .executeTakeFirstOrThrow();
  return { planned: plan[0]!.Plan['Plan Rows'], actual: Number(counted.n) };
}

describe('the statistics job (PGlite has no autovacuum)', () => {
  it('analyses a table that grew, so the planner knows its rows; then nothing until it grows again', async () => {
    const client = {
      query: async (text: string, values: unknown[] = []) => ({
        rows: (await api.db.executeQuery(CompiledQuery.raw(text, values))).rows,
      }),
    } as unknown as pg.Client;
    await growListings(client, company.id, 3_000);
    const stale = await estimate();
    expect(stale.actual).toBeGreaterThanOrEqual(3_000);
    // What the last analysis saw: far fewer rows than the table holds now.
    expect(stale.planned).toBeLessThan(stale.actual / 4);

    const analysed = await analyseGrownTables(api.db);
    expect(analysed).toContain('listings');
    expect(analysed).toContain('listing_photos');
    const fresh = await estimate();
    expect(fresh.planned).toBeGreaterThan(fresh.actual / 2);
    expect(fresh.planned).toBeLessThan(fresh.actual * 2);

    // Nothing grew since: no table is analysed again.
    expect(await analyseGrownTables(api.db)).toEqual([]);
  });

  it('runs as the Node server’s scheduled job on PGlite alone, after the others', async () => {
    expect(nodeJobs(platformJobs, { engine: 'pglite' })).toEqual([...platformJobs, statisticsJob, checkpointJob]);
    expect(nodeJobs(platformJobs, { engine: 'postgres' })).toEqual(platformJobs);
    expect(await statisticsJob.run(api.platform.services())).toEqual({ analysed: [] });
  });
});
