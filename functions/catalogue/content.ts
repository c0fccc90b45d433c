import { homeTermsIn, setHomesTerms } from '../../lib/homes';
import { fillSearchText, listingSearchText } from '../../lib/listing-search';
import { optionalAmountIn } from '../../lib/money';
import type { Trx } from '../../lib/db/index';
import { todayIn } from '../../lib/dates';
import { ApiError } from '../../lib/errors';
import type { CatalogueImport, ImportListing } from '../../schema/catalogue/admin';
import { portals } from '../../schema/common/permits';
import type { LocalisedText } from '../../schema/common/columns';
import type { Company } from '../../schema/platform/db';
import { type RenderContext, renderListings, renderStale } from './renders';
import { upsertServices } from './services';
import { importTeamProfiles } from './team';
import { stamp } from '../../lib/clock';

const json = (value: unknown) => JSON.stringify(value);

/** Listings per INSERT of an import: 500 rows of ~40 columns stay far below PostgreSQL's 65,535 parameters. */
export const importBatchSize = 500;
/** Photos per INSERT (5 columns each). */
const photoBatchSize = 5_000;

/** Where an import is: listings written so far of those in the document, after each batch. */
export type ImportProgress = { listings: { done: number; total: number }; batch: number; batches: number };

/**
 * Upserts a catalogue document in one transaction: areas (parents first), property types, services,
 * team profiles (by name) and listings (by English slug, photos replaced), the listings in batches of
 * {@link importBatchSize} rows per statement. All or nothing: the caller's transaction holds every batch.
 * A slug given twice keeps its last listing, as upserting them one after the other would.
 *
 * With a render context, each batch's listings are rendered (renders.ts) before its progress is reported, and at
 * the end every other listing of the company the import left stale (a place renamed, settings changed since),
 * all in the same transaction; with `null` (a seed that knows no deployment) the first reads render them. `now` is
 * the services' clock: a publication without a date, whether a permit has already ended (`updated_at` is the
 * database's clock, lib/clock.ts `stamp`).
 */
export async function importCatalogue(
  trx: Trx,
  company: Company,
  doc: CatalogueImport,
  options: {
    render: RenderContext | null;
    now: Date;
    onProgress?: (progress: ImportProgress) => void;
    /** Where a listing's fields are in the caller's body, for the problem's `errors[].path` (default `listings.<i>.`). */
    listingPath?: (index: number) => string;
  },
) {
  const { render, onProgress, now } = options;
  const pathOf = options.listingPath ?? ((index: number) => `listings.${index}.`);
  const companyId = company.id;
  const places: Places = new Map();
  const existing = await trx
    .selectFrom('areas')
    .select(['id', 'kind', 'slug_en', 'slug_ar', 'name'])
    .where('company_id', '=', companyId)
    .execute();
  for (const a of existing) places.set(a.slug_en, a);
  const parentKind = { city: null, area: 'city', project: 'area' } as const;
  const rank = { city: 0, area: 1, project: 2 } as const;
  const areas = [...doc.areas].sort((a, b) => rank[a.kind] - rank[b.kind]);
  // One statement per level (cities, then areas, then projects: a parent is written before its children), the last of
  // each slug of a level kept, as one upsert after the other would.
  for (const kind of ['city', 'area', 'project'] as const) {
    const level = lastOfEach(areas, (area) => `${area.kind} ${area.slug.en}`).filter(({ item }) => item.kind === kind);
    if (level.length === 0) continue;
    const values = level.map(({ item: area, index: position }) => {
      const parentId =
        area.parent === null ? null : placeOf(places, area.parent, parentKind[area.kind], `area "${area.slug.en}"`);
      if (parentId === null && area.kind !== 'city') {
        throw new ApiError('invalid_request', `The ${area.kind} "${area.slug.en}" needs a parent ${parentKind[area.kind]}.`);
      }
      return {
        company_id: companyId,
        kind: area.kind,
        parent_id: parentId,
        slug_en: area.slug.en,
        slug_ar: area.slug.ar ?? null,
        name: json(area.name),
        position,
      };
    });
    const rows = await trx
      .insertInto('areas')
      .values(values)
      .onConflict((oc) =>
        oc.columns(['company_id', 'slug_en']).doUpdateSet((eb) => ({
          kind: eb.ref('excluded.kind'),
          parent_id: eb.ref('excluded.parent_id'),
          slug_ar: eb.ref('excluded.slug_ar'),
          name: eb.ref('excluded.name'),
          position: eb.ref('excluded.position'),
        })),
      )
      .returning(['id', 'slug_en'])
      .execute();
    const written = new Map(values.map((v) => [v.slug_en, v]));
    for (const row of rows) {
      const value = written.get(row.slug_en);
      places.set(row.slug_en, {
        id: row.id,
        kind,
        slug_en: row.slug_en,
        slug_ar: value?.slug_ar ?? null,
        name: value?.name ?? null,
      });
    }
  }
  const types = lastOfEach(doc.property_types, (type) => type.value);
  if (types.length > 0) {
    await trx
      .insertInto('property_types')
      .values(
        types.map(({ item, index }) => ({ company_id: companyId, value: item.value, name: json(item.name), position: index })),
      )
      .onConflict((oc) =>
        oc
          .columns(['company_id', 'value'])
          .doUpdateSet((eb) => ({ name: eb.ref('excluded.name'), position: eb.ref('excluded.position') })),
      )
      .execute();
  }
  const services = lastOfEach(doc.services, (service) => service.key);
  if (services.length > 0)
    await upsertServices(
      trx,
      companyId,
      services.map(({ item, index }) => ({ ...item, position: index })),
    );
  await importTeamProfiles(
    trx,
    companyId,
    lastOfEach(doc.team, (profile) => profile.name).map(({ item }) => item),
  );
  const kept = lastOfEach(doc.listings, (listing) => listing.slug.en);
  const listings = kept.map(({ item, index }) => listingAmountsIn(item, company.currency, pathOf(index)));
  const paths = new Map(kept.map(({ item, index }) => [item.slug.en, pathOf(index)]));
  const context: ListingContext = {
    companyId,
    places,
    paths,
    agents: await agentsNamed(trx, companyId, listings, paths),
    now,
    today: todayIn(company.time_zone, now),
  };
  const batches = Math.ceil(listings.length / importBatchSize);
  for (let batch = 0; batch < batches; batch++) {
    const start = batch * importBatchSize;
    const batchOf = listings.slice(start, start + importBatchSize);
    const ids = await upsertListings(trx, batchOf, context);
    if (render)
      await renderListings(
        trx,
        render,
        ids.filter((_, i) => batchOf[i]!.status !== 'draft'),
      );
    const done = Math.min(listings.length, start + importBatchSize);
    onProgress?.({ listings: { done, total: listings.length }, batch: batch + 1, batches });
  }
  // The listings of a place renamed by this import that the document left out (migration 0050's trigger emptied their text).
  await fillSearchText(trx, companyId);
  if (render) await renderStale(trx, render);
  return {
    areas: doc.areas.length,
    property_types: doc.property_types.length,
    services: doc.services.length,
    team: doc.team.length,
    listings: doc.listings.length,
  };
}

