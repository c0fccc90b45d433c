import { isUniqueViolation } from './db/index';
import { ApiError } from './errors';

/**
 * Writes in few round trips (docs/invariants.md, "Writes"). On Workers every statement of an interactive transaction
 * is a trip from the edge to Neon, so a write is, where it can be:
 *
 * 1. one read statement that gathers everything the decision needs (the record with its `version`, the records the
 *    body names, the company's rules), sent outside any transaction;
 * 2. the decision in TypeScript (validation, warnings, the next status by lib/transitions.ts, the events);
 * 3. one write statement (data-modifying CTEs: the change guarded by what was read — `where id = … and version = …`
 *    —, its events and deliveries by `eventCtes`, its audit rows, and the record as answered selected from the
 *    changed rows), atomic as any single statement is.
 *
 * When the guard matches no row, a concurrent write changed what was read: the attempt answers {@link stale} and is
 * run again from the read. A unique violation (a concurrent create of the same external id, email or phone) also runs
 * it again, when the read then finds the first record. Two round trips on Node, three on Workers (the company).
 */
export const stale: unique symbol = Symbol('stale');
export type Stale = typeof stale;

/** How many times a write is tried before a lasting conflict is answered 409 `conflict` (never a silent loss). */
export const writeTries = 8;

/** Runs `attempt` until it answers something other than {@link stale} (see above); 409 after {@link writeTries}. */
export async function writeOnce<T>(attempt: (tryNumber: number) => Promise<T | Stale>): Promise<T> {
  for (let tryNumber = 1; tryNumber <= writeTries; tryNumber++) {
    try {
      const result = await attempt(tryNumber);
      if (result !== stale) return result as T;
    } catch (error) {
      if (!isUniqueViolation(error) || tryNumber === writeTries) throw error;
    }
  }
  throw new ApiError('conflict', 'The record kept changing while this write was made; send it again.');
}
