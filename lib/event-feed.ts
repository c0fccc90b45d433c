import { sql } from 'kysely';
import type { Db } from './db/index';
import { iso } from './dates';
import { ApiError } from './errors';
import { decodeCursor, encodeCursor, pageOf, paginate } from './pagination';

/**
 * A company's events through the API (issue 38; docs/api-reference.md, "Events through the API"): the list, newest
 * first, and the feed `events listen` follows, in order of commit. Both answer each event as its deliveries carry it
 * (the envelope: id, type, created_at, caused_by, data), and only events of the last {@link eventWindowDays} days.
 */
export const eventWindowDays = 30;

type EventEnvelopeRow = { id: string; type: string; created_at: Date | string; caused_by: string; data: unknown };

/** The envelope a delivery's body carries (lib/webhooks/attempt.ts eventBody), as an object. */
export function envelopeOf(row: EventEnvelopeRow) {
  return {
    id: row.id,
    type: row.type,
    created_at: iso(row.created_at),
    caused_by: row.caused_by,
    data: row.data as Record<string, string | number | boolean | null>,
  };
}

const windowStart = (now: Date) => new Date(now.getTime() - eventWindowDays * 86_400_000);

const listSort = {
  name: 'events',
  columns: [
    { ref: 'created_at', direction: 'desc', type: 'timestamptz' },
    { ref: 'id', direction: 'desc', type: 'text' },
  ],
} as const;

export type EventListQuery = { page_size: number; cursor?: string; type?: string; since?: string; until?: string };

/** A page of the company's events of the window, newest first; `since` at or after, `until` before (instants). */
export async function eventList(db: Db, companyId: string, query: EventListQuery, now: Date) {
  const since = query.since === undefined ? windowStart(now) : new Date(Math.max(Date.parse(query.since), +windowStart(now)));
  const rows = await paginate(
    db
      .selectFrom('events')
      .select(['id', 'type', 'created_at', 'caused_by', 'data'])
      .where('company_id', '=', companyId)
      .where('created_at', '>=', since)
      .$if(query.until !== undefined, (qb) => qb.where('created_at', '<', new Date(query.until as string)))
      .$if(query.type !== undefined, (qb) => qb.where('type', '=', query.type as string)),
    listSort,
    query,
  ).execute();
  const page = pageOf(rows, listSort, query.page_size);
  return { results: page.rows.map(envelopeOf), next_cursor: page.next_cursor };
}

/** The feed's place: after the event of transaction `txid` at `position` (both as decimal text). */
const feedSort = {
  name: 'event-feed',
  columns: [
    { ref: 'txid', direction: 'asc', type: 'bigint' },
    { ref: 'position', direction: 'asc', type: 'bigint' },
  ],
} as const;

export type EventFeedQuery = { page_size: number; cursor?: string; after?: string };

type FeedRow = EventEnvelopeRow & { txid: string; position: string };

/**
 * The company's events in order of commit after a place: `cursor` (a previous answer's `next_cursor`), `after` (an
 * event's id, as a Last-Event-ID), or neither: from now on (no events, and the cursor of this moment). Only events
 * whose transaction is older than every transaction still running are handed out (migration 0056 explains why no
 * event committed later can then fall behind the cursor). One statement. `next_cursor` is never null: pass it again
 * to follow; a full page means more are ready at once.
 */
export async function eventFeed(db: Db, companyId: string, query: EventFeedQuery, now: Date) {
  if (query.cursor !== undefined && query.after !== undefined) {
    const message = 'Give `cursor` or `after`, not both.';
    throw new ApiError('invalid_request', message, { errors: [{ path: 'after', code: 'conflicting', message }] });
  }
  const bound = sql<string>`pg_snapshot_xmin(pg_current_snapshot())::text::bigint`;
  const [txid, position] = query.cursor !== undefined ? decodeCursor(feedSort, query.cursor) : [];
  const start =
    txid !== undefined
      ? sql`select ${txid}::bigint as txid, ${position}::bigint as position`
      : query.after !== undefined
        ? sql`select txid, position from events where company_id = ${companyId}::uuid and id = ${query.after}`
        : sql`select ${bound} as txid, 0::bigint as position`;
  const { rows } = await sql<FeedRow & { start_txid: string; start_position: string; event: boolean }>`
    with start as (${start}),
    feed as (
      select e.id, e.type, e.created_at, e.caused_by, e.data, e.txid, e.position
      from events e, start
      where e.company_id = ${companyId}::uuid and (e.txid, e.position) > (start.txid, start.position)
        and e.txid < ${bound} and e.created_at >= ${windowStart(now)}
      order by e.txid, e.position
      limit ${query.page_size}
    )
    select start.txid::text as start_txid, start.position::text as start_position, feed.id is not null as event,
      feed.id, feed.type, feed.created_at, feed.caused_by, feed.data, feed.txid::text as txid, feed.position::text as position
    from start left join feed on true
    order by feed.txid, feed.position
  `.execute(db);
  if (rows.length === 0) {
    const message = 'No event of this company has this id.';
    throw new ApiError('invalid_request', message, { errors: [{ path: 'after', code: 'unknown_event', message }] });
  }
  const events = rows.filter((row) => row.event);
  const last = events.at(-1);
  const place = last ? [last.txid, last.position] : [rows[0]!.start_txid, rows[0]!.start_position];
  return { results: events.map(envelopeOf), next_cursor: encodeCursor(feedSort, place) };
}
