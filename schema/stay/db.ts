import type { ColumnType, Generated, Selectable } from 'kysely';

import type { LineTax } from '../common/tax';
import type { Json, NullableNumeric, NullableTimestamp, Numeric, Touched } from '../common/columns';

/** `date` columns are read as `YYYY-MM-DD` (lib/db type parsers). */
type Days = ColumnType<number[], number[] | undefined, number[]>;

export const bookingStatuses = ['held', 'confirmed', 'paid', 'cancelled'] as const;
export type BookingStatus = (typeof bookingStatuses)[number];
export const cancelReasons = ['staff', 'guest', 'hold_expired', 'payment_overdue'] as const;
export type CancelReason = (typeof cancelReasons)[number];

export const detClasses = ['standard', 'deluxe'] as const;
export type DetClass = (typeof detClasses)[number];

/** What a quote charges as the Tourism Dirham of a classed home (issue 37): kept with the booking's quote. */
export type QuotedDirham = {
  det_class: DetClass;
  bedrooms: number;
  /** The nights charged: the stay's first ones, at most the terms' `tourism_fee_max_nights`. */
  nights: number;
  per_bedroom_night: string;
  amount: string;
};

export interface HolidayHomeTermsTable {
  listing_id: string;
  company_id: string;
  min_nights: Generated<number>;
  max_nights: Generated<number>;
  closed_arrival_days: Days;
  advance_days: Generated<number>;
  notice_hours: Generated<number>;
  available_from: string | null;
  available_to: string | null;
  check_in_time: Generated<string>;
  check_out_time: Generated<string>;
  weekend_nights: Days;
  weekend_price: NullableNumeric;
  cleaning_fee: Generated<string> & Numeric;
  tourism_fee_per_bedroom_night: Generated<string> & Numeric;
  tourism_fee_max_nights: Generated<number>;
  /** Dubai's DET class of the home (migration 0060, issue 37): the Tourism Dirham's rate; null: not classed. */
  det_class: DetClass | null;
  deposit: Generated<string> & Numeric;
  payment_window_hours: Generated<number>;
  /** Nights kept free after each stay, 0 to 7 (migration 0025; computed where the calendar is read: lib/calendar.ts). */
  turnover_days: Generated<number>;
  /** Booking payments (migration 0037, issue 34): the deposit (a percent or an amount, or none), the balance's days before arrival, whether a paid deposit confirms, the cancellation policy. */
  booking_deposit_percent: number | null;
  booking_deposit_amount: NullableNumeric;
  balance_due_days: number | null;
  deposit_confirms: Generated<boolean>;
  free_cancellation_days: Generated<number>;
  late_cancellation_refund_percent: Generated<number>;
  calendar_version: ColumnType<string | number | bigint, never, never>;
  /** Bumped by every change to the terms, seasons and blocks, never by a booking (migration 0018; functions/stay/hold.ts). */
  rules_version: ColumnType<string | number | bigint, never, never>;
}

export interface HolidayHomeSeasonsTable {
  id: Generated<string>;
  listing_id: string;
  name: Generated<string>;
  starts_on: string;
  ends_on: string;
  nightly_price: Numeric;
  weekend_price: NullableNumeric;
}

/** A home's own rule for one night (migration 0057, issue 37): over the terms and seasons, a date's own rule wins. */
export interface HolidayHomeRatesTable {
  listing_id: string;
  night: string;
  price: NullableNumeric;
  min_nights: number | null;
  max_nights: number | null;
  closed_to_arrival: Generated<boolean>;
  closed_to_departure: Generated<boolean>;
  closed: Generated<boolean>;
  source: string;
  source_id: string | null;
}

/** A company's pricing tool: the Standard Webhooks secret of its pushes, sealed (migration 0057). */
export interface PricingToolsTable {
  company_id: string;
  tool: string;
  secret_jwe: string;
  created_at: Generated<Date>;
}

/** The pushes of a pricing tool recorded, by its own id (migration 0057). */
export interface RatePushesTable {
  company_id: string;
  push_id: string;
  listing_id: string;
  starts_on: string;
  ends_on: string;
  received_at: Date;
}

export interface CalendarBlocksTable {
  id: Generated<string>;
  company_id: string;
  listing_id: string;
  reason: 'owner' | 'maintenance' | 'imported' | 'turnover';
  starts_on: string;
  ends_on: string;
  note: Generated<string>;
  /** The maintenance job this block is for (migration 0013); null for owner and staff blocks. */
  job_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The calendar import an imported block came from, and its event's UID (migration 0020). */
  import_id: ColumnType<string | null, string | null | undefined, string | null>;
  uid: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
}

