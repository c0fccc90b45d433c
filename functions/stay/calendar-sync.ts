import { sql } from 'kysely';
import { type Keyring, openSecret } from '../../lib/crypto-jwe';
import type { Db, Executor } from '../../lib/db/index';
import type { Services } from '../../lib/env';
import { lockedTermsCte } from '../../lib/calendar';
import { stamp } from '../../lib/clock';
import { notFound } from '../../lib/errors';
import { eventCtes, eventsCtes, newEventId } from '../../lib/events';
import type { FeedEvent } from '../../lib/ical-read';
import type { Environment } from '../../lib/outbound/guard';
import type { CalendarImportRow } from '../../schema/stay/db';
import { type FeedValidators, type LoadedFeed, loadFeed } from './calendar-feeds';
import type { ShownImport } from './calendar-imports';

/**
 * The sync engine of calendar imports (issue 24; split from the admin resource, issue 33). A sync loads the feed once
 * (calendar-feeds.ts: fetched, then read within its bounds, off the request's thread on Node) and writes what it
 * answers: the feed's whole state in one statement (the home's terms row locked first, lib/calendar.ts
 * `lockedTermsCte`, as every calendar writer does), moving or removing exactly the import's own blocks, keyed by
 * (import, UID); the unique index makes a second concurrent sync of the same feed write nothing. A failed fetch, a body
 * that does not parse or a feed over a bound (lib/ical-read.ts) keeps the last good blocks and is recorded
 * (`last_error`, `failures` + 1, the next scheduled sync backed off: {@link backoffMinutes}); a valid, empty calendar
 * removes them. `calendar_import.failed` is announced once after {@link failuresAnnounced} failures in a row, until a
 * sync succeeds; `calendar.conflict` once per imported block written over a stay that holds nights (both stay: staff
 * decide). An import removed while its sync runs: the sync writes nothing and answers `gone` (the admin API 404).
 */

export const failuresAnnounced = 3;

/**
 * Minutes until the next scheduled sync after `failures` failures in a row (SQL): the interval doubled for each
 * failure after the first, at most a day (1440 minutes); the interval itself when it is longer.
 */
const backoffMinutes = (failures: ReturnType<typeof sql>) =>
  sql`greatest(interval_minutes, least(1440, interval_minutes * power(2, least(greatest(${failures} - 1, 0), 16))))`;

/** What a sync needs of an import: the row, its company's zone and workspace kind. */
type SyncTarget = CalendarImportRow & { time_zone: string; environment: Environment };

const syncTargets = (executor: Executor) =>
  executor
    .selectFrom('calendar_imports as i')
    .innerJoin('companies as c', 'c.id', 'i.company_id')
    .selectAll('i')
    .select(['c.time_zone', 'c.environment']);

/** What a sync did: synced, unchanged (304), failed (recorded), or nothing because the import is gone. */
export type SyncOutcome =
  | { outcome: 'synced'; removed: number; written: number; conflicts: number; row: CalendarImportRow }
  | { outcome: 'unchanged'; row: CalendarImportRow }
  | { outcome: 'failed'; error: string; row: CalendarImportRow }
  | { outcome: 'gone' };

/**
 * Syncs one import now: the feed loaded (calendar-feeds.ts) and its state written, or the failure recorded. Answers
 * what happened. Never throws for the feed's faults. `scheduled`: a good sync sets the next one an interval on (the
 * claim had set it as after a failure); a sync by hand leaves the schedule as it is.
 */
export async function syncImport(
  services: Services,
  keyring: Keyring | undefined,
  target: SyncTarget,
  now: Date,
  scheduled = false,
): Promise<SyncOutcome> {
  let loaded: LoadedFeed;
  try {
    const url = await openSecret(keyring, target.url_jwe, target.id);
    const validators = { etag: target.etag, last_modified: target.last_modified };
    loaded = await loadFeed(services, { url, environment: target.environment, time_zone: target.time_zone, validators }, now);
    if (loaded.kind === 'unchanged') return await markSynced(services.db, target, now, scheduled);
    if (loaded.kind === 'events') return await writeFeed(services.db, target, loaded.events, loaded.validators, now, scheduled);
  } catch (error) {
    // Whatever else goes wrong (a value the database refuses, the import removed under the write) is this import's
    // failure, recorded; only a database that cannot record it throws.
    loaded = { kind: 'failed', error: `sync_failed: The sync failed: ${(error as Error).message}` };
  }
  return markFailed(services.db, target, loaded.error, now);
}

/** Syncs an import of a home at once (the admin API's `…/sync`). */
export async function syncNow(
  services: Services,
  keyring: Keyring | undefined,
  companyId: string,
  slug: string,
  importId: string,
): Promise<ShownImport> {
  const target = await syncTargets(services.db)
    .innerJoin('listings as l', 'l.id', 'i.listing_id')
    .select('l.slug_en as listing_slug')
    .where('i.company_id', '=', companyId)
    .where('i.id', '=', importId)
    .where((eb) => eb.or([eb('l.slug_en', '=', slug), eb('l.slug_ar', '=', slug)]))
    .executeTakeFirst();
  if (!target) throw notFound(`The calendar import ${importId}`);
  const synced = await syncImport(services, keyring, target, services.now());
  // Removed while its sync ran (a DELETE in between): as unknown as before it.
  if (synced.outcome === 'gone') throw notFound(`The calendar import ${importId}`);
  return { ...synced.row, listing_slug: target.listing_slug };
}

/**
 * Scheduled work: claims the imports due at `now` and syncs them, at most `limit` per run (each one's sync on its own:
 * one import's failure is recorded on it and the others go on). Answers how many were synced (an import removed
 * meanwhile is not counted). Claiming moves each import's next sync on as if this sync will fail (its backoff after
 * one more failure), so concurrent runs take different ones, and a process stopped during a sync (kill -9) does not
 * take the same import again at its next start; the sync's end sets the real next time.
 */
export async function syncDueImports(services: Services, keyring: Keyring | undefined, now: Date, limit = 20): Promise<number> {
  const claimed = await sql<{ id: string }>`
    update calendar_imports set next_sync_at = ${now.toISOString()}::timestamptz
      + make_interval(mins => ${backoffMinutes(sql`failures + 1`)}::integer)
    where id in (
      select id from calendar_imports where next_sync_at <= ${now.toISOString()}::timestamptz
      order by next_sync_at limit ${limit} for update skip locked)
    returning id`.execute(services.db);
  if (claimed.rows.length === 0) return 0;
  const targets = await syncTargets(services.db)
    .where(
      'i.id',
      'in',
      claimed.rows.map((r) => r.id),
    )
    .execute();
  let synced = 0;
  for (const target of targets) {
    const done = await syncImport(services, keyring, target, now, true);
    if (done.outcome !== 'gone') synced++;
  }
  return synced;
}

/** A 304: the blocks stand; the import is healthy again (a scheduled sync: next due an interval on). */
async function markSynced(db: Db, target: SyncTarget, now: Date, scheduled: boolean): Promise<SyncOutcome> {
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
async function markFailed(db: Db, target: SyncTarget, error: string, now: Date): Promise<SyncOutcome> {
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
async function writeFeed(
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
