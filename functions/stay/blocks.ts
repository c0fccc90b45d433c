import { lockHomeCalendar, staysHolding } from '../../lib/calendar';
import type { Db, Executor } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import type { BlockValue } from '../../schema/stay/bookings';
import { holidayHomeId } from './homes';

/**
 * Staff's blocks of a holiday home's calendar (owner or maintenance nights). A block is refused on nights a stay
 * holds by the one calendar rule (lib/calendar.ts): a lapsed hold or payment window holds nothing.
 */

const blockColumns = ['id', 'reason', 'starts_on', 'ends_on', 'note'] as const;

/** A home's blocks with their reasons (an imported block's channel), by first night. */
export async function homeBlocks(executor: Executor, companyId: string, slug: string) {
  const listingId = await holidayHomeId(executor, companyId, slug);
  return executor
    .selectFrom('calendar_blocks as b')
    .leftJoin('calendar_imports as i', 'i.id', 'b.import_id')
    .select(['b.id', 'b.reason', 'i.channel', 'b.starts_on', 'b.ends_on', 'b.note'])
    .where('b.listing_id', '=', listingId)
    .orderBy('b.starts_on')
    .execute();
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
    return { ...block, channel: null };
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
