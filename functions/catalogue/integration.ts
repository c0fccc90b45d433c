import { sql } from 'kysely';
import { auditCte } from '../../lib/audit';
import { stamp } from '../../lib/clock';
import { todayIn } from '../../lib/dates';
import type { Db, Trx } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { type CausedBy, eventCtes, newEventId } from '../../lib/events';
import { type External, linkCte } from '../../lib/external-ids';
import { listingMachine } from '../../lib/listings';
import { mediaBaseOf } from '../../lib/media';
import { parseExternal } from '../../lib/sync';
import { canMove, checkMove } from '../../lib/transitions';
import type { ImportListing } from '../../schema/catalogue/admin';
import type { ListingWrite, ListingWritten } from '../../schema/catalogue/integration';
import type { EventType } from '../../schema/platform/events';
import type { Company } from '../../schema/platform/db';
import { importCatalogue } from './content';
import { renderContext, renderListings } from './renders';

/**
 * The catalogue written by integrations (issue 38; docs/api-reference.md, "The catalogue written by integrations"): a
 * server key with `write:listings` creates or replaces a listing under its own id (`<source>:<id>`, table
 * external_ids, kind `listing`), through the import's own checks and writes (content.ts importCatalogue, one listing),
 * and publishes or withdraws it (lib/listings.ts `listingMachine`). Each write announces itself (`listing.created`,
 * `listing.updated`, `listing.published`, `listing.withdrawn`) with its audit row, in the write's transaction; the
 * listing's public forms are rendered in it too, and the catalogue version the triggers bump moves every kept page's
 * ETag at once.
 */

export type WriteOptions = { causedBy: CausedBy; now: Date; mediaBaseUrl: string };

/** The listing's state as a write compares it: its row without its clocks, and its photos without their ids. */
type State = {
  id: string;
  slug_en: string;
  slug_ar: string | null;
  status: ImportListing['status'];
  published_at: Date | string | null;
  state: string;
};

/** Locks the listing (a bare row, by id or English slug) and reads its state, photos included, in one statement. */
async function lockedState(trx: Trx, companyId: string, by: { id: string } | { slug: string }): Promise<State | undefined> {
  const where = 'id' in by ? sql`l.id = ${by.id}::uuid` : sql`l.slug_en = ${by.slug}`;
  const { rows } = await sql<State>`
    select l.id, l.slug_en, l.slug_ar, l.status, l.published_at,
      ((to_jsonb(l) - 'updated_at' - 'search_tie' - 'search_text')
        || jsonb_build_object('photos', coalesce((select jsonb_agg(to_jsonb(p) - 'id' order by p.position)
          from listing_photos p where p.listing_id = l.id), '[]'::jsonb)))::text as state
    from listings l where ${where} and l.company_id = ${companyId}::uuid
    for update`.execute(trx);
  return rows[0];
}

/**
 * A photo's storage key from its URL: the address of its original in the company's media store,
 * `<media base>/<company id>/<key>` (lib/media.ts). Any other address is 400 at its field: the API stores no image.
 */
