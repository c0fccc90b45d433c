import type { ColumnType, Generated, Selectable } from 'kysely';
import type { NullableNumeric, NullableTimestamp, Numeric, Touched } from '../common/columns';

/** Payments online (migration 0036, issue 34), merged into `Database` (schema/db.ts). */

export const providerNames = ['stripe', 'ngenius'] as const;
export type ProviderColumn = (typeof providerNames)[number];
export const paymentPurposes = ['rent', 'booking_deposit', 'booking_balance'] as const;
export type PaymentPurpose = (typeof paymentPurposes)[number];
export const paymentStatuses = ['open', 'succeeded', 'failed', 'expired', 'refunded'] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];
export const cardFeeKinds = ['fixed', 'percent'] as const;
export type CardFeeKind = (typeof cardFeeKinds)[number];

export interface PaymentAccountsTable {
  id: Generated<string>;
  company_id: string;
  provider: ProviderColumn;
  currency: string;
  /** Sealed (lib/crypto-jwe.ts sealSecret, bound to the account's id); never answered. */
  api_key_jwe: string;
  webhook_secret_jwe: string;
  outlet: string | null;
  card_fee_kind: CardFeeKind | null;
  card_fee_value: NullableNumeric;
  created_at: Generated<Date>;
  updated_at: Touched;
}
export type PaymentAccountRow = Selectable<PaymentAccountsTable>;

export interface PaymentsTable {
  id: string;
  company_id: string;
  account_id: string;
  provider: ProviderColumn;
  purpose: PaymentPurpose;
  rent_payment_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The booking a deposit or balance pays (migration 0037). */
  booking_id: ColumnType<string | null, string | null | undefined, string | null>;
  status: ColumnType<PaymentStatus, PaymentStatus | undefined, PaymentStatus>;
  amount: Numeric;
  currency: string;
  card_fee: ColumnType<string, string | number | undefined, string | number>;
  rounding: ColumnType<string, string | number | undefined, string | number>;
  checkout_id: string;
  provider_payment_id: string | null;
  url: string;
  expires_at: NullableTimestamp;
  fee: NullableNumeric;
  net: NullableNumeric;
  method: string | null;
  paid_at: NullableTimestamp;
  /** The day a settlement booked it (`YYYY-MM-DD`, the company's zone; migration 0039): its journal entry's day. */
  booked_on: ColumnType<string | null, string | null | undefined, string | null>;
  /** When the scheduled poll last asked the provider about it while open (migration 0039). */
  polled_at: NullableTimestamp;
  /** Its journal entry's number (`OP-<n>`), assigned by the database. */
  entry_number: ColumnType<string, never, never>;
  created_at: Generated<Date>;
  updated_at: Touched;
}
export type PaymentRow = Selectable<PaymentsTable>;

export interface PaymentProviderEventsTable {
  provider: ProviderColumn;
  event_id: string;
  company_id: string;
  payment_id: string | null;
  acted_at: Generated<Date>;
}

export const refundStatuses = ['pending', 'succeeded', 'failed'] as const;
export type RefundStatus = (typeof refundStatuses)[number];
export type RefundReason = 'policy' | 'lapsed' | 'unapplied';

/** A refund of a payment through its provider (migration 0037): one per payment at most. */
export interface PaymentRefundsTable {
  id: string;
  company_id: string;
  payment_id: string;
  booking_id: string | null;
  amount: Numeric;
  currency: string;
  reason: RefundReason;
  status: ColumnType<RefundStatus, RefundStatus | undefined, RefundStatus>;
  provider_refund_id: string | null;
  attempts: Generated<number>;
  next_attempt_at: Generated<Date>;
  last_error: string | null;
  refunded_at: NullableTimestamp;
  /** The day the refund succeeded in the company's time zone: its journal entry's day (migration 0040). */
  booked_on: ColumnType<string | null, string | null | undefined, string | null>;
  /** The journal entry's stable number (`RF-<n>`, migration 0040). */
  entry_number: ColumnType<string, never, never>;
  /**
   * The Tourism Dirham's part of a booking's refund, decided with it (migration 0064, lib/bookings.ts refundsOf); null
   * before it, for a booking whose quote has no Tourism Dirham, and for a refund that is not a booking's.
   */
  tourism_dirham: ColumnType<string | null, string | null | undefined, never>;
  created_at: Generated<Date>;
  updated_at: Touched;
}
export type PaymentRefundRow = Selectable<PaymentRefundsTable>;

/** The payments' tables, merged into `Database` (schema/db.ts). */
export interface PaymentTables {
  payment_accounts: PaymentAccountsTable;
  payments: PaymentsTable;
  payment_provider_events: PaymentProviderEventsTable;
  payment_refunds: PaymentRefundsTable;
}
