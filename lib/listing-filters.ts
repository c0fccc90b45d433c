import { type ExpressionBuilder, sql } from 'kysely';
import type { Database } from '../schema/db';
import type { ListingsTable, ListingType } from '../schema/catalogue/db';
import { listingTypes } from '../schema/common/columns';
import type { Company, CompanySettings } from '../schema/platform/db';
import type { Executor } from './db/index';
import { defaultRadiusKm, distanceKm, insideBox } from './listing-geo';
import { searchConditions } from './listing-search';

/**
 * The filters of a listing search (issue 36), as the catalogue's pages and the saved searches (functions/forms) apply
 * them to the published listings of a company: one place, so a saved search finds exactly what the page showed.
 */

export type ListingFilters = {
  type?: ListingType;
  area?: string;
  project?: string;
  property_type?: string;
  bedrooms_min?: number;
  bedrooms_max?: number;
  guests_min?: number;
  completion?: 'ready' | 'off_plan';
  featured?: boolean;
  /** The normalised words of `q` (lib/search-text.ts `queryWords`): every one must be found. */
  words?: readonly string[];
  price_min?: string;
  price_max?: string;
  bedrooms?: number;
  bathrooms?: number;
  size_min?: string;
  size_max?: string;
  /** min_lon, min_lat, max_lon, max_lat. */
  bbox?: readonly number[];
  /** lat, lon. */
  near?: readonly number[];
  radius_km?: string;
};

/** The listing types the company shows; all three unless it narrowed them. */
export function enabledTypes(company: Company): ListingType[] {
  const settings: CompanySettings = company.settings ?? {};
  const enabled = settings.enabled_types;
  return enabled && enabled.length > 0 ? listingTypes.filter((t) => enabled.includes(t)) : [...listingTypes];
}

/** Published listings of the company's enabled types: the only listings any public read can see. */
export function publishedListings(db: Executor, company: Company) {
  return db
    .selectFrom('listings as l')
    .where('l.company_id', '=', company.id)
    .where('l.status', '=', 'published')
    .where('l.listing_type', 'in', enabledTypes(company));
}

/** A query of listings as `l` (public reads, renders). */
export type PublishedQuery = ReturnType<typeof publishedListings>;

export function applyFilters(query: PublishedQuery, company: Company, f: ListingFilters): PublishedQuery {
  let q = query;
  const areaIds = (
    eb: ExpressionBuilder<Database & { l: ListingsTable }, 'l'>,
    kinds: Array<'city' | 'area' | 'project'>,
    slug: string,
  ) =>
    eb
      .selectFrom('areas as a')
      .select('a.id')
      .where('a.company_id', '=', company.id)
      .where('a.kind', 'in', kinds)
      .where((eb) => eb.or([eb('a.slug_en', '=', slug), eb('a.slug_ar', '=', slug)]));
  if (f.type) q = q.where('l.listing_type', '=', f.type);
  if (f.area) {
    const slug = f.area;
    q = q.where((eb) =>
      eb.or([eb('l.city_id', 'in', areaIds(eb, ['city'], slug)), eb('l.area_id', 'in', areaIds(eb, ['area'], slug))]),
    );
  }
  const project = f.project;
  if (project) q = q.where((eb) => eb('l.project_id', 'in', areaIds(eb, ['project'], project)));
  if (f.property_type) q = q.where('l.property_type', '=', f.property_type);
  if (f.bedrooms_min !== undefined) q = q.where('l.bedrooms', '>=', f.bedrooms_min);
  if (f.bedrooms_max !== undefined) q = q.where('l.bedrooms', '<=', f.bedrooms_max);
  if (f.guests_min !== undefined) q = q.where('l.max_guests', '>=', f.guests_min);
  if (f.completion) q = q.where('l.completion', '=', f.completion);
  if (f.featured !== undefined) q = q.where('l.featured', '=', f.featured);
  if (f.words && f.words.length > 0) q = q.where(searchConditions(f.words, company.id));
  if (f.price_min !== undefined) q = q.where(sql<boolean>`l.price >= ${f.price_min}::numeric`);
  if (f.price_max !== undefined) q = q.where(sql<boolean>`l.price <= ${f.price_max}::numeric`);
  if (f.bedrooms !== undefined) q = q.where('l.bedrooms', '=', f.bedrooms);
  if (f.bathrooms !== undefined) q = q.where('l.bathrooms', '=', f.bathrooms);
  if (f.size_min !== undefined) q = q.where(sql<boolean>`l.size_sqm >= ${f.size_min}::numeric`);
  if (f.size_max !== undefined) q = q.where(sql<boolean>`l.size_sqm <= ${f.size_max}::numeric`);
  if (f.bbox) q = q.where(insideBox(f.bbox));
  if (f.near) q = q.where(sql<boolean>`${distanceKm(f.near)} <= ${f.radius_km ?? defaultRadiusKm}::float8`);
  return q;
}