export function photoKeyOf(media: string, companyId: string, url: string, path: string): string {
  const prefix = `${media}/${companyId}/`;
  const key = url.startsWith(prefix) ? decodeURIComponent(url.slice(prefix.length).split(/[?#]/)[0] ?? '') : '';
  if (/^[A-Za-z0-9._\-/]{1,300}$/.test(key) && !key.startsWith('/') && !key.includes('..')) return key;
  const message = `A photo is given by its address in the company's media store, ${prefix}<key> (letters, digits, ".", "_", "-" and "/").`;
  throw new ApiError('invalid_request', message, { errors: [{ path, code: 'not_in_media_store', message }] });
}

/**
 * The listing holding the integration's id, and whether another listing of the company holds one of the body's slugs
 * (English or Arabic, in either column), in one read: that slug is 409 at `slug.en` or `slug.ar`.
 */
async function holderAndSlugs(trx: Trx, companyId: string, external: External, slug: ListingWrite['slug']) {
  const slugs = slug.ar === undefined ? [slug.en] : [slug.en, slug.ar];
  const { rows } = await sql<{ holder: string | null; taken: { slug_en: string; slug_ar: string | null } | null }>`
    with holder as (
      select e.record_id from external_ids e where e.company_id = ${companyId}::uuid and e.record_type = 'listing'
        and e.source = ${external.source} and e.external_id = ${external.id}
    )
    select (select record_id from holder) as holder,
      (select jsonb_build_object('slug_en', o.slug_en, 'slug_ar', o.slug_ar) from listings o
        where o.company_id = ${companyId}::uuid and (o.slug_en = any (${slugs}::text[]) or o.slug_ar = any (${slugs}::text[]))
          and o.id::text is distinct from (select record_id from holder)
        limit 1) as taken`.execute(trx);
  const { holder = null, taken = null } = rows[0] ?? {};
  if (taken) {
    const field = taken.slug_en === slug.en || taken.slug_ar === slug.en ? 'slug.en' : 'slug.ar';
    const message = 'Another listing of the company has this slug.';
    throw new ApiError('conflict', `${message} Choose another one.`, { errors: [{ path: field, code: 'slug_taken', message }] });
  }
  return holder ?? undefined;
}

/**
 * The event and the audit row of a write to the listing `listingId`, and for a new listing the link of the integration's
 * id to it (lib/external-ids.ts `linkCte`), in one statement.
 */
async function announce(
  trx: Trx,
  company: Company,
  event: { type: EventType; causedBy: CausedBy },
  listingId: string,
  external: External,
  link: boolean,
) {
  const reference = externalText(external);
  const linked = link ? linkCte('linked', company.id, 'listing', { kind: 'link', external }, 'happened') : undefined;
  await sql`with happened as (select ${listingId}::uuid as id, ${listingId}::text as listing_id, ${company.id}::uuid as company_id),
    ${linked ? sql`${linked},` : sql``}
    ${eventCtes('written', newEventId(), { companyId: company.id, ...event }, 'happened', sql`jsonb_build_object('listing_id', happened.listing_id, 'external_reference', ${reference}::text)`)},
    ${auditCte('audited', 'happened', { actor: event.causedBy, action: event.type, subject: 'listing_id', details: { external_reference: reference } })}
    select 1`.execute(trx);
}

/** The write's warnings: what the import accepts but the integration should know. */
function warningsOf(input: ListingWrite, today: string) {
  const warnings: Array<{ code: string; message: string }> = [];
  if (input.permit && input.permit.expires_on < today) {
    warnings.push({
      code: 'permit_expired',
      message: `The permit's last day (${input.permit.expires_on}) has passed: it is stored as expired and the listing leaves the portal feeds that need one.`,
    });
  }
  if (input.photos.length === 0) {
    warnings.push({ code: 'no_photos', message: 'The listing has no photo: its pages and feeds show none.' });
  }
  return warnings;
}

const externalText = (external: External) => `${external.source}:${external.id}`;

/**
 * Creates (a draft) or replaces the listing the integration keeps under `externalId`: the import's checks at the
 * body's fields, its write (content.ts), the link to the integration's id, and `listing.created` or, when something
 * changed, `listing.updated`. A repeat of the same body changes nothing and announces nothing. Its status stays
 * (publish and withdraw are actions); its slug may change (the old one is then free). In the caller's transaction (the
 * route's, run again once when a concurrent first write took the id or a slug: lib/external-ids.ts
 * `transactionRetryingConflict`; or a test event's, functions/triggers-billing.ts).
 */
export async function writeListing(
  trx: Trx,
  company: Company,
  externalId: string,
  input: ListingWrite,
  options: WriteOptions,
): Promise<ListingWritten> {
  const external = parseExternal(externalId);
  const media = mediaBaseOf(company, options.mediaBaseUrl);
  const photos = input.photos.map((photo, i) => ({
    key: photoKeyOf(media, company.id, photo.url, `photos.${i}.url`),
    alt: photo.alt,
    ready: true,
  }));
  const render = await renderContext(company, options.mediaBaseUrl);
  const holder = await holderAndSlugs(trx, company.id, external, input.slug);
  const before = holder === undefined ? undefined : await lockedState(trx, company.id, { id: holder });
  if (holder !== undefined && before === undefined) throw notFound(`The listing ${externalText(external)}`);
  if (before && before.slug_en !== input.slug.en) {
    await trx.updateTable('listings').set({ slug_en: input.slug.en, updated_at: stamp }).where('id', '=', before.id).execute();
  }
  const publishedAt = input.published_at ?? (before?.published_at ? new Date(before.published_at).toISOString() : null);
  const listing: ImportListing = { ...input, photos, status: before?.status ?? 'draft', published_at: publishedAt };
  const doc = { areas: [], property_types: [], services: [], team: [], listings: [listing] };
  await importCatalogue(trx, company, doc, { render, now: options.now, listingPath: () => '' });
  const after = await lockedState(trx, company.id, { slug: input.slug.en });
  if (!after) throw notFound(`The listing ${externalText(external)}`);
  const created = before === undefined;
  const changed = created || before.state !== after.state;
  if (changed) {
    const type = created ? 'listing.created' : 'listing.updated';
    await announce(trx, company, { type, causedBy: options.causedBy }, after.id, external, created);
  }
  const warnings = warningsOf(input, todayIn(company.time_zone, options.now));
  return answer(after, external, { created, changed, warnings });
}

function answer(
  row: Pick<State, 'id' | 'slug_en' | 'slug_ar' | 'status'>,
  external: External,
  outcome: Pick<ListingWritten, 'created' | 'changed' | 'warnings'>,
): ListingWritten {
  return {
    listing_id: row.id,
    external_id: externalText(external),
    external,
    slug: { en: row.slug_en, ar: row.slug_ar },
    status: row.status,
    ...outcome,
  };
}

const listingStatuses = ['draft', 'published', 'withdrawn'] as const;
type ListingStatus = (typeof listingStatuses)[number];

/**
 * Publishes or withdraws the integration's listing (`listingMachine`: the update is guarded by the statuses the machine
 * lets move to `to`): the listing found by the integration's id, its status changed (the first publication date kept),
 * the event and audit row, in one statement; then its forms rendered (a read, a store), as the admin's publishing does
 * (listing-changes.ts). The listing already there answers `changed: false` and announces nothing (an integration may
 * retry); a move the machine refuses is 409 at `status`; an id the company has no listing under is 404.
 */
export async function moveListing(
  db: Db,
  company: Company,
  externalId: string,
  to: 'published' | 'withdrawn',
  options: WriteOptions,
): Promise<ListingWritten> {
  const external = parseExternal(externalId);
  const reference = externalText(external);
  const from = listingStatuses.filter((status) => canMove(listingMachine, status, to));
  const type = to === 'published' ? 'listing.published' : 'listing.withdrawn';
  const { rows } = await sql<{ id: string; slug_en: string; slug_ar: string | null; status: ListingStatus; moved: boolean }>`
    with target as (
      select l.id, l.company_id, l.slug_en, l.slug_ar, l.status from listings l
      where l.company_id = ${company.id}::uuid and l.id::text = (select e.record_id from external_ids e
        where e.company_id = ${company.id}::uuid and e.record_type = 'listing' and e.source = ${external.source}
          and e.external_id = ${external.id})
    ),
    happened as (
      update listings l set status = ${to}, updated_at = ${stamp},
        published_at = ${to === 'published' ? sql`coalesce(l.published_at, ${options.now}::timestamptz)` : sql`l.published_at`}
      from target where l.id = target.id and l.status = any (${from}::text[])
      returning l.id::text as listing_id, l.company_id, target.status as was
    ),
    ${eventCtes('moved', newEventId(), { companyId: company.id, type, causedBy: options.causedBy }, 'happened', sql`jsonb_build_object('listing_id', happened.listing_id, 'external_reference', ${reference}::text)`)},
    ${auditCte('audited', 'happened', { actor: options.causedBy, action: type, subject: 'listing_id', details: { external_reference: reference }, columns: ['was'] })}
    select target.id::text as id, target.slug_en, target.slug_ar, target.status,
      exists (select from happened) as moved
    from target`.execute(db);
  const row = rows[0];
  if (!row) throw notFound(`The listing ${reference}`);
  const outcome = { created: false, changed: row.moved, warnings: [] };
  if (!row.moved) {
    if (row.status !== to) checkMove(listingMachine, reference, row.status, to, 'status');
    return answer(row, external, outcome);
  }
  await renderListings(db, await renderContext(company, options.mediaBaseUrl), [row.id]);
  return answer({ ...row, status: to }, external, outcome);
}
