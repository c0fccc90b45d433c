import { sql } from 'kysely';
import { type Keyring, openSecret } from '../../lib/crypto-jwe';
import type { Executor } from '../../lib/db/index';
import type { Services } from '../../lib/env';
import { notFound } from '../../lib/errors';
import { type LoadedFeed, loadFeed } from './calendar-feeds';
import { backoffMinutes, markFailed, recordLoaded, type SyncOutcome, type SyncTarget } from './calendar-sync-record';
import type { ShownImport } from './calendar-imports';

/**
 * The sync engine of calendar imports (issue 24; split from the admin resource, issue 33). A sync loads the feed once
 * (calendar-feeds.ts: fetched, then read within its bounds, off the request's thread on Node) and has
 * calendar-sync-record.ts record what it answers: the feed's whole state in one statement (the home's terms row locked
 * first, lib/calendar.ts `lockedTermsCte`, as every calendar writer does), moving or removing exactly the import's own
 * blocks, keyed by (import, UID); the unique index makes a second concurrent sync of the same feed write nothing. A
 * failed fetch, a body that does not parse or a feed over a bound (lib/ical-read.ts) keeps the last good blocks and is
 * recorded (`last_error`, `failures` + 1, the next scheduled sync backed off: {@link backoffMinutes}); a valid, empty
 * calendar removes them. `calendar_import.failed` is announced once after `failuresAnnounced` failures in a row, until
 * a sync succeeds; `calendar.conflict` once per imported block written over a stay that holds nights (both stay: staff
 * decide). An import removed while its sync runs: the sync writes nothing and answers `gone` (the admin API 404).
 */

const syncTargets = (executor: Executor) =>
  executor
    .selectFrom('calendar_imports as i')
    .innerJoin('companies as c', 'c.id', 'i.company_id')
    .selectAll('i')
    .select(['c.time_zone', 'c.environment']);

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
    if (loaded.kind !== 'failed') return await recordLoaded(services.db, target, loaded, now, scheduled);
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
