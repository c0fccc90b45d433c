import { sql } from 'kysely';
import { auditCte } from '../../lib/audit';
import { stamp } from '../../lib/clock';
import { todayIn } from '../../lib/dates';
import type { Db, Trx } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { type CausedBy, eventCtes, newEventId } from '../../lib/events';
import { type External, recordIdByExternal, transactionRetryingConflict, writeLink } from '../../lib/external-ids';
import { listingMachine } from '../../lib/listings';
import { mediaBaseOf } from '../../lib/media';
import { parseExternal } from '../../lib/sync';
import { checkMove } from '../../lib/transitions';
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

/** Locks the listing (a bare row) and reads its state, photos included, in one statement. */
async function lockedState(trx: Trx, companyId: string, listingId: string): Promise<State | undefined> {
  const { rows } = await sql<State>`
    select l.id, l.slug_en, l.slug_ar, l.status, l.published_at,
      ((to_jsonb(l) - 'updated_at' - 'search_tie' - 'search_text')
        || jsonb_build_object('photos', coalesce((select jsonb_agg(to_jsonb(p) - 'id' order by p.position)
          from listing_photos p where p.listing_id = l.id), '[]'::jsonb)))::text as state
    from listings l where l.id = ${listingId}::uuid and l.company_id = ${companyId}::uuid
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

/** 409 at the slug when another listing of the company holds it (English or Arabic, in either column). */
async function checkSlugsFree(trx: Trx, companyId: string, slug: ListingWrite['slug'], own: string | undefined) {
  const slugs = slug.ar === undefined ? [slug.en] : [slug.en, slug.ar];
  const other = await trx
    .selectFrom('listings')
    .select(['slug_en', 'slug_ar'])
    .where('company_id', '=', companyId)
    .where((eb) => eb.or([eb('slug_en', 'in', slugs), eb('slug_ar', 'in', slugs)]))
    .$if(own !== undefined, (qb) => qb.where('id', '!=', own as string))
    .executeTakeFirst();
  if (!other) return;
  const field = other.slug_en === slug.en || other.slug_ar === slug.en ? 'slug.en' : 'slug.ar';
  const message = 'Another listing of the company has this slug.';
  throw new ApiError('conflict', `${message} Choose another one.`, { errors: [{ path: field, code: 'slug_taken', message }] });
}

/** The event and the audit row of a write to the listing `listingId`, in one statement. */
async function announce(trx: Trx, company: Company, type: EventType, listingId: string, external: string, causedBy: CausedBy) {
  await sql`with happened as (select ${listingId}::text as listing_id, ${company.id}::uuid as company_id),
    ${eventCtes('written', newEventId(), { companyId: company.id, type, causedBy }, 'happened', sql`jsonb_build_object('listing_id', happened.listing_id, 'external_reference', ${external}::text)`)},
    ${auditCte('audited', 'happened', { actor: causedBy, action: type, subject: 'listing_id', details: { external_reference: external } })}
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
 * (publish and withdraw are actions); its slug may change (the old one is then free).
 */
export async function writeListing(db: Db, company: Company, externalId: string, input: ListingWrite, options: WriteOptions) {
  const external = parseExternal(externalId);
  const media = mediaBaseOf(company, options.mediaBaseUrl);
  const photos = input.photos.map((photo, i) => ({
    key: photoKeyOf(media, company.id, photo.url, `photos.${i}.url`),
    alt: photo.alt,
    ready: true,
  }));
  const render = await renderContext(company, options.mediaBaseUrl);
  return transactionRetryingConflict(db, async (trx): Promise<ListingWritten> => {
    const holder = await recordIdByExternal(trx, company.id, 'listing', external);
    const before = holder === undefined ? undefined : await lockedState(trx, company.id, holder);
    if (holder !== undefined && before === undefined) throw notFound(`The listing ${externalText(external)}`);
    await checkSlugsFree(trx, company.id, input.slug, before?.id);
    if (before && before.slug_en !== input.slug.en) {
      await trx.updateTable('listings').set({ slug_en: input.slug.en, updated_at: stamp }).where('id', '=', before.id).execute();
    }
    const publishedAt = input.published_at ?? (before?.published_at ? new Date(before.published_at).toISOString() : null);
    const listing: ImportListing = { ...input, photos, status: before?.status ?? 'draft', published_at: publishedAt };
    const doc = { areas: [], property_types: [], services: [], team: [], listings: [listing] };
    await importCatalogue(trx, company, doc, { render, now: options.now, listingPath: () => '' });
    const written = await trx
      .selectFrom('listings')
      .select('id')
      .where('company_id', '=', company.id)
      .where('slug_en', '=', input.slug.en)
      .executeTakeFirstOrThrow();
    const after = await lockedState(trx, company.id, written.id);
    if (!after) throw notFound(`The listing ${externalText(external)}`);
    const created = before === undefined;
    if (created) await writeLink(trx, company.id, 'listing', after.id, { kind: 'link', external });
    const changed = created || before.state !== after.state;
    if (changed) {
      const type = created ? 'listing.created' : 'listing.updated';
      await announce(trx, company, type, after.id, externalText(external), options.causedBy);
    }
    const warnings = warningsOf(input, todayIn(company.time_zone, options.now));
    return answer(after, external, { created, changed, warnings });
  });
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

/**
 * Publishes or withdraws the integration's listing (`listingMachine`): its status, the first publication date kept,
 * the event and audit row in one statement, then its forms rendered, in one transaction. The listing already there
 * answers `changed: false` and announces nothing (an integration may retry); a move the machine refuses is 409.
 */
export async function moveListing(
  db: Db,
  company: Company,
  externalId: string,
  to: 'published' | 'withdrawn',
  options: WriteOptions,
): Promise<ListingWritten> {
  const external = parseExternal(externalId);
  const render = await renderContext(company, options.mediaBaseUrl);
  return db.transaction().execute(async (trx) => {
    const holder = await recordIdByExternal(trx, company.id, 'listing', external);
    const row = holder === undefined ? undefined : await lockedState(trx, company.id, holder);
    if (!row) throw notFound(`The listing ${externalText(external)}`);
    const outcome = { created: false, changed: false, warnings: [] };
    if (row.status === to) return answer(row, external, outcome);
    checkMove(listingMachine, externalText(external), row.status, to, 'status');
    const type = to === 'published' ? 'listing.published' : 'listing.withdrawn';
    await sql`with happened as (
        update listings l set status = ${to}, updated_at = ${stamp},
          published_at = ${to === 'published' ? sql`coalesce(l.published_at, ${options.now}::timestamptz)` : sql`l.published_at`}
        where l.id = ${row.id}::uuid
        returning l.id::text as listing_id, l.company_id
      ),
      ${eventCtes('moved', newEventId(), { companyId: company.id, type, causedBy: options.causedBy }, 'happened', sql`jsonb_build_object('listing_id', happened.listing_id, 'external_reference', ${externalText(external)}::text)`)},
      ${auditCte('audited', 'happened', { actor: options.causedBy, action: type, subject: 'listing_id', details: { external_reference: externalText(external), from: row.status } })}
      select 1`.execute(trx);
    await renderListings(trx, render, [row.id]);
    return answer({ ...row, status: to }, external, { ...outcome, changed: true });
  });
}
