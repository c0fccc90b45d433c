import { type Keyring, sealSecret } from '../../lib/crypto-jwe';
import type { Db, Executor } from '../../lib/db/index';
import type { Services } from '../../lib/env';
import { stamp } from '../../lib/clock';
import { ApiError, notFound } from '../../lib/errors';
import { type Environment, urlProblem } from '../../lib/outbound/guard';
import type { CalendarImportChange, CalendarImportValue } from '../../schema/stay/calendar-imports';
import type { CalendarImportRow } from '../../schema/stay/db';
import { holidayHomeId } from './homes';

/**
 * Calendars imported per holiday home (issue 24), the admin resource: a home's imports listed, added (the URL checked
 * by the outbound rules and sealed), changed and removed (their blocks cascade). Syncing them is calendar-sync.ts's.
 */

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
  const row = await insertImport(db, keyring, { companyId, listingId: home.id }, input, services.now());
  return { ...row, listing_slug: home.slug_en };
}

/** An import of a home written, its URL (checked by the caller) sealed with the import's id bound in, due at `now`. */
export async function insertImport(
  executor: Executor,
  keyring: Keyring | undefined,
  home: { companyId: string; listingId: string },
  input: CalendarImportValue,
  now: Date,
) {
  const id = crypto.randomUUID();
  return executor
    .insertInto('calendar_imports')
    .values({
      id,
      company_id: home.companyId,
      listing_id: home.listingId,
      channel: input.channel,
      url_jwe: await sealSecret(keyring, input.url, id),
      interval_minutes: input.interval_minutes,
      next_sync_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
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
  const found = await db
    .selectFrom('calendar_imports as i')
    .innerJoin('companies as c', 'c.id', 'i.company_id')
    .innerJoin('listings as l', 'l.id', 'i.listing_id')
    .select(['i.id', 'c.environment', 'l.slug_en as listing_slug'])
    .where('i.company_id', '=', companyId)
    .where('i.id', '=', importId)
    .where((eb) => eb.or([eb('l.slug_en', '=', slug), eb('l.slug_ar', '=', slug)]))
    .executeTakeFirst();
  if (!found) throw notFound(`The calendar import ${importId}`);
  const set: Record<string, unknown> = { updated_at: stamp };
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
