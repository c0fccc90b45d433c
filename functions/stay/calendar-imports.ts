import { sql } from 'kysely';
import { type Keyring, openSecret, sealSecret } from '../../lib/crypto-jwe';
import type { Db, Executor } from '../../lib/db/index';
import type { Services } from '../../lib/env';
import { ApiError, notFound } from '../../lib/errors';
import { eventCtes, eventsCtes, newEventId } from '../../lib/events';
import { type Environment, urlProblem } from '../../lib/outbound/guard';
import type { CalendarImportChange, CalendarImportValue } from '../../schema/stay/calendar-imports';
import type { CalendarImportRow } from '../../schema/stay/db';
import { type FeedEvent, fetchFeed, readFeed } from './calendar-feeds';
import { holidayHomeId } from './homes';

/**
 * Calendars imported per holiday home (issue 24). Each event of a feed is a calendar block with reason `imported`,
 * keyed by (import, UID): a sync writes the feed's whole state in one statement (the home's terms row locked first,
 * as every calendar writer does: lib/calendar.ts), moving or removing exactly its own blocks; the unique index makes
 * a second concurrent sync of the same feed write nothing. A failed fetch or a body that does not parse keeps the
 * last good blocks; a valid, empty calendar removes them. `calendar_import.failed` is announced once after
 * {@link failuresAnnounced} failures in a row, until a sync succeeds; `calendar.conflict` once per imported block
 * written over a stay that holds nights (both stay: staff decide).
 */

export const failuresAnnounced = 3;

export type ShownImport = CalendarImportRow & { listing_slug: string };

const shownImports = (executor: Executor, companyId: string) =>
  executor
    .selectFrom('calendar_imports as i')
    .innerJoin('listings as l', 'l.id', 'i.listing_id')
    .selectAll('i')
    .select('l.slug_en as listing_slug')
    .where('i.company_id', '=', companyId);

/** A home's imports, oldest first. */
export async function homeImports(executor: Executor, companyId: string, slug: string): Promise<ShownImport[]> {
  const listingId = await holidayHomeId(executor, companyId, slug);
  return shownImports(executor, companyId).where('i.listing_id', '=', listingId).orderBy('i.created_at').execute();
}

/** One import of a home (404 when the home has none by that id). */
export async function findImport(executor: Executor, companyId: string, slug: string, importId: string): Promise<ShownImport> {
  const listingId = await holidayHomeId(executor, companyId, slug);
  const row = await shownImports(executor, companyId)
    .where('i.listing_id', '=', listingId)
    .where('i.id', '=', importId)
    .executeTakeFirst();
  if (!row) throw notFound(`The calendar import ${importId}`);
  return row;
}

/** 400 at `url` unless the company's workspace may fetch it (the outbound rules: lib/outbound/guard.ts). */
async function checkUrl(services: Services, environment: Environment, url: string): Promise<void> {
  const message = await urlProblem(url, environment, services.webhooks.resolveHost);
  if (message) {
    throw new ApiError('invalid_request', message, { errors: [{ path: 'url', code: 'url_refused', message }] });
  }
}

/** A company's holiday home by slug with the company's workspace kind, in one read (404 when none). */
async function homeOf(executor: Executor, companyId: string, slug: string) {
  const row = await executor
    .selectFrom('listings as l')
    .innerJoin('companies as c', 'c.id', 'l.company_id')
    .select(['l.id', 'l.slug_en', 'c.environment'])
    .where('l.company_id', '=', companyId)
    .where((eb) => eb.or([eb('l.slug_en', '=', slug), eb('l.slug_ar', '=', slug)]))
    .where('l.listing_type', '=', 'holiday_home')
    .executeTakeFirst();
  if (!row) throw notFound(`The holiday home "${slug}"`);
  return row;
}

