import { sql } from 'kysely';
import type { DatabaseHandle, Executor } from '../db/index';
import type { ScheduledJob } from '../scheduler';
import { checkpointJob } from './checkpoint';

/**
 * The planner's statistics on the embedded database. PostgreSQL's autovacuum analyses a table once enough of it has
 * changed; PGlite runs no background process, so its tables keep the statistics of their last `analyze` (the
 * migrations', on tables then nearly empty) however they grow. Measured (docs/performance.md, "Statistics on the
 * embedded database"): 20,000 listings grown on PGlite, `q=marina` answered in 341 ms and the words' page of `growth`
 * in 1,122 ms before an `analyze` (493 ms), 7.3 and 6.6 ms after.
 *
 * So the Node server on PGlite runs {@link statisticsJob} with its scheduled jobs: each run compares every table's size
 * with the size its last analysis saw (`pg_class.relpages`, written by `analyze` and `vacuum`) and analyses, in one
 * statement, those grown by a tenth and four pages (32 KB) since: what autovacuum's threshold of 10 % of the rows plus
 * 50 does, counted in pages, as PGlite keeps no counts of changed rows (`pg_stat_user_tables` stays at zero there).
 * A table changed in place without growing is not analysed again; a table dropped to fewer rows neither.
 */

/** A table is analysed once its pages exceed those of its last analysis by this share, plus {@link slackPages}. */
const growth = 0.1;
const slackPages = 4;

/** Analyses the tables of the public schema grown since their last analysis; returns their names. */
export async function analyseGrownTables(db: Executor): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select c.relname::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where n.nspname = 'public' and c.relkind = 'r'
       and pg_relation_size(c.oid) / current_setting('block_size')::int > c.relpages * ${1 + growth}::float8 + ${slackPages}::int
     order by 1`.execute(db);
  const names = rows.map((row) => row.name);
  if (names.length > 0) await sql`analyze ${sql.join(names.map((name) => sql.id(name)))}`.execute(db);
  return names;
}

/** The scheduled job of {@link analyseGrownTables}: its report names the tables analysed. */
export const statisticsJob: ScheduledJob = {
  name: 'statistics',
  run: async ({ db }) => ({ analysed: await analyseGrownTables(db) }),
};

/**
 * The Node server's scheduled jobs on `handle`: on PGlite, {@link statisticsJob} and the checkpoint that PostgreSQL's
 * own background processes would do (lib/node/checkpoint.ts) after the others.
 */
export function nodeJobs(jobs: readonly ScheduledJob[], handle: Pick<DatabaseHandle, 'engine'>): readonly ScheduledJob[] {
  return handle.engine === 'pglite' ? [...jobs, statisticsJob, checkpointJob] : jobs;
}
