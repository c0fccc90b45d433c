import { type LogEvent, sql } from 'kysely';
import { afterAll } from 'vitest';
import { createTestApi, openTestDatabase, type TestApi } from './harness';
import { useWorld, type WorldOptions } from './world';

/**
 * Whether PostgreSQL keeps the generic plan of a named statement (lib/db/prepared.ts): after five runs planned for
 * their own values, it plans a named statement once and keeps that plan, unless the generic plan's estimate is higher
 * than the runs' own. A lookup whose value is a parameter that a run leaves null is folded away in that run's own plan,
 * so the generic one looks dearer, and every run is planned again (docs/performance.md, "A read planned on every run").
 * These helpers capture what a request sends and compare the two estimates, on the engine the pass runs.
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

/** The estimated cost of `statement`'s plan, prepared, with its values, under `plan_cache_mode` = `mode`. */
async function planCost(api: TestApi, statement: Sent, mode: 'force_generic_plan' | 'force_custom_plan'): Promise<number> {
  return api.platform.handle.db.connection().execute(async (c) => {
    const name = `plan_cost_${mode.slice(6, 12)}`;
    await sql`set plan_cache_mode = ${sql.raw(mode)}`.execute(c);
    try {
      await sql.raw(`prepare ${name} as ${statement.sql}`).execute(c);
      const values = statement.parameters.map(literal).join(', ');
      const { rows } = await sql
        .raw<{ 'QUERY PLAN': string }>(`explain execute ${name}${values ? `(${values})` : ''}`)
        .execute(c);
      await sql.raw(`deallocate ${name}`).execute(c);
      return Number(/cost=[\d.]+\.\.([\d.]+)/.exec(rows[0]!['QUERY PLAN'])![1]);
    } finally {
      await sql`reset plan_cache_mode`.execute(c);
    }
  });
}

/**
 * How much dearer the generic estimate may be: 1 %. Values the generic plan cannot see (a date, a time) move the
 * estimate by hundredths; PostgreSQL adds to each custom plan's estimate the cost of planning it (1,000 ×
 * `cpu_operator_cost` per relation and one more, 2.5 each by default), so such a generic plan is still the one kept.
 * A lookup folded away is a third or more (76.6 against 28.3, 107.9 against 91.6 before the change).
 */
export const genericMargin = 1.01;

/** The generic and the custom plan's estimated cost of `statement` with its values. */
export async function planCosts(api: TestApi, statement: Sent) {
  return {
    generic: await planCost(api, statement, 'force_generic_plan'),
    custom: await planCost(api, statement, 'force_custom_plan'),
  };
}
