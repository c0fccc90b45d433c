import type { z } from '@hono/zod-openapi';
import Big from 'big.js';
import { sql } from 'kysely';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { type ExternalLink, externalIdsColumn, shownExternalIds } from '../../lib/external-ids';
import { amountOut } from '../../lib/money';
import type { FeeKind, RentPaymentRow } from '../../schema/leases/db';
import type { TaxCategory } from '../../schema/common/tax';
import type { RentPaymentSchema } from '../../schema/leases/rent-payments';

export type RentPaymentView = z.infer<typeof RentPaymentSchema>;

/** A payment row as selectPayments gives it: with its lease's reference and fee, the currency and its external ids. */
export type RentPaymentRecord = RentPaymentRow & {
  lease_reference: string;
  fee_kind: FeeKind | null;
  fee_value: string | null;
  lease_tax_category: TaxCategory | null;
  listing_tax_category: TaxCategory | null;
  currency: string;
  external: ExternalLink[];
};

/** A payment row's own columns as a write statement returns them (`alias.*`, dates, money and version as text). */
export const paymentColumns = (alias: string) =>
  sql.raw(`${alias}.*, ${alias}.due_on::text as due_on, ${alias}.amount::text as amount,
    ${alias}.booked_on::text as booked_on, ${alias}.fee_amount::text as fee_amount,
    ${alias}.bounced_on::text as bounced_on, ${alias}.version::text as version,
    ${alias}.tax_rate::text as tax_rate, ${alias}.net_amount::text as net_amount, ${alias}.vat_amount::text as vat_amount,
    ${alias}.fee_tax_rate::text as fee_tax_rate, ${alias}.fee_net_amount::text as fee_net_amount,
    ${alias}.fee_vat_amount::text as fee_vat_amount`);

/**
 * A company's rent payments with what their answer shows joined: the lease's reference and fee, the company's
 * currency, the external ids. Dates, money and the version as text. One statement for a page.
 */
export function selectPayments(executor: Executor, companyId: string) {
  return executor
    .selectFrom('rent_payments')
    .innerJoin('leases as lease', 'lease.id', 'rent_payments.lease_id')
    .innerJoin('companies as company', 'company.id', 'rent_payments.company_id')
    .innerJoin('listings as listing', 'listing.id', 'lease.listing_id')
    .selectAll('rent_payments')
    .select([
      sql<string>`rent_payments.due_on::text`.as('due_on'),
      sql<string>`rent_payments.amount::text`.as('amount'),
      sql<string | null>`rent_payments.booked_on::text`.as('booked_on'),
      sql<string | null>`rent_payments.fee_amount::text`.as('fee_amount'),
      sql<string | null>`rent_payments.bounced_on::text`.as('bounced_on'),
      sql<string>`rent_payments.version::text`.as('version'),
      sql<string | null>`rent_payments.tax_rate::text`.as('tax_rate'),
      sql<string | null>`rent_payments.net_amount::text`.as('net_amount'),
      sql<string | null>`rent_payments.vat_amount::text`.as('vat_amount'),
      sql<string | null>`rent_payments.fee_tax_rate::text`.as('fee_tax_rate'),
      sql<string | null>`rent_payments.fee_net_amount::text`.as('fee_net_amount'),
      sql<string | null>`rent_payments.fee_vat_amount::text`.as('fee_vat_amount'),
      'lease.tax_category as lease_tax_category',
      'listing.tax_category as listing_tax_category',
      'lease.reference as lease_reference',
      'lease.fee_kind as fee_kind',
      sql<string | null>`lease.fee_value::text`.as('fee_value'),
      'company.currency as currency',
      externalIdsColumn('rent_payment', 'rent_payments.id').as('external'),
    ])
    .where('rent_payments.company_id', '=', companyId);
}

/**
 * A receipt's tax as it was stored that day (migration 0044): category, rate (a percentage, null when the category
 * carries none), net and VAT; null before the receipt (and on receipts made before VAT was recorded).
 */
function taxShown(category: TaxCategory | null, rate: string | null, net: string | null, vat: string | null, currency: string) {
  if (category === null || net === null || vat === null) return null;
  return {
    category,
    rate: rate === null ? null : new Big(rate).toString(),
    net: amountOut(net, currency) as string,
    vat: amountOut(vat, currency) as string,
  };
}

/** A rent payment as the API shows it (no query: its external ids are in its row). */
export function presentPayment(row: RentPaymentRecord): RentPaymentView {
  const { currency } = row;
  return {
    payment_id: row.id,
    lease: row.lease_reference,
    status: row.status,
    due_on: row.due_on,
    amount: amountOut(row.amount, currency) as string,
    method: row.mandate_id !== null ? 'direct_debit' : row.cheque_number !== null ? 'cheque' : null,
    cheque: row.cheque_number === null || row.cheque_bank === null ? null : { number: row.cheque_number, bank: row.cheque_bank },
    direct_debit: row.mandate_id === null ? null : { mandate: row.mandate_id },
    notes: row.notes,
    replaces: row.replaces_id,
    booked_on: row.booked_on,
    fee_amount: amountOut(row.fee_amount, currency),
    tax: taxShown(row.tax_category, row.tax_rate, row.net_amount, row.vat_amount, currency),
    fee_tax: taxShown(row.fee_tax_category, row.fee_tax_rate, row.fee_net_amount, row.fee_vat_amount, currency),
    rent_vat_accounted_by: row.rent_vat_accounted_by,
    bounced_on: row.bounced_on,
    received_at: iso(row.received_at),
    bounced_at: iso(row.bounced_at),
    cancelled_at: iso(row.cancelled_at),
    overdue_at: iso(row.overdue_at),
    external: shownExternalIds(row.external),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
