import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { Database } from '../schema/db';
import { addDays } from './dates';
import type { Executor, Trx } from './db/index';

/**
 * The booking calendar of a holiday home, as every group writes to it: booking requests and confirmations, staff's
 * blocks (functions/stay), maintenance blocks (functions/maintenance) and imported calendars take a home's nights in
 * turns, by locking its terms row first (a bare row, no join).
 *
 * The one rule for "is this night free" (docs/invariants.md): a night is taken by a stay that still holds it (held
 * until its hold lapses, confirmed until its payment window closes, paid: {@link staysHolding}), by a block
 * ({@link blocksWithin}) or by a date's own rule that closes it ({@link closedWithin}, issue 37). A stay whose hold or payment window ran out by `now` (the services' or scheduler's clock)
 * holds nothing, whether or not the scheduler has cancelled it yet. Every writer asks {@link nightsTaken}: a booking
 * is refused on any taken night, a staff block on a holding stay, a maintenance block skips such a night.
 *
 * Turnover (the home's `turnover_days`, t): each stay — a booking that holds its nights, or an imported block (a
 * channel's stay) — is followed by t nights a new stay may not use ({@link turnoverAfter}), and a new stay may not end
 * so that its own turnover reaches the next stay, so the t nights before each stay are no new stay's either
 * ({@link takenNights}). They are computed here whenever the calendar is read, never stored: the setting applies at
 * once to every stay, and nothing has to follow a booking's, an import's or the setting's changes.
 */

/*
 * The calendar's locks. Every lock of a home's calendar (its terms row) is taken by a function of this file, and by
 * no other code (docs/invariants.md, "The calendar rule"; test/platform/layout.test.ts): in a transaction
 * ({@link lockHomeCalendar}, {@link lockHomeCalendars}), or in the guard of a write statement ({@link lockedTermsCte},
 * {@link calendarLocked}).
 */

/**
 * Locks a holiday home's terms row (FOR NO KEY UPDATE) until the transaction ends: booking requests, staff's blocks
 * and job blocks of one home take their turns, so a night is never given twice. A share lock is not enough: every
 * calendar write bumps the row's calendar_version (a trigger), so two share holders would deadlock on that update.
 * `listingId`: a value, or SQL (a parenthesised subquery, e.g. the home of a job). Returns false when the listing has
 * no terms row (it is not a holiday home).
 */
