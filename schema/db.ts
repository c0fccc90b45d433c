import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type {
  RebuildJobsTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookSecretsTable,
  WebhookSubscriptionsTable,
} from './platform/webhooks-db';
import type { CrmTables } from './crm/db';
import type { BookingTables } from './stay/db';

/** Localised text as stored: keyed by language code. */
export type LocalisedText = Partial<Record<'en' | 'ar', string>>;

export type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
export type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T> = ColumnType<T, string | T, string | T>;
/** `numeric` comes back from every driver as a string; it stays a string (no floats for money). */
type Numeric = ColumnType<string, string | number, string | number>;

export type CompanySettings = {
  hide_prices?: boolean;
  enabled_types?: Array<'sale' | 'lease' | 'holiday_home'>;
  path_pattern?: LocalisedText;
  team_module?: boolean;
  bookings_enabled?: boolean;
  media_base_url?: string;
  site_url?: string;
  /** Static-site build hook: one POST per coalesced batch of changes to published listings. */
  rebuild_hook_url?: string | null;
  /** ISO 3166-1 alpha-2: the country of phone numbers written without + (contacts' phones). */
  phone_country?: string;
  /** Minutes a new lead may wait for its first answer before `lead.escalated`; absent or null: never. */
  lead_answer_minutes?: number | null;
  /** Hours a booking request holds its dates while staff confirm (default 24). */
  booking_hold_hours?: number;
  /** Erase people untouched for this many days (scheduled work). */
  retention_days?: number | null;
};

export interface CompaniesTable {
  id: Generated<string>;
  name: string;
  environment: 'production' | 'development';
  currency: string;
  time_zone: string;
  settings: Json<CompanySettings>;
  /** Bumped by triggers on every change to what the public catalogue shows (migration 0003). */
  catalogue_version: ColumnType<string | number | bigint, never, never>;
  /** The Turnstile secret, encrypted (lib/crypto-jwe.ts); null: not configured. */
  spam_check_secret_jwe: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface CompanyHostsTable {
  host: string;
  company_id: string;
}

export interface ApiKeysTable {
  id: Generated<string>;
  company_id: string;
  kind: 'server' | 'publishable';
  prefix: string;
  name: Generated<string>;
  scopes: ColumnType<string[], string[] | undefined, string[]>;
  origins: ColumnType<string[], string[] | undefined, string[]>;
  lead_types: ColumnType<string[], string[] | undefined, string[]>;
  created_at: Generated<Date>;
  revoked_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
}

export interface ApiKeySecretsTable {
  id: Generated<string>;
  key_id: string;
  secret_hash: Uint8Array;
  created_at: Generated<Date>;
  expires_at: NullableTimestamp;
}

export interface AuditLogTable {
  id: Generated<string>;
  company_id: string | null;
  at: Generated<Date>;
  actor: string;
  action: string;
  subject: string | null;
  details: Json<Record<string, unknown>>;
}

export interface EventsTable {
  id: string;
  company_id: string;
  type: string;
  caused_by: string;
  data: Json<Record<string, unknown>>;
  created_at: Generated<Date>;
  published_at: NullableTimestamp;
}

export interface AdminTokensTable {
  id: Generated<string>;
  token_hash: Uint8Array;
  created_at: Generated<Date>;
}

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

/** The first answer to a request sent with an Idempotency-Key (migration 0009); `status_code` null: in flight. */
export interface IdempotencyKeysTable {
  company_id: string;
  caller: string;
  route: string;
  key: string;
  request_hash: string;
  status_code: number | null;
  content_type: string | null;
  etag: string | null;
  /** The answer's body, encrypted (lib/crypto-jwe.ts) when a details key is configured. */
  body: string | null;
  locked_at: Generated<Date>;
  created_at: Generated<Date>;
}

export interface Database extends CrmTables, BookingTables {
  idempotency_keys: IdempotencyKeysTable;
  companies: CompaniesTable;
  company_hosts: CompanyHostsTable;
  api_keys: ApiKeysTable;
  api_key_secrets: ApiKeySecretsTable;
  audit_log: AuditLogTable;
  events: EventsTable;
  admin_tokens: AdminTokensTable;
  areas: AreasTable;
  property_types: PropertyTypesTable;
  listings: ListingsTable;
  listing_photos: ListingPhotosTable;
  team_profiles: TeamProfilesTable;
  services: ServicesTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_secrets: WebhookSecretsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  rebuild_jobs: RebuildJobsTable;
}

export type Company = Selectable<CompaniesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type ListingRow = Selectable<ListingsTable>;
export type NewListing = Insertable<ListingsTable>;
export type ListingUpdate = Updateable<ListingsTable>;
export type EventRow = Selectable<EventsTable>;
export type SubscriptionRow = Selectable<WebhookSubscriptionsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