type Places = Map<
  string,
  { id: string; kind: 'city' | 'area' | 'project'; slug_en: string; slug_ar: string | null; name: LocalisedText | string | null }
>;
/** What every listing row of an import is written with besides its own fields. */
type ListingContext = {
  companyId: string;
  places: Places;
  /** Each listing's place in the caller's body, by English slug (`listings.3.`). */
  paths: Map<string, string>;
  agents: Map<string, string>;
  now: Date;
  today: string;
};

/** The team profiles the listings name as their agents, by name; a name no profile has is refused (400 at its `agent`). */
async function agentsNamed(
  trx: Trx,
  companyId: string,
  listings: readonly ImportListing[],
  paths: Map<string, string>,
): Promise<Map<string, string>> {
  const names = [...new Set(listings.flatMap((l) => (l.agent === null ? [] : [l.agent])))];
  if (names.length === 0) return new Map();
  const rows = await trx
    .selectFrom('team_profiles')
    .select(['id', 'name'])
    .where('company_id', '=', companyId)
    .where('name', 'in', names)
    .orderBy('created_at')
    .execute();
  const agents = new Map<string, string>();
  for (const row of rows) if (!agents.has(row.name)) agents.set(row.name, row.id);
  const unknown = listings.find((l) => l.agent !== null && !agents.has(l.agent));
  if (unknown !== undefined) {
    const message = `A listing names an unknown agent "${unknown.agent}" (a team profile's name).`;
    const path = `${paths.get(unknown.slug.en) ?? ''}agent`;
    throw new ApiError('invalid_request', message, { errors: [{ path, code: 'unknown_reference', message }] });
  }
  return agents;
}

/**
 * A place by English slug, refused when unknown or of another kind (a city named as an area, …); `path`, when known,
 * is the field that named it (the problem's `errors[0].path`).
 */
function placeOf(places: Places, slug: string, kind: 'city' | 'area' | 'project' | null, owner: string, path?: string): string {
  const place = places.get(slug);
  const refuse = (message: string, code: string) =>
    new ApiError('invalid_request', message, path === undefined ? undefined : { errors: [{ path, code, message }] });
  if (!place) throw refuse(`The ${owner} names an unknown place "${slug}".`, 'unknown_reference');
  if (kind !== null && place.kind !== kind) {
    throw refuse(`The ${owner} names "${slug}" as its ${kind}, but it is a ${place.kind}.`, 'wrong_kind');
  }
  return place.id;
}

/**
 * A listing of the import with its amounts taken in through lib/money.ts: each kept to the company currency's digits;
 * one with more digits is 400 `currency_digits` at its field (`listings.3.price`), and nothing of the import is kept.
 */
