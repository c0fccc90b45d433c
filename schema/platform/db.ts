import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json, LocalisedText, NullableTimestamp } from '../common/columns';
import type { RecordKind } from '../common/external';
import type { Market } from '../common/permits';
import type { RatedTaxCategory, RentVatAccountedBy, TaxCategory, TaxKind } from '../common/tax';
import type {
  RebuildJobsTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookSecretsTable,
  WebhookSubscriptionsTable,
} from './webhooks-db';

/**
 * The platform's tables: companies, keys, audit, events, external ids, idempotency keys, webhooks (merged into
 * `Database`, schema/db.ts).
 */

export type CompanySettings = {
  hide_prices?: boolean;
  /** Price band edges per listing type for the listings' `facets=price` (issue 36); a type absent takes the defaults. */
  search_price_bands?: Partial<Record<'sale' | 'lease' | 'holiday_home', string[]>> | null;
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
  /** Hours within which a WhatsApp message joins the open lead of its sender's last message (default 24). */
  inbound_conversation_hours?: number;
  /** Hours a booking request holds its dates while staff confirm (default 24). */
  booking_hold_hours?: number;
  /** Erase people untouched for this many days (scheduled work). */
  retention_days?: number | null;
  /** Leases (docs/api-reference.md, "Leases and rent payments"); each absent setting takes its default there. */
  /** The notice period, in days, of a lease that states none (default 90). */
  lease_notice_days?: number;
  /** `rent_above_cap`: a renewal's rent may rise by this percentage at most (default "5"); null: no cap. */
  lease_rent_cap_percent?: string | null;
  /** `deposit_above_default`: the deposit, as a percentage of a year's rent (default "5"); null: no check. */
  lease_deposit_percent?: string | null;
  /** `schedule_total_differs`: how far explicit rows may sum from the term's rent (default "0": exactly). */
  lease_schedule_tolerance?: string;
  /** A payment still due is overdue after its due date and this many days (default 5). */
  rent_grace_days?: number;
  /** Maintenance: `approval_needed` above this estimate, unless the home sets its own (default null: no limit). */
  maintenance_approval_limit?: string | null;
  /** Owner statements: a month closes this many days after it ends (default 5). */
  statement_grace_days?: number;
  /** `carried`: statements show opening and closing balances; `none` (default): no balance. */
  statement_balance?: 'none' | 'carried';
  /** The journal's accounts (Xero: code; QuickBooks: name). */
  accounting_accounts?: Partial<Record<AccountingAccount, { code: string; name: string }>>;
  /** Xero's tax rate name on every journal line (default "Tax Exempt"). */
  accounting_xero_tax_rate?: string;
  /** The tax rate name each tax category's journal rows carry in Xero's and QuickBooks' CSVs (issue 35). */
  accounting_tax_rates?: Partial<Record<TaxCategory, string>>;
  /** QuickBooks journal dates: DD/MM/YYYY (default) or MM/DD/YYYY. */
  accounting_date_order?: 'day_first' | 'month_first';
  /** Portals (docs/api-reference.md, "Portals and advertising permits"): the market whose permit rules apply. */
  market?: Market | null;
  /** `listing.permit_expiring` this many days before a live listing's permit ends (default 14). */
  permit_reminder_days?: number;
  /** Tax (docs/api-reference.md, "Tax"): the company's UAE Tax Registration Number, null or absent: none. */
  trn?: string | null;
  /** The day its VAT registration took effect. */
  vat_registered_on?: string | null;
  /** Its category per kind of amount, over the defaults of lib/tax.ts. */
  tax_categories?: Partial<Record<TaxKind, TaxCategory>>;
  /**
   * Who accounts for the VAT on rent (issue 35): `owner` (default: the company bills the rent as the landlord's disclosed
   * agent) or `company` (it lets the home as principal). Read at each receipt and kept on it.
   */
  rent_vat_accounted_by?: RentVatAccountedBy;
  /** Tax invoices (issue 35; docs/pint-ae.md): the company's legal name as registered, its address, its licence. */
  legal_name?: string | null;
  address?: CompanyAddress | null;
  trade_licence?: { number: string; authority: string } | null;
};

/** The company's address on its invoices: line 1 (and 2), the city and the emirate (PINT AE codes, ibr-128-ae). */
export type CompanyAddress = {
  line1: string;
  line2?: string | null;
  city: string;
  emirate: 'AUH' | 'DXB' | 'SHJ' | 'UAQ' | 'FUJ' | 'AJM' | 'RAK';
};

