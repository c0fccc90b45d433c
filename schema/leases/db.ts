import type { ColumnType, Generated, Selectable } from 'kysely';
import type { NullableNumeric, NullableTimestamp, Numeric, Touched } from '../common/columns';
import type { RentVatAccountedBy, TaxCategory } from '../common/tax';

/** Leases, their notices and rent payments (migration 0011), merged into `Database` (schema/db.ts). */

export const leaseStatuses = ['draft', 'active', 'ended'] as const;
export type LeaseStatus = (typeof leaseStatuses)[number];
export const rentPeriods = ['month', 'year'] as const;
export type RentPeriod = (typeof rentPeriods)[number];
export const feeKinds = ['percent', 'fixed'] as const;
export type FeeKind = (typeof feeKinds)[number];
export const depositOutcomes = ['returned', 'returned_with_deductions', 'kept'] as const;
export type DepositOutcome = (typeof depositOutcomes)[number];
export const noticeParties = ['renter', 'landlord', 'company'] as const;
export type NoticeParty = (typeof noticeParties)[number];
export const noticeIntents = ['vacate', 'renew', 'rent_change'] as const;
export type NoticeIntent = (typeof noticeIntents)[number];
export const rentPaymentStatuses = ['due', 'received', 'bounced', 'cancelled'] as const;
export type RentPaymentStatus = (typeof rentPaymentStatuses)[number];
export const rentMandateStatuses = ['pending', 'active', 'cancelled', 'rejected', 'expired'] as const;
export type RentMandateStatus = (typeof rentMandateStatuses)[number];

/** A warning standing on a record: the spec's code and a sentence for people. */
export type Warning = { code: string; message: string };

/** A calendar date column, `YYYY-MM-DD` (read as text on every engine: no time zone shift). */
type CalendarDate = ColumnType<string, string, string>;
type NullableCalendarDate = ColumnType<string | null, string | null | undefined, string | null>;

export interface LeasesTable {
  id: Generated<string>;
  company_id: string;
  reference: string;
  listing_id: string;
  renter_id: string;
  landlord_id: string;
  status: ColumnType<LeaseStatus, LeaseStatus | undefined, LeaseStatus>;
  starts_on: CalendarDate;
  ends_on: CalendarDate;
  rent_amount: Numeric;
  rent_period: RentPeriod;
  deposit_amount: ColumnType<string, string | number | undefined, string | number>;
  registration: string | null;
  notice_days: number;
  renewal_terms: string | null;
  renews_id: string | null;
  schedule_count: number | null;
  fee_kind: FeeKind | null;
  fee_value: NullableNumeric;
  handler_id: string | null;
  notes: string | null;
  warnings: ColumnType<Warning[], string | Warning[] | undefined, string | Warning[]>;
  activated_at: NullableTimestamp;
  ended_on: NullableCalendarDate;
  deposit_outcome: DepositOutcome | null;
  deposit_deductions: NullableNumeric;
  deposit_reason: string | null;
  /** The category of its rent (migration 0043), over its listing's and the company's; null: theirs. */
  tax_category: ColumnType<TaxCategory | null, TaxCategory | null | undefined, TaxCategory | null>;
  /** Bumped by a trigger on every update (the ETag); never written by the application. */
  version: ColumnType<string | number, never, never>;
  created_at: Generated<Date>;
  updated_at: Touched;
}
export type LeaseRow = Selectable<LeasesTable>;

export interface LeaseNoticesTable {
  id: Generated<string>;
  company_id: string;
  lease_id: string;
  given_on: CalendarDate;
  given_by: NoticeParty;
  intent: NoticeIntent;
  vacate_on: NullableCalendarDate;
  proposed_rent: NullableNumeric;
  text: string | null;
  recorded_at: Generated<Date>;
}
export type LeaseNoticeRow = Selectable<LeaseNoticesTable>;

export interface RentPaymentsTable {
  id: Generated<string>;
  company_id: string;
  lease_id: string;
  status: ColumnType<RentPaymentStatus, RentPaymentStatus | undefined, RentPaymentStatus>;
  due_on: CalendarDate;
  amount: Numeric;
  cheque_number: string | null;
  cheque_bank: string | null;
  /** The direct-debit mandate (of the same lease) the payment is collected under (migration 0038). */
  mandate_id: string | null;
  notes: string | null;
  replaces_id: string | null;
  booked_on: NullableCalendarDate;
  fee_amount: NullableNumeric;
  bounced_on: NullableCalendarDate;
  received_at: NullableTimestamp;
  bounced_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
  overdue_at: NullableTimestamp;
  /** The receipt's tax as it stood that day (migration 0044), written once with the receipt. */
  tax_category: TaxCategory | null;
  tax_rate: NullableNumeric;
  net_amount: NullableNumeric;
  vat_amount: NullableNumeric;
  fee_tax_category: TaxCategory | null;
  fee_tax_rate: NullableNumeric;
  fee_net_amount: NullableNumeric;
  fee_vat_amount: NullableNumeric;
  /** Who accounts for the rent's VAT, the company's setting at receipt (migration 0044): `owner` or `company`. */
  rent_vat_accounted_by: RentVatAccountedBy | null;
  version: ColumnType<string | number, never, never>;
  created_at: Generated<Date>;
  updated_at: Touched;
}
export type RentPaymentRow = Selectable<RentPaymentsTable>;

/** A direct-debit mandate of a lease (migration 0038): the IBAN only sealed, beside its last four characters. */
export interface RentMandatesTable {
  id: Generated<string>;
  company_id: string;
  lease_id: string;
  mandate_reference: string;
  bank_name: string;
  bank_code: string | null;
  account_holder: string | null;
  iban_jwe: string | null;
  iban_last4: string;
  max_amount: Numeric;
  starts_on: CalendarDate;
  ends_on: CalendarDate;
  status: ColumnType<RentMandateStatus, RentMandateStatus | undefined, RentMandateStatus>;
  activated_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
  rejected_at: NullableTimestamp;
  expired_at: NullableTimestamp;
  version: ColumnType<string | number, never, never>;
  created_at: Generated<Date>;
  updated_at: Touched;
}
export type RentMandateRow = Selectable<RentMandatesTable>;

/** The lease group's tables, merged into `Database` (schema/db.ts). */
export interface LeaseTables {
  leases: LeasesTable;
  lease_notices: LeaseNoticesTable;
  rent_payments: RentPaymentsTable;
  rent_mandates: RentMandatesTable;
}
