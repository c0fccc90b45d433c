import { type RawBuilder, sql } from 'kysely';
import type { Company } from '../schema/platform/db';
import type { PersonalRead } from './audit';
import { type Db, isUniqueViolation } from './db/index';
import { ApiError } from './errors';
import type { CausedBy } from './events';
import type { IfMatch } from './preconditions';

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

/**
 * What a write knows of its request, handed to its domain function by lib/resources.ts (`written`, `changed`): the
 * database (no transaction: each statement is atomic), the company, the time, who caused it, the If-Match of a
 * versioned route (checked against the version read: lib/preconditions.ts checkIfMatch), and the read of personal data
 * its answer makes, audited by the write statement (lib/audit.ts readAuditCte).
 */
export type WriteScope = {
  db: Db;
  company: Company;
  now: Date;
  causedBy: CausedBy;
  ifMatch?: IfMatch;
  answerRead?: PersonalRead;
};

/**
 * A write statement: its CTEs in order (those a write does not need given as `undefined` or `false`, and left out),
 * then the final select, e.g. the changed row: `with changed as (update …), …_event as (…), answer_read as (…) select *
 * from changed`. The CTEs run once each, whether or not the select reads them; a data-modifying CTE's rows are seen by
 * the later ones (through its `returning`), never by a read of its table in the same statement.
 */
export function writeStatement(ctes: ReadonlyArray<RawBuilder<unknown> | undefined | false>, select: RawBuilder<unknown>) {
  const kept = ctes.filter((cte): cte is RawBuilder<unknown> => cte !== undefined && cte !== false);
  return kept.length === 0 ? select : sql`with ${sql.join(kept, sql`, `)} ${select}`;
}
