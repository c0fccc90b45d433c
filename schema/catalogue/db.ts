import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { Json, LocalisedText, Numeric, NullableNumeric, NullableTimestamp, Timestamp } from '../common/columns';
import type { Furnishing, OffPlanSaleType, PermitAuthority, Portal } from '../common/permits';
import type { TaxCategory } from '../common/tax';

/** The catalogue's tables (merged into `Database`, schema/db.ts). */

export interface AreasTable {
  id: Generated<string>;
  company_id: string;
  kind: 'city' | 'area' | 'project';
  parent_id: string | null;
  slug_en: string;
  slug_ar: string | null;
  name: Json<LocalisedText>;
  position: Generated<number>;
}

export interface PropertyTypesTable {
  company_id: string;
  value: string;
  name: Json<LocalisedText>;
  position: Generated<number>;
}

export type ListingType = 'sale' | 'lease' | 'holiday_home';
export type ListingStatus = 'draft' | 'published' | 'withdrawn';

export interface ListingsTable {
  id: Generated<string>;
  company_id: string;
  slug_en: string;
  slug_ar: string | null;
  listing_type: ListingType;
  status: ListingStatus;
  title: Json<LocalisedText>;
  description: Json<LocalisedText>;
  price: Numeric | null;
  price_period: 'total' | 'year' | 'month' | 'night' | null;
  property_type: string | null;
  bedrooms: number | null;
  bathrooms: number | null;
  size_sqm: Numeric | null;
  max_guests: number | null;
  city_id: string | null;
  area_id: string | null;
  project_id: string | null;
  completion: 'ready' | 'off_plan' | null;
  featured: Generated<boolean>;
  sort_order: Generated<number>;
  latitude: number | null;
  longitude: number | null;
  location_precision: 'exact' | 'approximate' | null;
  published_at: NullableTimestamp;
  /** The listing request (lead) a draft was made from (migration 0007). */
  from_lead_id: string | null;
  /** Its advertising permit (migration 0021): all three of number, authority and last day, or none. */
  permit_number: string | null;
  permit_authority: PermitAuthority | null;
  permit_expires_on: ColumnType<string | null, string | null | undefined, string | null>;
  permit_url: string | null;
  /** Set by scheduled work once the permit's last day has passed (`listing.permit_expired`). */
  permit_expired: Generated<boolean>;
  /** The team profile who handles it (the portals' listing agent). */
  agent_id: string | null;
  /** The portals it is kept out of (default none: every portal). */
  portals_off: ColumnType<Portal[], Portal[] | undefined, Portal[]>;
  /** What the portals' feeds carry besides (migration 0033): all optional. */
  furnished: ColumnType<Furnishing | null, Furnishing | null | undefined, Furnishing | null>;
  /** A lease's rent in this many cheques (1 to 12). */
  cheques: ColumnType<number | null, number | null | undefined, number | null>;
  /** The yearly service charge, in the company's currency. */
  service_charge: NullableNumeric;
  /** Bayut's off-plan details: the sale type, with the DLD waiver (new) or the original price and amount paid (resale). */
  offplan_sale_type: ColumnType<OffPlanSaleType | null, OffPlanSaleType | null | undefined, OffPlanSaleType | null>;
  offplan_dld_waiver: ColumnType<number | null, number | null | undefined, number | null>;
  offplan_original_price: NullableNumeric;
  offplan_amount_paid: NullableNumeric;
  /** The category of its rent (migration 0043), over the company's default for the rent's kind; null: that default. */
  tax_category: ColumnType<TaxCategory | null, TaxCategory | null | undefined, TaxCategory | null>;
  /** Its normalised search text (migration 0050, lib/listing-search.ts); null until written. */
  search_text: ColumnType<string | null, string | null | undefined, string | null>;
  /** The relevance order's tie (migration 0052): a number of its own per listing, from a sequence. */
  search_tie: Generated<number>;
  created_at: Generated<Date>;
  updated_at: Timestamp;
}

export interface ListingPhotosTable {
  id: Generated<string>;
  listing_id: string;
  position: number;
  storage_key: string;
  alt: Json<LocalisedText>;
  ready: Generated<boolean>;
}

export interface TeamProfilesTable {
  id: Generated<string>;
  company_id: string;
  name: string;
  role: Json<LocalisedText>;
  bio: Json<LocalisedText>;
  photo_url: string | null;
  email: string | null;
  phone: string | null;
  /** The agent's licence number (in Dubai the BRN, RERA's Broker Registration Number; migration 0033). */
  licence_number: ColumnType<string | null, string | null | undefined, string | null>;
  languages: ColumnType<string[], string[] | undefined, string[]>;
  published: Generated<boolean>;
  position: Generated<number>;
  created_at: Generated<Date>;
}

export interface ServicesTable {
  company_id: string;
  key: string;
  name: Json<LocalisedText>;
  kind: string;
  position: Generated<number>;
}

/** Published listings per company and type, in total and per filter value; kept by triggers (migration 0015). */
export interface CatalogueCountsTable {
  company_id: string;
  listing_type: ListingType;
  dimension: 'total' | 'property_type' | 'bedrooms' | 'completion' | 'city' | 'area' | 'project';
  /** '' for the total; the property type, bedrooms, completion or the place's id as text. */
  value: string;
  n: string;
}

/** Published listings per company, type and price (migration 0067): the price facet of a whole catalogue. */
export interface CataloguePriceCountsTable {
  company_id: string;
  listing_type: ListingType;
  price: string;
  n: string;
}

/**
 * A listing's public forms as JSON text, rendered for `rendered_for` (migration 0017, functions/catalogue/renders.ts).
 * Null forms with a null tag are stale; `revision` counts the changes that made them so.
 */
export interface ListingRendersTable {
  listing_id: string;
  revision: ColumnType<string, string | number | undefined, string | number>;
  rendered_for: string | null;
  card: string | null;
  detail: string | null;
  map_point: string | null;
  map_cover: string | null;
  sitemap: string | null;
}

/** `listing.permit_expiring` recorded once per listing, permit and last day (migration 0021). */
export interface ListingPermitRemindersTable {
  listing_id: string;
  permit_number: string;
  expires_on: string;
  recorded_at: Timestamp;
}

export interface CatalogueTables {
  areas: AreasTable;
  property_types: PropertyTypesTable;
  listings: ListingsTable;
  listing_photos: ListingPhotosTable;
  team_profiles: TeamProfilesTable;
  services: ServicesTable;
  catalogue_counts: CatalogueCountsTable;
  catalogue_price_counts: CataloguePriceCountsTable;
  listing_renders: ListingRendersTable;
  listing_permit_reminders: ListingPermitRemindersTable;
}

export type ListingRow = Selectable<ListingsTable>;
export type NewListing = Insertable<ListingsTable>;
export type ListingUpdate = Updateable<ListingsTable>;