function listingAmountsIn(l: ImportListing, currency: string, path: string): ImportListing {
  const amount = (value: string | null, field: string) => optionalAmountIn(value, currency, `${path}${field}`);
  return {
    ...l,
    price: amount(l.price, 'price'),
    service_charge: amount(l.service_charge, 'service_charge'),
    off_plan: l.off_plan && {
      ...l.off_plan,
      original_price: amount(l.off_plan.original_price, 'off_plan.original_price'),
      amount_paid: amount(l.off_plan.amount_paid, 'off_plan.amount_paid'),
    },
    booking: l.booking && homeTermsIn(l.booking, currency, `${path}booking.`),
  };
}

/** The last occurrence of each key, in the order of those last occurrences, with its index in the document. */
function lastOfEach<T>(items: readonly T[], key: (item: T) => string): Array<{ item: T; index: number }> {
  const last = new Map<string, number>();
  for (const [index, item] of items.entries()) last.set(key(item), index);
  return items.map((item, index) => ({ item, index })).filter(({ item, index }) => last.get(key(item)) === index);
}

/** One batch: every listing in one INSERT … ON CONFLICT, their photos replaced in two statements. */
async function upsertListings(trx: Trx, batch: ImportListing[], context: ListingContext) {
  const values = batch.map((l) => listingValues(l, context));
  const rows = await trx
    .insertInto('listings')
    .values(values)
    .onConflict((oc) =>
      oc.columns(['company_id', 'slug_en']).doUpdateSet(({ ref }) => {
        const { company_id: _c, slug_en: _s, ...rest } = values[0]!;
        return Object.fromEntries(Object.keys(rest).map((k) => [k, ref(`excluded.${k}` as 'excluded.title')]));
      }),
    )
    .returning(['id', 'slug_en'])
    .execute();
  const idOf = new Map(rows.map((r) => [r.slug_en, r.id]));
  const ids = batch.map((l) => idOf.get(l.slug.en)!);
  await trx.deleteFrom('listing_photos').where('listing_id', 'in', ids).execute();
  const photos = batch.flatMap((l, i) =>
    l.photos.map((p, position) => ({ listing_id: ids[i]!, position, storage_key: p.key, alt: json(p.alt), ready: p.ready })),
  );
  for (let at = 0; at < photos.length; at += photoBatchSize) {
    await trx
      .insertInto('listing_photos')
      .values(photos.slice(at, at + photoBatchSize))
      .execute();
  }
  const homes = batch.flatMap((l, i) => (l.booking ? [{ listingId: ids[i]!, terms: l.booking }] : []));
  await setHomesTerms(trx, homes);
  return ids;
}

function listingValues(l: ImportListing, { companyId, places, paths, agents, now, today }: ListingContext) {
  const place = (slug: string | null, kind: 'city' | 'area' | 'project') =>
    slug === null ? null : placeOf(places, slug, kind, `listing "${l.slug.en}"`, `${paths.get(l.slug.en) ?? ''}${kind}`);
  const named = (slug: string | null) => (slug === null ? null : (places.get(slug) ?? null));
  return {
    company_id: companyId,
    slug_en: l.slug.en,
    slug_ar: l.slug.ar ?? null,
    listing_type: l.listing_type,
    status: l.status,
    title: json(l.title),
    description: json(l.description ?? {}),
    price: l.price,
    price_period: l.price_period,
    property_type: l.property_type,
    bedrooms: l.bedrooms,
    bathrooms: l.bathrooms,
    size_sqm: l.size_sqm,
    max_guests: l.max_guests,
    city_id: place(l.city, 'city'),
    area_id: place(l.area, 'area'),
    project_id: place(l.project, 'project'),
    completion: l.completion,
    featured: l.featured,
    sort_order: l.sort_order,
    latitude: l.location?.latitude ?? null,
    longitude: l.location?.longitude ?? null,
    location_precision: l.location?.precision ?? null,
    published_at: l.published_at ?? (l.status === 'draft' ? null : now),
    updated_at: stamp,
    ...permitValues(l.permit, today),
    agent_id: l.agent === null ? null : (agents.get(l.agent) ?? null),
    portals_off: portals.filter((portal) => l.portals[portal] === false),
    furnished: l.furnished,
    cheques: l.cheques,
    service_charge: l.service_charge,
    offplan_sale_type: l.off_plan?.sale_type ?? null,
    offplan_dld_waiver: l.off_plan?.dld_waiver ?? null,
    offplan_original_price: l.off_plan?.original_price ?? null,
    offplan_amount_paid: l.off_plan?.amount_paid ?? null,
    tax_category: l.tax_category,
    search_text: listingSearchText({
      title: l.title,
      description: l.description ?? null,
      slug_en: l.slug.en,
      slug_ar: l.slug.ar ?? null,
      places: [named(l.city), named(l.area), named(l.project)],
    }),
  };
}

/** A permit's columns; one whose last day is already past is written as expired (its listing is shown so at once). */
export function permitValues(permit: ImportListing['permit'], today: string) {
  return {
    permit_number: permit?.number ?? null,
    permit_authority: permit?.authority ?? null,
    permit_expires_on: permit?.expires_on ?? null,
    permit_url: permit?.verification_url ?? null,
    permit_expired: permit ? permit.expires_on < today : false,
  };
}