/** Adds an import to a home: its URL checked and sealed (the import's id bound in), due at once. Two round trips. */
export async function addImport(
  services: Services,
  keyring: Keyring | undefined,
  companyId: string,
  slug: string,
  input: CalendarImportValue,
): Promise<ShownImport> {
  const { db } = services;
  const home = await homeOf(db, companyId, slug);
  await checkUrl(services, home.environment, input.url);
  const id = crypto.randomUUID();
  const row = await db
    .insertInto('calendar_imports')
    .values({
      id,
      company_id: companyId,
      listing_id: home.id,
      channel: input.channel,
      url_jwe: await sealSecret(keyring, input.url, id),
      interval_minutes: input.interval_minutes,
      next_sync_at: services.now(),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...row, listing_slug: home.slug_en };
}

/** Changes an import's URL, channel or interval; a new URL forgets the old one's validators. Two round trips. */
export async function changeImport(
  services: Services,
  keyring: Keyring | undefined,
  companyId: string,
  slug: string,
  importId: string,
  input: CalendarImportChange,
): Promise<ShownImport> {
  const { db } = services;
  const found = await syncTargets(db)
    .innerJoin('listings as l', 'l.id', 'i.listing_id')
    .select('l.slug_en as listing_slug')
    .where('i.company_id', '=', companyId)
    .where('i.id', '=', importId)
    .where((eb) => eb.or([eb('l.slug_en', '=', slug), eb('l.slug_ar', '=', slug)]))
    .executeTakeFirst();
  if (!found) throw notFound(`The calendar import ${importId}`);
  const set: Record<string, unknown> = { updated_at: sql`now()` };
  if (input.url !== undefined) {
    await checkUrl(services, found.environment, input.url);
    Object.assign(set, { url_jwe: await sealSecret(keyring, input.url, importId), etag: null, last_modified: null });
    set.next_sync_at = services.now();
  }
  if (input.channel !== undefined) set.channel = input.channel;
  if (input.interval_minutes !== undefined) set.interval_minutes = input.interval_minutes;
  const row = await db
    .updateTable('calendar_imports')
    .set(set)
    .where('id', '=', found.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...row, listing_slug: found.listing_slug };
}

/** Removes an import and its blocks (their foreign key cascades). */
export async function removeImport(db: Db, companyId: string, slug: string, importId: string): Promise<void> {
  const removed = await db
    .deleteFrom('calendar_imports')
    .where('id', '=', importId)
    .where('company_id', '=', companyId)
    .where('listing_id', 'in', (eb) =>
      eb
        .selectFrom('listings')
        .select('id')
        .where('company_id', '=', companyId)
        .where((w) => w.or([w('slug_en', '=', slug), w('slug_ar', '=', slug)])),
    )
    .executeTakeFirst();
  if (removed.numDeletedRows === 0n) throw notFound(`The calendar import ${importId}`);
}

/** What a sync needs of an import: the row, its company's zone and workspace kind. */
type SyncTarget = CalendarImportRow & { time_zone: string; environment: Environment };

const syncTargets = (executor: Executor) =>
  executor
    .selectFrom('calendar_imports as i')
    .innerJoin('companies as c', 'c.id', 'i.company_id')
    .selectAll('i')
    .select(['c.time_zone', 'c.environment']);

/**
 * Syncs one import now: the feed fetched (conditional GET), read, and its state written, or the failure recorded.
 * Answers what happened. Never throws for the feed's faults.
 */
export async function syncImport(services: Services, keyring: Keyring | undefined, target: SyncTarget, now: Date) {
  const url = await openSecret(keyring, target.url_jwe, target.id);
  const fetched = await fetchFeed(
    services.webhooks.fetch,
    url,
    target.environment,
    { etag: target.etag, last_modified: target.last_modified },
    services.webhooks.resolveHost,
  );
  if (fetched.kind === 'unchanged') return markSynced(services.db, target, now);
  if (fetched.kind === 'failed') return markFailed(services.db, target, fetched.error, now);
  let events: FeedEvent[];
  try {
    events = readFeed(fetched.text, target.time_zone, now);
  } catch (error) {
    return markFailed(services.db, target, `The feed is not a valid iCalendar: ${(error as Error).message}`, now);
  }
  return writeFeed(services.db, target, events, fetched.validators, now);
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
  const { row } = await syncImport(services, keyring, target, services.now());
  return { ...row, listing_slug: target.listing_slug };
}

/**
 * Scheduled work: claims the imports due at `now` (moving each one's next sync an interval on, so concurrent runs take
 * different ones) and syncs them, at most `limit` per run. Answers how many were synced.
 */
export async function syncDueImports(services: Services, keyring: Keyring | undefined, now: Date, limit = 20): Promise<number> {
  const claimed = await sql<{ id: string }>`
    update calendar_imports set next_sync_at = ${now.toISOString()}::timestamptz + make_interval(mins => interval_minutes)
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
  for (const target of targets) await syncImport(services, keyring, target, now);
  return targets.length;
}

/** A 304: the blocks stand; the import is healthy again. */
async function markSynced(db: Db, target: SyncTarget, now: Date) {
  const row = await db
    .updateTable('calendar_imports')
    .set({ last_synced_at: now, last_error: null, failures: 0, failure_announced: false, updated_at: sql`now()` })
    .where('id', '=', target.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return { outcome: 'unchanged' as const, row };
}

/** A failure: the blocks stand; `calendar_import.failed` once the failures in a row reach the threshold, once. */
async function markFailed(db: Db, target: SyncTarget, error: string, now: Date) {
  const result = await sql<CalendarImportRow>`
    with before as (
      select failures, failure_announced from calendar_imports where id = ${target.id}::uuid for update
    ),
    updated as (
      update calendar_imports i set failures = b.failures + 1, last_error = ${error}::text,
        last_error_at = ${now.toISOString()}::timestamptz,
        failure_announced = b.failure_announced or b.failures + 1 >= ${failuresAnnounced}::integer, updated_at = now()
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
  return { outcome: 'failed' as const, error, row: result.rows[0] as CalendarImportRow };
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
  validators: { etag: string | null; last_modified: string | null },
  now: Date,
) {
  const at = now.toISOString();
  const result = await sql<CalendarImportRow & { removed: number; written: number; conflicts: number }>`
    with terms as (
      select listing_id from holiday_home_terms where listing_id = ${target.listing_id}::uuid for no key update
    ),
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
        etag = ${validators.etag}::text, last_modified = ${validators.last_modified}::text, updated_at = now()
      where id = (select id from imp)
      returning *
    )
    select u.*, (select count(*) from removed)::int as removed, (select count(*) from written)::int as written,
      (select count(*) from clashes)::int as conflicts from updated u`.execute(db);
  const { removed, written, conflicts, ...row } = result.rows[0] as CalendarImportRow &
    Record<'removed' | 'written' | 'conflicts', number>;
  return { outcome: 'synced' as const, removed, written, conflicts, row };
}
