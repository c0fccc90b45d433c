import { type LogEvent, sql } from 'kysely';
import { afterAll } from 'vitest';
import { createTestApi, openTestDatabase, type TestApi } from './harness';
import { useWorld, type WorldOptions } from './world';

/**
 * Whether PostgreSQL keeps the generic plan of a named statement (lib/db/prepared.ts): after five runs planned for
 * their own values, it plans a named statement once and keeps that plan, unless the generic plan's estimate is higher
 * than the runs' own. A lookup whose value is a parameter that a run leaves null is folded away in that run's own plan,
 * so the generic one looks dearer, and every run is planned again (docs/performance.md, "A read planned on every run").
 * These helpers capture what a request sends and give its generic plan and its plan for its own values, on the engine
 * the pass runs, to compare what they read.
 */

export type Sent = { sql: string; parameters: readonly unknown[] };

/** A Kysely `log` and the statements it caught while `during` ran. */
export function statementCatcher() {
  let caught: Sent[] | undefined;
  const log = (event: LogEvent) => {
    if (event.level === 'query') caught?.push({ sql: event.query.sql, parameters: event.query.parameters });
  };
  const during = async (run: () => Promise<unknown>): Promise<Sent[]> => {
    caught = [];
    try {
      await run();
      return caught;
    } finally {
      caught = undefined;
    }
  };
  return { log, during };
}

/**
 * The file's world (test/support/world.ts useWorld) on an API of its own whose statements the catcher catches; the API
 * is closed after the file's tests.
 */
export function useCaughtWorld(options: Omit<WorldOptions, 'api'> = {}) {
  const catcher = statementCatcher();
  let api: TestApi | undefined;
  const w = useWorld(async () => {
    api = await createTestApi({
      handle: await openTestDatabase({ log: catcher.log }),
      env: { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '100000' },
    });
    return { ...options, api };
  });
  afterAll(() => api?.close());
  return { w, catcher };
}

/** The one statement of `sent` that starts with `start` (after whitespace). */
export function statementStarting(sent: Sent[], start: string): Sent {
  const found = sent.filter((s) => s.sql.trimStart().startsWith(start));
  if (found.length !== 1) throw new Error(`${found.length} statements start with ${start}`);
  return found[0]!;
}

/** A value as an SQL literal of unknown type, as the driver would send it (an array as PostgreSQL's array text). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  const text = (v: unknown): string =>
    v instanceof Date ? v.toISOString() : typeof v === 'object' ? JSON.stringify(v) : String(v);
  const array = (items: unknown[]) =>
    `{${items.map((item) => `"${text(item).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`;
  return `'${(Array.isArray(value) ? array(value) : text(value)).replaceAll("'", "''")}'`;
}

/**
 * What a plan reads: each scan's relation (a table, a CTE), sorted, whatever the scan (an index, a bitmap of one, the
 * table), so another way to a day's bookings for other values reads the same. A lookup folded away for a null value
 * has no scan.
 */
function scannedBy(lines: string[]): string[] {
  return (
    lines
      // A bitmap index scan names its index; the heap scan above it names the table.
      .map((line) => (line.includes('Bitmap Index Scan') ? undefined : / Scan (?:using \S+ )?on (\S+)/.exec(line)?.[1]))
      .filter((relation): relation is string => relation !== undefined)
      .sort()
  );
}

/** `statement`'s plan, prepared, with its values, under `plan_cache_mode` = `mode`: the relations it scans. */
async function planOf(api: TestApi, statement: Sent, mode: 'force_generic_plan' | 'force_custom_plan') {
  return api.platform.handle.db.connection().execute(async (c) => {
    const name = `plan_of_${mode.slice(6, 12)}`;
    const values = statement.parameters.map(literal).join(', ');
    await sql`set plan_cache_mode = ${sql.raw(mode)}`.execute(c);
    try {
      await sql.raw(`prepare ${name} as ${statement.sql}`).execute(c);
      try {
        const { rows } = await sql
          .raw<{ 'QUERY PLAN': string }>(`explain (costs off) execute ${name}${values ? `(${values})` : ''}`)
          .execute(c);
        return { scans: scannedBy(rows.map((row) => row['QUERY PLAN'])) };
      } finally {
        await sql.raw(`deallocate ${name}`).execute(c);
      }
    } finally {
      await sql`reset plan_cache_mode`.execute(c);
    }
  });
}

/**
 * The generic plan of `statement` and the plan for its own values: the relations each scans. The same
 * scans are the point: nothing folded away for these values, so PostgreSQL compares the same work's estimates, apart
 * from what the values' statistics move (an index for a day, a few hundredths), and the planning cost it adds to each
 * plan for its values (1,000 × `cpu_operator_cost` per relation and one more) keeps the generic one.
 */
export async function plansOf(api: TestApi, statement: Sent) {
  return {
    generic: await planOf(api, statement, 'force_generic_plan'),
    custom: await planOf(api, statement, 'force_custom_plan'),
  };
}
