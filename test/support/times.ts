import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Db } from '../../lib/db/index';

/**
 * Explicit `updated_at` instants for the rows a test orders, instead of waiting for the clock to move between two
 * writes (PGlite's clock has milliseconds only: two writes in one millisecond tie). The touch trigger keeps an
 * `updated_at` that a statement sets itself, so later writes through the API still stamp their own time.
 */
type SyncTable = 'contacts' | 'leads' | 'activities' | 'tasks' | 'members' | 'departments';

/** Sets `updated_at` of the company's row whose `column` is `value`. */
export async function setUpdatedAt(
  db: Db,
  table: SyncTable,
  row: { companyId: string; column: 'id' | 'reference' | 'key'; value: string },
  at: Date,
): Promise<void> {
  const updated = await sql`update ${sql.table(table)} set updated_at = ${at}
    where company_id = ${row.companyId} and ${sql.ref(row.column)} = ${row.value}`.execute(db);
  if (updated.numAffectedRows !== 1n) throw new Error(`${table} ${row.value}: ${String(updated.numAffectedRows)} rows`);
}

/** Moves `updated_at` of every row of the company in `tables` back by `ms`, keeping their order. */
export async function moveUpdatedAtBack(db: Db, tables: readonly SyncTable[], companyId: string, ms: number): Promise<void> {
  for (const table of tables) {
    await sql`update ${sql.table(table)} set updated_at = updated_at - ${`${ms} milliseconds`}::interval
      where company_id = ${companyId}`.execute(db);
  }
}

/** Sets the rows named by `values` a second apart from `from` on, in that order. */
export async function setUpdatedAtInOrder(
  db: Db,
  table: SyncTable,
  rows: { companyId: string; column: 'id' | 'reference' | 'key'; values: readonly string[] },
  from: Date,
): Promise<void> {
  for (const [i, value] of rows.values.entries()) {
    await setUpdatedAt(db, table, { companyId: rows.companyId, column: rows.column, value }, new Date(from.getTime() + i * 1000));
  }
}

/** The database's clock now (clock_timestamp(): the clock that stamps `updated_at`). */
export async function databaseNow(db: Db): Promise<Date> {
  return (await sql<{ now: Date }>`select clock_timestamp() as now`.execute(db)).rows[0]!.now;
}

/**
 * An instant the API stamped during a step: between `before` (taken before the step) and now, shifted by `plus` ms
 * (e.g. an expiry 24 hours on). Brackets the step instead of trusting a wall-clock budget.
 */
export function expectStampedSince(iso: string, before: number, plus = 0): void {
  const at = Date.parse(iso);
  expect(at, iso).toBeGreaterThanOrEqual(before + plus);
  expect(at, iso).toBeLessThanOrEqual(Date.now() + plus);
}
