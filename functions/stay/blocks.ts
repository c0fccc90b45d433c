import { sql } from 'kysely';
import { lockedTermsCte, staysHoldingQuery } from '../../lib/calendar';
import type { Db, Executor } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { writeLockedWhenStale } from '../../lib/locked-write';
import { type Stale, stale } from '../../lib/write';
import type { BlockValue } from '../../schema/stay/bookings';
import { holidayHomeId, holidayHomeNotFound, holidayHomeQuery, lockHomeBySlug } from './homes';

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

/** A block as staff's writes answer it (a staff block has no channel). */
export type StaffBlock = {
  id: string;
  reason: BlockValue['reason'];
  channel: null;
  starts_on: string;
  ends_on: string;
  note: string;
};

/**
 * Blocks [starts_on, ends_on) of a home in two round trips: the home read with its `calendar_version` and the stays
 * that hold some of the nights by the one calendar rule (lib/calendar.ts) — 409 `conflict` naming them —, then one
 * statement that locks the home's terms row first and adds the block if the calendar is still as read (every booking,
 * release and block since moved its version: a booking request and a block never both take a night). When it moved,
 * the block is read and written again, then with the home's terms row locked first (lib/locked-write.ts).
 */
export function blockNights(db: Db, companyId: string, slug: string, input: BlockValue, now: Date): Promise<StaffBlock> {
  return writeLockedWhenStale(
    { db },
    (trx) => lockHomeBySlug(trx, companyId, slug),
    async (attempt): Promise<StaffBlock | Stale> => {
      const holding = staysHoldingQuery(attempt.db, sql<string>`l.id`, input.starts_on, input.ends_on, now);
      const home = await holidayHomeQuery(attempt.db, companyId, slug)
        .select([
          'l.id',
          sql<string | null>`(select calendar_version::text from holiday_home_terms t where t.listing_id = l.id)`.as(
            'calendar_version',
          ),
          sql<string[]>`coalesce((select json_agg(s.reference order by s.start) from (${holding}) as s), '[]')`.as('holding'),
        ])
        .executeTakeFirst();
      if (!home) throw holidayHomeNotFound(slug);
      if (home.holding.length > 0) {
        throw new ApiError('conflict', `Bookings hold some of these nights: ${home.holding.join(', ')}.`);
      }
      const { rows } = await sql<Omit<StaffBlock, 'channel'>>`
        with ${lockedTermsCte('terms', home.id)},
        added as (
          insert into calendar_blocks (company_id, listing_id, reason, starts_on, ends_on, note)
          select ${companyId}::uuid, ${home.id}::uuid, ${input.reason}, ${input.starts_on}::date, ${input.ends_on}::date,
            ${input.note}
          where (select calendar_version from terms) is not distinct from ${home.calendar_version}::bigint
          returning ${sql.join(blockColumns.map((column) => sql.ref(column)))}
        )
        select * from added`.execute(attempt.db);
      const block = rows[0];
      return block ? { ...block, channel: null } : stale;
    },
  );
}

/**
 * Removes a block of a home (404 when the home has none by that id) in one statement: the home's terms row locked first
 * (as every calendar write), then the block deleted.
 */
export async function unblock(db: Db, companyId: string, slug: string, blockId: string): Promise<void> {
  const home = holidayHomeQuery(db, companyId, slug).select('l.id');
  const { rows } = await sql<{ home: string | null; removed: number }>`
    with home as (${home}),
    ${lockedTermsCte('terms', sql<string>`(select id from home)`)},
    removed as (
      delete from calendar_blocks
      where (select count(*) from terms) >= 0
        and id = ${blockId}::uuid and company_id = ${companyId}::uuid and listing_id = (select id from home)
      returning id
    )
    select (select id from home) as home, (select count(*) from removed)::int as removed`.execute(db);
  const [answer] = rows;
  if (!answer?.home) throw holidayHomeNotFound(slug);
  if (answer.removed === 0) throw notFound(`The block ${blockId}`);
}