/** A channel's calendar imported into a holiday home's (migration 0020). */
export interface CalendarImportsTable {
  id: Generated<string>;
  company_id: string;
  listing_id: string;
  channel: string;
  url_jwe: string;
  interval_minutes: Generated<number>;
  etag: string | null;
  last_modified: string | null;
  last_synced_at: Date | null;
  last_changed_at: Date | null;
  last_error: string | null;
  last_error_at: Date | null;
  failures: Generated<number>;
  failure_announced: Generated<boolean>;
  event_count: Generated<number>;
  next_sync_at: Generated<Date>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/**
 * The quote kept on a booking: what the guest saw when asking. Its tax (issue 35: each line's, the deposit's, the
 * total's) is on every quote since; a booking requested before has none (never computed afterwards).
 */
export type StoredQuote = {
  currency: string;
  nights: Array<{ date: string; rate: 'base' | 'weekend' | 'season' | 'daily'; price: string; tax?: LineTax }>;
  subtotal: string;
  fees: Array<{ code: 'cleaning' | 'tourism_fee'; amount: string; tax?: LineTax }>;
  deposit: string;
  total: string;
  deposit_tax?: LineTax;
  tax?: { net: string; vat: string };
  /** A classed home's Tourism Dirham (issue 37), the same amount as the `tourism_fee` line; absent otherwise. */
  tourism_dirham?: QuotedDirham;
};

/** A quote with its tax (every quote made since issue 35). */
export type TaxedQuote = StoredQuote & {
  nights: Array<StoredQuote['nights'][number] & { tax: LineTax }>;
  fees: Array<StoredQuote['fees'][number] & { tax: LineTax }>;
  deposit_tax: LineTax;
  tax: { net: string; vat: string };
};

export interface BookingsTable {
  id: Generated<string>;
  company_id: string;
  reference: string;
  listing_id: string;
  contact_id: string | null;
  status: BookingStatus;
  check_in: string;
  check_out: string;
  guests: number;
  language: string | null;
  message: string | null;
  quote: Json<StoredQuote>;
  currency: string;
  total: Numeric;
  deposit: Numeric;
  stay_token_hash: Uint8Array;
  consent_version: string;
  consent_at: ColumnType<Date, Date | string, Date | string>;
  consent_address: string | null;
  hold_expires_at: ColumnType<Date, Date | string, Date | string>;
  confirmed_at: NullableTimestamp;
  payment_due_at: NullableTimestamp;
  paid_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
  cancel_reason: CancelReason | null;
  caused_by: string;
  /** The guest's name, email and phone exactly as sent (migration 0022), whatever person they were matched to. */
  sent_name: string | null;
  sent_email: string | null;
  sent_phone: string | null;
  /** The payment terms the booking was requested under (migration 0037, issue 34): the deposit's amount (0: none). */
  booking_deposit: ColumnType<string, string | undefined, string>;
  balance_due_days: number | null;
  deposit_confirms: Generated<boolean>;
  free_cancellation_days: Generated<number>;
  late_cancellation_refund_percent: Generated<number>;
  /** When the balance became what is due (booking.balance_due was sent). */
  balance_due_at: NullableTimestamp;
  /** A booking an integration took elsewhere (migration 0058, issue 37): its channel, the channel's id, its request's hash. */
  channel: ColumnType<string | null, string | null | undefined, string | null>;
  channel_reference: ColumnType<string | null, string | null | undefined, string | null>;
  channel_request_hash: ColumnType<Uint8Array | null, Uint8Array | null | undefined, Uint8Array | null>;
  created_at: Generated<Date>;
  updated_at: Touched;
}

/**
 * A booking's guest registration (migration 0059, issue 37): the guests the stay page took, sealed (lib/crypto-jwe.ts,
 * bound to the booking's id); null once erased after `keep_until` (the check-out day plus five years).
 */
export interface GuestRegistrationsTable {
  booking_id: string;
  company_id: string;
  guests_jwe: string | null;
  guest_count: number;
  consent_version: string;
  consent_at: ColumnType<Date, Date | string, Date | string>;
  registered_at: ColumnType<Date, Date | string, Date | string>;
  keep_until: string;
  erased_at: NullableTimestamp;
  updated_at: Touched;
}

/** A company's closed month of the Tourism Dirham, as first recorded, and its payment over to DET (migration 0060). */
export interface TourismDirhamMonthsTable {
  company_id: string;
  month: string;
  currency: string;
  report: Json<{ homes: unknown[] }>;
  total: Numeric;
  recorded_at: ColumnType<Date, Date | string, never>;
  paid_on: string | null;
  payment_reference: string | null;
  paid_by: string | null;
  paid_at: NullableTimestamp;
}

/** The booking tables, merged into `Database` (schema/db.ts). */
export interface BookingTables {
  holiday_home_terms: HolidayHomeTermsTable;
  holiday_home_seasons: HolidayHomeSeasonsTable;
  holiday_home_rates: HolidayHomeRatesTable;
  tourism_dirham_months: TourismDirhamMonthsTable;
  pricing_tools: PricingToolsTable;
  rate_pushes: RatePushesTable;
  calendar_blocks: CalendarBlocksTable;
  calendar_imports: CalendarImportsTable;
  bookings: BookingsTable;
  guest_registrations: GuestRegistrationsTable;
}

export type HolidayHomeTerms = Selectable<HolidayHomeTermsTable>;
export type SeasonRow = Selectable<HolidayHomeSeasonsTable>;
/** A night's own rule as the stay rules and prices read it (lib/stay/rates.ts). */
export type NightRule = {
  night: string;
  price: string | null;
  min_nights: number | null;
  max_nights: number | null;
  closed_to_arrival: boolean;
  closed_to_departure: boolean;
  closed: boolean;
};
export type BookingRow = Selectable<BookingsTable>;

export type CalendarImportRow = Selectable<CalendarImportsTable>;
