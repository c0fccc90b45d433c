import { sql } from 'kysely';
import { lockHomeCalendar, staysHolding, staysHoldingQuery, turnoverAfter } from '../../lib/calendar';
import type { Db, Executor } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import type { BlockValue } from '../../schema/stay/bookings';
import { holidayHomeId } from './homes';

/**
 * Staff's blocks of a holiday home's calendar (owner or maintenance nights). A block is refused on nights a stay
 * holds by the one calendar rule (lib/calendar.ts): a lapsed hold or payment window holds nothing.
 */

const blockColumns = ['id', 'reason', 'starts_on', 'ends_on', 'note'] as const;

type ShownBlock = {
  id: string | null;
  reason: 'owner' | 'maintenance' | 'imported' | 'turnover';
  channel: string | null;
  starts_on: string;
  ends_on: string;
  note: string;
  follows: string | null;
};

/**
 * A home's blocks with their reasons (an imported block's channel), by first night, and the turnover after each stay
 * by the one rule at `now` (lib/calendar.ts): after each booking that holds its nights and each imported block, the
 * home's `turnover_days` nights, reason `turnover`, no id (computed, not kept), `follows` the stay. Three reads.
 */
export async function homeBlocks(executor: Executor, companyId: string, slug: string, now: Date): Promise<ShownBlock[]> {
  const home = await executor
    .selectFrom('listings as l')
    .innerJoin('holiday_home_terms as t', 't.listing_id', 'l.id')
    .select(['l.id', 't.turnover_days'])
    .where('l.company_id', '=', companyId)
    .where((eb) => eb.or([eb('l.slug_en', '=', slug), eb('l.slug_ar', '=', slug)]))
    .where('l.listing_type', '=', 'holiday_home')
    .executeTakeFirst();
  if (!home) throw notFound(`The holiday home "${slug}"`);
  const rows = await executor
    .selectFrom('calendar_blocks as b')
    .leftJoin('calendar_imports as i', 'i.id', 'b.import_id')
    .select(['b.id', 'b.reason', 'i.channel', 'b.starts_on', 'b.ends_on', 'b.note'])
    .where('b.listing_id', '=', home.id)
    .orderBy('b.starts_on')
    .orderBy('b.ends_on')
    .execute();
  const blocks: ShownBlock[] = rows.map((row) => ({ ...row, follows: null }));
  if (home.turnover_days === 0) return blocks;
  const stays = await staysHoldingQuery(executor, home.id, sql<string>`'-infinity'::date`, sql<string>`'infinity'::date`, now)
    .orderBy('check_in')
    .execute();
  const turnover = (range: { start: string; end: string }, channel: string | null, follows: string): ShownBlock => ({
    id: null,
    reason: 'turnover',
    channel,
    starts_on: range.start,
    ends_on: range.end,
    note: '',
    follows,
  });
  const imported = blocks.filter((b) => b.reason === 'imported').map((b) => ({ ...b, start: b.starts_on, end: b.ends_on }));
  const shown = [
    ...blocks,
    ...turnoverAfter(stays, home.turnover_days).map((t) => turnover(t, null, t.after.reference)),
    ...turnoverAfter(imported, home.turnover_days).map((t) => turnover(t, t.after.channel, t.after.id as string)),
  ];
  // By first night; a block before the turnover that starts the same day (a stable sort keeps that order).
  return shown.sort((a, b) => (a.starts_on < b.starts_on ? -1 : a.starts_on > b.starts_on ? 1 : 0));
}

/**
 * Blocks [starts_on, ends_on) of a home: the home's terms row locked (bare; booking requests, job blocks and imports
 * take their turns), then 409 `conflict` naming the stays that hold some of the nights, else the block.
 */
export function blockNights(db: Db, companyId: string, slug: string, input: BlockValue, now: Date) {
  return db.transaction().execute(async (trx) => {
    const listingId = await holidayHomeId(trx, companyId, slug);
    await lockHomeCalendar(trx, listingId);
    const taken = await staysHolding(trx, listingId, input.starts_on, input.ends_on, now);
    if (taken.length > 0) {
      throw new ApiError('conflict', `Bookings hold some of these nights: ${taken.map((t) => t.reference).join(', ')}.`);
    }
    const block = await trx
      .insertInto('calendar_blocks')
      .values({ ...input, company_id: companyId, listing_id: listingId })
      .returning(blockColumns)
      .executeTakeFirstOrThrow();
    return { ...block, channel: null, follows: null };
  });
}

/** Removes a block of a home (404 when the home has none by that id). */
export async function unblock(db: Db, companyId: string, slug: string, blockId: string): Promise<void> {
  const removed = await db
    .deleteFrom('calendar_blocks')
    .where('id', '=', blockId)
    .where('company_id', '=', companyId)
    .where('listing_id', '=', await holidayHomeId(db, companyId, slug))
    .executeTakeFirst();
  if (removed.numDeletedRows === 0n) throw notFound(`The block ${blockId}`);
}
