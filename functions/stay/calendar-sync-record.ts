import { sql } from 'kysely';
import type { Db } from '../../lib/db/index';
import { lockedTermsCte } from '../../lib/calendar';
import { stamp } from '../../lib/clock';
import { eventCtes, eventsCtes, newEventId } from '../../lib/events';
import type { FeedEvent } from '../../lib/ical-read';
import type { Environment } from '../../lib/outbound/guard';
import type { CalendarImportRow } from '../../schema/stay/db';
import type { FeedValidators, LoadedFeed } from './calendar-feeds';

/**
 * What a calendar sync records (calendar-sync.ts loads the feed, then calls one of these): the feed's whole state in one
 * statement ({@link writeFeed}), a 304 ({@link markSynced}) or a failure ({@link markFailed}), each with its events.
 */

export const failuresAnnounced = 3;

/**
 * Minutes until the next scheduled sync after `failures` failures in a row (SQL): the interval doubled for each
 * failure after the first, at most a day (1440 minutes); the interval itself when it is longer.
 */
export const backoffMinutes = (failures: ReturnType<typeof sql>) =>
  sql`greatest(interval_minutes, least(1440, interval_minutes * power(2, least(greatest(${failures} - 1, 0), 16))))`;

/** What a sync needs of an import: the row, its company's zone and workspace kind. */
export type SyncTarget = CalendarImportRow & { time_zone: string; environment: Environment };

/** What a sync did: synced, unchanged (304), failed (recorded), or nothing because the import is gone. */
export type SyncOutcome =
  | { outcome: 'synced'; removed: number; written: number; conflicts: number; row: CalendarImportRow }
  | { outcome: 'unchanged'; row: CalendarImportRow }
  | { outcome: 'failed'; error: string; row: CalendarImportRow }
  | { outcome: 'gone' };

/** A 304: the blocks stand; the import is healthy again (a scheduled sync: next due an interval on). */
export async function markSynced(db: Db, target: SyncTarget, now: Date, scheduled: boolean): Promise<SyncOutcome> {
  const row = await db
    .updateTable('calendar_imports')
    .set({
      last_synced_at: now,
      last_error: null,
      failures: 0,
      failure_announced: false,
      ...(scheduled
        ? { next_sync_at: sql<Date>`${now.toISOString()}::timestamptz + make_interval(mins => interval_minutes)` }
        : {}),
      updated_at: stamp,
    })
    .where('id', '=', target.id)
    .returningAll()
    .executeTakeFirst();
  return row ? { outcome: 'unchanged', row } : { outcome: 'gone' };
}

/**
 * A failure: the blocks stand (a scheduled sync's claim has already backed its next one off); `calendar_import.failed`
 * once the failures in a row reach the threshold, once.
 */
export async function markFailed(db: Db, target: SyncTarget, error: string, now: Date): Promise<SyncOutcome> {
  const result = await sql<CalendarImportRow>`
    with before as (
      select failures, failure_announced from calendar_imports where id = ${target.id}::uuid for update
    ),
    updated as (
      update calendar_imports i set failures = b.failures + 1, last_error = ${error}::text,
        last_error_at = ${now.toISOString()}::timestamptz,
        failure_announced = b.failure_announced or b.failures + 1 >= ${failuresAnnounced}::integer, updated_at = ${stamp}
      from before b where i.id = ${target.id}::uuid
      returning i.*
    ),
    announce as (
      select u.* from updated u, before b where not b.failure_announced and u.failures >= ${failuresAnnounced}::integer
    ),
    ${eventCtes(
      'failed',
      newEventId(),
      { companyId: target.company_id, type: 'calendar_import.failed', causedBy: 'system' },
      'announce',
      sql`(select jsonb_build_object('import_id', a.id, 'listing_id', a.listing_id) from announce a)`,
    )}
    select * from updated`.execute(db);
  const row = result.rows[0];
  return row ? { outcome: 'failed', error, row } : { outcome: 'gone' };
}

/**
 * The feed's state in one statement: the home's terms row locked (every calendar writer's turn), the import's blocks
 * whose UID left the feed removed, the others inserted or moved (unchanged ones untouched), `calendar.conflict` for
 * each written block over a stay that holds nights (lib/calendar.ts's rule), the import's health updated.
 */
