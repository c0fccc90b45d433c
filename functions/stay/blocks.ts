import { sql } from 'kysely';
import { lockedTermsCte, staysHoldingQuery, turnoverAfter } from '../../lib/calendar';
import type { Db, Executor } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { writeLockedWhenStale } from '../../lib/locked-write';
import { type Stale, stale } from '../../lib/write';
import type { BlockValue } from '../../schema/stay/bookings';
import { holidayHomeNotFound, holidayHomeQuery, lockHomeBySlug } from './homes';

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

/** A block as staff's writes answer it (a staff block has no channel). */
export type StaffBlock = {
  id: string;
  reason: BlockValue['reason'];
  channel: null;
  starts_on: string;
  ends_on: string;
  note: string;
  follows: null;
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
      const { rows } = await sql<Omit<StaffBlock, 'channel' | 'follows'>>`
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
      return block ? { ...block, channel: null, follows: null } : stale;
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