/** The accounts a company maps for the accounting journal (company setting `accounting_accounts`). */
export const accountingAccounts = [
  'rent_income',
  'owner_payable',
  'fees',
  'deposits_held',
  'maintenance',
  // Online payments (issue 34): the provider's clearing account, its fees (an expense), payments owed back to payers.
  'payment_clearing',
  'payment_fees',
  'refunds_due',
  // Bookings paid online (issue 34): what guests paid for their bookings, held until the stay (a liability).
  'booking_receipts',
  // VAT (issue 35): the VAT on rent received and on the company's fees, owed to the Federal Tax Authority (a liability).
  'vat_payable',
  // The Tourism Dirham (issue 37): collected from guests and owed to DET until paid over (a liability), and the bank
  // account it is paid over from (only the pay-over's entry uses it).
  'tourism_dirham_payable',
  'bank',
] as const;
export type AccountingAccount = (typeof accountingAccounts)[number];

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
  /** The portal feeds' token (migration 0021): its SHA-256, and itself encrypted for the admin's list. */
  portal_feed_token_hash: ColumnType<Uint8Array | null, Uint8Array | null | undefined, Uint8Array | null>;
  portal_feed_token_jwe: ColumnType<string | null, string | null | undefined, string | null>;
  /** The company's Accredited Service Provider (migration 0049): where e-invoices go, and the shared secret sealed. */
  einvoice_url: ColumnType<string | null, string | null | undefined, string | null>;
  einvoice_secret_jwe: ColumnType<string | null, string | null | undefined, string | null>;
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
  /** The API version its requests are served at when they name none (lib/versions.ts). */
  api_version: Generated<string>;
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
  /** The inserting transaction's id and the insert's place in it (migration 0056): the feed's commit order. */
  txid: Generated<string>;
  position: Generated<string>;
}

export interface AdminTokensTable {
  id: Generated<string>;
  token_hash: Uint8Array;
  created_at: Generated<Date>;
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

/**
 * The ids clients keep for records of every kind (lib/external-ids.ts): unique per company, kind and source;
 * `record_id` is the record's id as text (uuid or text ids alike).
 */
export interface ExternalIdsTable {
  company_id: string;
  record_type: RecordKind;
  source: string;
  external_id: string;
  record_id: string;
  created_at: Generated<Date>;
}

/**
 * Outbound work paused (migration 0029): one row while the database is a copy whose outbound work the operator has
 * not resumed yet (lib/outbound.ts).
 */
export interface OutboundPauseTable {
  only_row: Generated<boolean>;
  paused_at: Date;
  reason: string;
  held_runs: Generated<number>;
  last_held_at: Date | null;
}

/** The dated tax rates (migration 0043): a category's percentage from one day to another (null: open). */
export interface TaxRatesTable {
  id: Generated<string>;
  category: RatedTaxCategory;
  rate: ColumnType<string, string, string>;
  valid_from: ColumnType<string, string, string>;
  valid_to: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}
export type TaxRateRow = Selectable<TaxRatesTable>;

/** The last number issued per company and series (migration 0045). */
export interface TaxDocumentSeriesTable {
  company_id: string;
  series: 'INV' | 'CRN';
  last_number: ColumnType<string, string | number, string | number>;
}

/**
 * Issued tax invoices and credit notes (migration 0045): written once by lib/invoices.ts `issueCtes`, never changed but
 * their e-invoice hand-off columns (`einvoice_*`).
 */
export interface TaxDocumentsTable {
  id: string;
  company_id: string;
  kind: 'invoice' | 'credit_note';
  series: 'INV' | 'CRN';
  sequence: ColumnType<string, string | number, never>;
  number: string;
  type_code: '380' | '480' | '381' | '81' | '389' | '261';
  simplified: boolean;
  issue_date: ColumnType<string, string, never>;
  currency: string;
  net: ColumnType<string, string, never>;
  vat: ColumnType<string, string, never>;
  gross: ColumnType<string, string, never>;
  source_kind: 'rent_payment' | 'booking_payment' | 'statement_fees' | 'job_charge';
  source_key: string;
  lease_id: string | null;
  booking_id: string | null;
  owner_id: string | null;
  credits_id: string | null;
  document: ColumnType<unknown, string, never>;
  xml: ColumnType<string, string, never>;
  einvoice_status: ColumnType<'pending' | 'accepted' | 'rejected', 'pending' | 'accepted' | 'rejected' | undefined>;
  einvoice_reasons: ColumnType<string[] | null, string | null | undefined, string | null>;
  einvoice_attempts: Generated<number>;
  einvoice_next_attempt_at: NullableTimestamp;
  einvoice_last_error: string | null;
  einvoice_answered_at: NullableTimestamp;
  /** The provider's last answer recorded (migration 0049): its `webhook-id` and signed time. */
  einvoice_answer_id: string | null;
  einvoice_answer_at: NullableTimestamp;
  /** When `invoice.einvoice_due` was recorded for the document (once). */
  einvoice_due_warned_at: NullableTimestamp;
  created_at: Generated<Date>;
  issued_order: ColumnType<string, never, never>;
}

export interface PlatformTables {
  idempotency_keys: IdempotencyKeysTable;
  companies: CompaniesTable;
  company_hosts: CompanyHostsTable;
  api_keys: ApiKeysTable;
  api_key_secrets: ApiKeySecretsTable;
  audit_log: AuditLogTable;
  events: EventsTable;
  external_ids: ExternalIdsTable;
  admin_tokens: AdminTokensTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  webhook_secrets: WebhookSecretsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  rebuild_jobs: RebuildJobsTable;
  outbound_pause: OutboundPauseTable;
  tax_rates: TaxRatesTable;
  tax_document_series: TaxDocumentSeriesTable;
  tax_documents: TaxDocumentsTable;
}

export type Company = Selectable<CompaniesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type EventRow = Selectable<EventsTable>;
export type SubscriptionRow = Selectable<WebhookSubscriptionsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