export async function lockHomeCalendar(trx: Trx, listingId: string | RawBuilder<string>): Promise<boolean> {
  const row = await trx
    .selectFrom('holiday_home_terms')
    .select('listing_id')
    .where('listing_id', '=', listingId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Locks the terms rows of the homes `listingIds` selects (a query of listing ids), in the order of their ids, so two
 * writers of several homes never wait on each other in a circle. Returns the ids of the homes locked.
 */
export async function lockHomeCalendars<TB extends keyof Database>(
  trx: Trx,
  listingIds: SelectQueryBuilder<Database, TB, { listing_id: string }>,
): Promise<string[]> {
  const rows = await trx
    .selectFrom('holiday_home_terms')
    .select('listing_id')
    .where('listing_id', 'in', listingIds)
    .orderBy('listing_id')
    .forNoKeyUpdate()
    .execute();
  return rows.map((row) => row.listing_id);
}

/**
 * The guard of a write statement that touches a home's calendar (a job's block or its release): the home's terms row
 * locked (FOR NO KEY UPDATE, as {@link lockHomeCalendar} locks it), a condition on no row, evaluated before the write
 * locks any row. Without `version` it is always true (the lock is all it does; a listing that is no holiday home has no
 * row to lock); with it, true only while the home's `calendar_version` is still `version` (as read before).
 */
export function calendarLocked(listingId: string, version?: string | null): RawBuilder<boolean> {
  const locked = sql`select calendar_version from holiday_home_terms where listing_id = ${listingId}::uuid for no key update`;
  if (version === undefined) return sql<boolean>`(select true from (${locked}) as terms) is not false`;
  return sql<boolean>`(select calendar_version from (${locked}) as terms) is not distinct from ${version}::bigint`;
}

/** Nights [start, end). */
export type Range = { start: string; end: string };
export type HoldingStay = Range & { reference: string; lapses_at: Date | null };

/** A block as the rule reads it: `imported` blocks are channels' stays (followed by turnover). */
export type TakenBlock = Range & { imported: boolean };

/** The turnover after each of `stays`: [end, end + days). */
export function turnoverAfter<T extends Range>(stays: readonly T[], days: number): Array<Range & { after: T }> {
  return days > 0 ? stays.map((stay) => ({ start: stay.end, end: addDays(stay.end, days), after: stay })) : [];
}

/**
 * Every night a new stay may not use, by the one rule (unmerged): the stays and blocks themselves, the turnover after
 * each stay, and the `turnoverDays` nights before each stay (a stay using one of them would end with its own turnover
 * inside that stay). The stays are the holding bookings and the imported blocks; with `exported` (the iCalendar
 * feeds) only the bookings: a channel is told our bookings' turnover, never nights derived from a channel's stay,
 * since a channel that echoes what it imported would send them back as a longer stay, whose turnover would grow again
 * on every round of two such channels.
 */
export function takenNights(
  taken: { stays: readonly Range[]; blocks: readonly TakenBlock[] },
  turnoverDays: number,
  options: { exported?: boolean } = {},
): Range[] {
  const nights: Range[] = [...taken.stays, ...taken.blocks];
  if (turnoverDays <= 0) return nights;
  const stays = options.exported ? taken.stays : [...taken.stays, ...taken.blocks.filter((b) => b.imported)];
  for (const stay of stays) {
    nights.push({ start: stay.end, end: addDays(stay.end, turnoverDays) });
    nights.push({ start: addDays(stay.start, -turnoverDays), end: stay.start });
  }
  return nights;
}

/**
 * What takes nights of [from, to) by the one rule: the stays that hold them and the blocks over them, read `turnoverDays`
 * further on each side (a stay before the window whose turnover reaches into it, one after it whose lead-in does), and
 * `nights`: every night of them a new stay may not use ({@link takenNights}, unmerged, not clipped).
 * `exceptImport`: leave out the blocks that came from that calendar import (only the per-channel export feed does,
 * so a channel never re-imports its own events; every booking rule counts them). `exported`: the export feeds' nights.
 */
export async function nightsTaken(
  executor: Executor,
  listingId: string,
  from: string,
  to: string,
  now: Date,
  options: { turnoverDays: number; exceptImport?: string; exported?: boolean },
): Promise<{ stays: HoldingStay[]; blocks: TakenBlock[]; nights: Range[] }> {
  const { turnoverDays, exceptImport } = options;
  const [start, end] = turnoverDays > 0 ? [addDays(from, -turnoverDays), addDays(to, turnoverDays)] : [from, to];
  const query = blocksWithin(executor, listingId, start, end);
  const stays = await staysHolding(executor, listingId, start, end, now);
  const blocks = await (exceptImport === undefined
    ? query
    : query.where((eb) => eb.or([eb('import_id', 'is', null), eb('import_id', '!=', exceptImport)]))
  )
    .unionAll(closedWithin(executor, listingId, start, end))
    .execute();
  return { stays, blocks, nights: takenNights({ stays, blocks }, turnoverDays, { exported: options.exported }) };
}

/**
 * The nights of a home a date's own rule closes (issue 37, lib/stay/rates.ts) within [from, to), each as a block of one
 * night (never an import's: no turnover follows it). A closed night is taken for every new stay, and shown blocked by
 * availability and the iCalendar feeds; it holds no booking, so a stay already there is kept (a warning when set).
 */
export function closedWithin(
  executor: Executor,
  listingId: string | RawBuilder<string>,
  from: string | RawBuilder<string>,
  to: string | RawBuilder<string>,
) {
  return executor
    .selectFrom('holiday_home_rates')
    .select([sql<string>`night`.as('start'), sql<string>`(night + 1)`.as('end'), sql<boolean>`false`.as('imported')])
    .where('listing_id', '=', listingId)
    .where('closed', '=', true)
    .where('night', '<', to)
    .where('night', '>=', from);
}

/**
 * The blocks of a home (staff, maintenance, imported) that touch [from, to); the values may be SQL (`l.id`, slots).
 * `imported`: a channel's stay (followed by turnover).
 */
export function blocksWithin(
  executor: Executor,
  listingId: string | RawBuilder<string>,
  from: string | RawBuilder<string>,
  to: string | RawBuilder<string>,
) {
  return executor
    .selectFrom('calendar_blocks')
    .select(['starts_on as start', 'ends_on as end', sql<boolean>`import_id is not null`.as('imported')])
    .where('listing_id', '=', listingId)
    .where('starts_on', '<', to)
    .where('ends_on', '>', from);
}

/**
 * The stays of a home that hold nights of [from, to): held until the hold lapses, confirmed until the payment
 * window closes, paid. `lapses_at`: when a held or confirmed stay lets its nights go (null for a paid one).
 */
export function staysHolding(executor: Executor, listingId: string, from: string, to: string, now: Date): Promise<HoldingStay[]> {
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

/**
 * The CTE `<name>` of a calendar write's statement: the home's terms row locked (FOR NO KEY UPDATE, the bare row, as
 * {@link lockHomeCalendar} locks it), with its `calendar_version`, `rules_version` and terms as the row is when locked:
 * its latest committed version even after waiting for the lock (the statement's snapshot is not). The statement's
 * first write reads it in its guard (`exists (select from <name>)`, or a version compared with the one read before), a
 * condition on no row that is evaluated before the write locks any row: the terms row is locked first, as by every
 * calendar write. `listingId`: a value, or SQL (a parenthesised subquery of an earlier CTE).
 */
export function lockedTermsCte(name: string, listingId: string | RawBuilder<string>): RawBuilder<unknown> {
  return sql`${sql.raw(name)} as (
    select * from holiday_home_terms where listing_id = ${listingId}::uuid for no key update
  )`;
}

/** Sorted, merged and clipped to [from, to). */
export function mergeRanges(ranges: readonly Range[], from: string, to: string): Range[] {
  const sorted = ranges
    .map((r) => ({ start: r.start < from ? from : r.start, end: r.end > to ? to : r.end }))
    .filter((r) => r.start < r.end)
    .sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const merged: Range[] = [];
  for (const range of sorted) {
    const last = merged[merged.length - 1];
    if (last && range.start <= last.end) {
      if (range.end > last.end) last.end = range.end;
    } else {
      merged.push({ ...range });
    }
  }
  return merged;
}
