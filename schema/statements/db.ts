import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp } from '../common/columns';
import type { TaxCategory } from '../common/tax';

/** Owner statements (migration 0023), merged into `Database` (schema/db.ts). */

export const lineKinds = [
  'rent_received',
  'fee',
  'rent_reversed',
  'fee_reversed',
  'job_charge',
  'job_charge_cancelled',
  'rent_vat',
  'rent_vat_reversed',
  'booking_received',
  'booking_refunded',
] as const;
export type LineKind = (typeof lineKinds)[number];

/** Written by the database's triggers only (rent payments, job charges, bookings' online payments and refunds), never updated. */
export interface OwnerStatementLinesTable {
  id: ColumnType<string, never, never>;
  company_id: string;
  owner_id: string;
  kind: LineKind;
  /** `YYYY-MM-DD`, read as text. */
  day: ColumnType<string, string, never>;
  /** Signed: what the line does to what the company owes the owner. */
  amount: ColumnType<string, string, never>;
  currency: string;
  lease_id: string | null;
  listing_id: string;
  home: string;
  payment_id: string | null;
  charge_id: string | null;
  /** How a receipt was paid (migration 0039): `cheque`, the provider's word for an online payment, or null. */
  method: string | null;
  /** The online payment that made the receipt (migration 0039). */
  online_payment_id: string | null;
  /** The VAT in the amount, same sign (migration 0044): a receipt's rent, its VAT line, its fee and their reversals. */
  vat: ColumnType<string | null, string | null, never>;
  /** The tax category the amount was booked under (migration 0044). */
  tax_category: TaxCategory | null;
  /** The booking of a `booking_received` or `booking_refunded` line (migration 0041). */
  booking_id: string | null;
  /** The refund (`rfd_…`) of a `booking_refunded` line (migration 0041). */
  refund_id: string | null;
  recorded_at: Generated<Date>;
}

export interface OwnerStatementsTable {
  company_id: string;
  owner_id: string;
  /** The month's first day, `YYYY-MM-01`. */
  month: string;
  announced_at: NullableTimestamp;
}

export interface OwnerStatementLinksTable {
  id: Generated<string>;
  company_id: string;
  owner_id: string;
  month: string;
  language: 'en' | 'ar';
  token_hash: Uint8Array;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  created_at: Generated<Date>;
}

/** A company's month recorded closed (migration 0031): never updated, gone only with its company. */
export interface StatementClosingsTable {
  company_id: string;
  /** The month's first day, `YYYY-MM-01`. */
  month: string;
  /** The grace days it closed under: it closed on the next month's first day plus these. */
  grace_days: number;
  recorded_at: ColumnType<Date, Date | string, never>;
}

export interface StatementTables {
  owner_statement_lines: OwnerStatementLinesTable;
  owner_statements: OwnerStatementsTable;
  owner_statement_links: OwnerStatementLinksTable;
  statement_closings: StatementClosingsTable;
}
