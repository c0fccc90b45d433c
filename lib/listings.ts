import type { ExpressionBuilder } from 'kysely';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import type { LocalisedText } from '../schema/common/columns';
import type { PermitAuthority } from '../schema/common/permits';
import type { Database } from '../schema/db';
import type { Company, CompanySettings } from '../schema/platform/db';
import { statusMachine } from './transitions';

/**
 * A listing as every presentation of it reads it: the catalogue's public forms (functions/catalogue/renders.ts) and
 * the portals' feeds (functions/portals/feeds.ts) select these columns, places and photos through this one select
 * (house issue 33: they were two copies), each adding its own columns beside them. Over a listing `l`.
 */

/** A query over `listings as l`, as both groups write theirs. */
export type ListingExpressions = ExpressionBuilder<Database & { l: Database['listings'] }, 'l'>;

/** A place (city, area, project) of a listing: its slugs and name. */
export type PlaceRecord = { slug_en: string; slug_ar: string | null; name: LocalisedText };
/** A ready photo of a listing, in position order. */
export type PhotoRecord = { position: number; storage_key: string; alt: LocalisedText };

/** The row {@link listingSelection} gives (the description only when asked for). */
export type ListingBase = {
  id: string;
  listing_type: 'sale' | 'lease' | 'holiday_home';
  title: LocalisedText;
  description?: LocalisedText;
  price: string | null;
  price_period: 'total' | 'year' | 'month' | 'night' | null;
  property_type: string | null;
  bedrooms: number | null;
  bathrooms: number | null;
  size_sqm: string | null;
  completion: 'ready' | 'off_plan' | null;
  latitude: number | null;
  longitude: number | null;
  updated_at: Date | string;
  permit_number: string | null;
  permit_authority: PermitAuthority | null;
  permit_url: string | null;
  city: PlaceRecord | null;
  area: PlaceRecord | null;
  project: PlaceRecord | null;
  photos: PhotoRecord[];
};

/**
 * The selections of {@link ListingBase}, for `query.select((eb) => [...listingSelection(eb, options), …])`: places as
 * objects and ready photos in position order in the same statement (`photos`: every one, the first only, or none).
 */
export function listingSelection(eb: ListingExpressions, options: { description: boolean; photos: 'all' | 'first' | 'none' }) {
  const place = (column: 'l.city_id' | 'l.area_id' | 'l.project_id') =>
    jsonObjectFrom(eb.selectFrom('areas as a').select(['a.slug_en', 'a.slug_ar', 'a.name']).whereRef('a.id', '=', column));
  return [
    'l.id',
    'l.listing_type',
    'l.title',
    ...(options.description ? (['l.description'] as const) : ([] as const)),
    'l.price',
    'l.price_period',
    'l.property_type',
    'l.bedrooms',
    'l.bathrooms',
    'l.size_sqm',
    'l.completion',
    'l.latitude',
    'l.longitude',
    'l.updated_at',
    'l.permit_number',
    'l.permit_authority',
    'l.permit_url',
    place('l.city_id').as('city'),
    place('l.area_id').as('area'),
    place('l.project_id').as('project'),
    jsonArrayFrom(
      eb
        .selectFrom('listing_photos as p')
        .$if(options.photos === 'none', (qb) => qb.where(eb.lit(false)))
        .select(['p.position', 'p.storage_key', 'p.alt'])
        .whereRef('p.listing_id', '=', 'l.id')
        .where('p.ready', '=', true)
        .orderBy('p.position')
        .$if(options.photos === 'first', (qb) => qb.limit(1)),
    ).as('photos'),
  ] as const;
}

/** Whether the company hides its prices (`settings.hide_prices`): then no price of a listing leaves the API. */
export function pricesHidden(company: Company): boolean {
  const settings: CompanySettings = company.settings ?? {};
  return settings.hide_prices === true;
}

/**
 * A listing's states as an integration moves them (issue 38): the spec's published → withdrawn, a draft published, and
 * a withdrawn listing published again (the spec is silent; its slug stayed readable). A draft is never withdrawn.
 */
export const listingMachine = statusMachine<'draft' | 'published' | 'withdrawn'>('listing', {
  draft: ['published'],
  published: ['withdrawn'],
  withdrawn: ['published'],
});
