import { type RawBuilder, sql } from 'kysely';
import type { Executor, Trx } from './db/index';

/**
 * The booking calendar of a holiday home, as every group writes to it: booking requests (functions/stay) and
 * maintenance blocks (functions/maintenance) take a home's nights in turns, by locking its terms row first.
 */

/**
 * Locks a holiday home's terms row (FOR NO KEY UPDATE) until the transaction ends: booking requests, staff's blocks
 * and job blocks of one home take their turns, so a night is never given twice. A share lock is not enough: every
 * calendar write bumps the row's calendar_version (a trigger), so two share holders would deadlock on that update.
 * Returns false when the listing has no terms row (it is not a holiday home).
 */
export async function lockHomeCalendar(trx: Trx, listingId: string): Promise<boolean> {
  const row = await trx
    .selectFrom('holiday_home_terms')
    .select('listing_id')
    .where('listing_id', '=', listingId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The stays of a home that hold nights of [from, to): held until the hold lapses, confirmed until the payment
 * window closes, paid. `lapses_at`: when a held or confirmed stay lets its nights go (null for a paid one).
 */
export function staysHolding(executor: Executor, listingId: string, from: string, to: string, now: Date) {
  return staysHoldingQuery(executor, listingId, from, to, now).execute();
}

/** The query of {@link staysHolding}; the values may be SQL (a column of an outer query, e.g. `l.id`, or slots). */
export function staysHoldingQuery(
  executor: Executor,
  listingId: string | RawBuilder<string>,
  from: string | RawBuilder<string>,
  to: string | RawBuilder<string>,
  now: Date | RawBuilder<Date>,
) {
  return executor
    .selectFrom('bookings')
    .select([
      'reference',
      sql<string>`check_in`.as('start'),
      sql<string>`check_out`.as('end'),
      sql<Date | null>`case status when 'held' then hold_expires_at when 'confirmed' then payment_due_at end`.as('lapses_at'),
    ])
    .where('listing_id', '=', listingId)
    .where('check_in', '<', to)
    .where('check_out', '>', from)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'paid'),
        eb.and([eb('status', '=', 'held'), eb('hold_expires_at', '>', now)]),
        eb.and([eb('status', '=', 'confirmed'), eb('payment_due_at', '>', now)]),
      ]),
    );
}