export async function writeFeed(
  db: Db,
  target: SyncTarget,
  events: FeedEvent[],
  validators: FeedValidators,
  now: Date,
  scheduled: boolean,
): Promise<SyncOutcome> {
  const at = now.toISOString();
  const result = await sql<CalendarImportRow & { removed: number; written: number; conflicts: number }>`
    with ${lockedTermsCte('terms', target.listing_id)},
    imp as (
      select i.id, i.company_id, i.listing_id from calendar_imports i join terms t on t.listing_id = i.listing_id
      where i.id = ${target.id}::uuid
    ),
    incoming as (
      select * from jsonb_to_recordset(${JSON.stringify(events)}::jsonb) as e (uid text, starts_on date, ends_on date)
    ),
    removed as (
      delete from calendar_blocks b using imp
      where b.import_id = imp.id and not exists (select from incoming e where e.uid = b.uid)
      returning b.id
    ),
    written as (
      insert into calendar_blocks (company_id, listing_id, reason, starts_on, ends_on, note, import_id, uid)
      select imp.company_id, imp.listing_id, 'imported', e.starts_on, e.ends_on, '', imp.id, e.uid from incoming e, imp
      on conflict (import_id, uid) where import_id is not null do update
        set starts_on = excluded.starts_on, ends_on = excluded.ends_on
        where (calendar_blocks.starts_on, calendar_blocks.ends_on) is distinct from (excluded.starts_on, excluded.ends_on)
      returning id, uid, starts_on, ends_on
    ),
    clashes as (
      select bk.id as booking_id, bk.reference, w.id as block_id
      from written w join bookings bk on bk.listing_id = ${target.listing_id}::uuid
        and bk.check_in < w.ends_on and bk.check_out > w.starts_on
        and (bk.status = 'paid'
          or bk.status = 'held' and bk.hold_expires_at > ${at}::timestamptz
          or bk.status = 'confirmed' and bk.payment_due_at > ${at}::timestamptz)
    ),
    ${eventsCtes(
      'conflict',
      { companyId: target.company_id, type: 'calendar.conflict', causedBy: 'system' },
      sql`select 'evt_' || replace(gen_random_uuid()::text, '-', '') as id, jsonb_build_object('listing_id', ${target.listing_id}::text, 'import_id', ${target.id}::text,
          'booking_id', o.booking_id, 'reference', o.reference, 'block_id', o.block_id) as data
        from clashes o`,
    )},
    updated as (
      update calendar_imports set last_synced_at = ${at}::timestamptz,
        last_changed_at = case when exists (select from removed) or exists (select from written)
          then ${at}::timestamptz else last_changed_at end,
        last_error = null, failures = 0, failure_announced = false, event_count = ${events.length}::integer,
        etag = ${validators.etag}::text, last_modified = ${validators.last_modified}::text,
        next_sync_at = case when ${scheduled}::boolean then ${at}::timestamptz + make_interval(mins => interval_minutes)
          else next_sync_at end, updated_at = ${stamp}
      where id = (select id from imp)
      returning *
    )
    select u.*, (select count(*) from removed)::int as removed, (select count(*) from written)::int as written,
      (select count(*) from clashes)::int as conflicts from updated u`.execute(db);
  const first = result.rows[0];
  // No row: the import was removed while its feed was loaded.
  if (!first) return { outcome: 'gone' };
  const { removed, written, conflicts, ...row } = first;
  return { outcome: 'synced', removed, written, conflicts, row };
}

/**
 * Records what a sync loaded for an import, in `db` (the sync's; the test events' fixture gives a feed of its own, in
 * its transaction): the feed's state, a 304, or the failure.
 */
export function recordLoaded(
  db: Db,
  target: SyncTarget,
  loaded: LoadedFeed,
  now: Date,
  scheduled: boolean,
): Promise<SyncOutcome> {
  if (loaded.kind === 'unchanged') return markSynced(db, target, now, scheduled);
  if (loaded.kind === 'events') return writeFeed(db, target, loaded.events, loaded.validators, now, scheduled);
  return markFailed(db, target, loaded.error, now);
}
