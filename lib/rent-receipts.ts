import Big from 'big.js';
import { sql } from 'kysely';
import { todayIn } from './dates';
import { ApiError } from './errors';
import { fixedTo, storedDigits, vatOfLine } from './money';
import { chargesVatOn, rateOn, type TaxRate, taxCategoryFor } from './tax';
import type { RentVatAccountedBy, TaxCategory } from '../schema/common/tax';
import type { FeeKind } from '../schema/leases/db';
import type { CompanySettings } from '../schema/platform/db';

/**
 * A rent payment's receipt, the one way (issue 34): the PATCH of staff (functions/leases/payments.ts) and a provider's
 * settlement (lib/payments/settle.ts) both write these columns, each in its own single statement: the status
 * `received`, `booked_on` today in the company's time zone (the day it counts in the statements), `fee_amount` by the
 * lease's fee now (fixed once: the database refuses a change, migration 0011), and `received_at`.
 */

export type Fee = { kind: FeeKind; value: string };

/**
 * The company's fee on a received payment, set once at receipt: a percentage of the payment (rounded half-up), or the
 * fixed amount; no fee is zero.
 */
export function feeAmount(fee: Fee | null, amount: string, digits: number): string {
  if (fee === null) return fixedTo(0, digits);
  if (fee.kind === 'fixed') return fixedTo(fee.value, digits);
  return fixedTo(new Big(amount).times(fee.value).div(100), digits);
}

/** The lease's fee as its columns hold it (a payment's row carries them from its lease). */
export type FeeColumns = { fee_kind: FeeKind | null; fee_value: string | null };

/** The rent's own categories: its lease's and its listing's (`tax_category`, migration 0043), null for the default. */
export type TaxSources = { lease_tax_category: TaxCategory | null; listing_tax_category: TaxCategory | null };

/** The company and the rates a receipt reads its tax from (the rate table, `tax_rates`). */
export type TaxContext = { timeZone: string; settings: CompanySettings | null | undefined; rates: readonly TaxRate[] };

export type ReceiptColumns = {
  status: 'received';
  booked_on: string;
  fee_amount: string;
  received_at: Date;
  tax_category: TaxCategory;
  tax_rate: string | null;
  net_amount: string;
  vat_amount: string;
  fee_tax_category: TaxCategory;
  fee_tax_rate: string | null;
  fee_net_amount: string;
  fee_vat_amount: string;
  rent_vat_accounted_by: RentVatAccountedBy;
};

/**
 * An amount's tax on `day` (issue 35): its category's rate then (lib/tax.ts `rateOn`) and the inclusive split of the
 * amount (lib/money.ts `vatOfLine`: the amount is what the payer pays, VAT included). A category without a rate
 * (exempt, out of scope) has no VAT: net = the amount. A rated category with no rate in force that day is 409
 * `tax_rate_missing` (the operator left a gap in the rate table): nothing is received without its tax.
 */
export function taxOf(category: TaxCategory, amount: string, currency: string, rates: readonly TaxRate[], day: string) {
  const rate = rateOn(rates, category, day);
  if (rate === undefined) {
    throw new ApiError(
      'tax_rate_missing',
      `No ${category} rate is in force on ${day}: the operator adds it (admin API /tax-rates) before this is received.`,
    );
  }
  const digits = storedDigits(currency);
  if (rate === null) return { category, rate: null, net: fixedTo(amount, digits), vat: fixedTo(0, digits) };
  const split = vatOfLine(fixedTo(amount, digits), currency, rate, 'inclusive');
  return { category, rate, net: split.net, vat: split.vat };
}

/**
 * The columns a receipt of `amount` (the payment's, in `currency`) writes, at `now` in the company's time zone: the
 * day, the fee, and the tax of both as they stand that day (the rent's category by `taxCategoryFor`: the lease's, else
 * the listing's, else the company's `rent_residential`; the fee's the company's `fee`), stored once; and who accounts
 * for the rent's VAT, the company's `rent_vat_accounted_by` that day (default `owner`: the company bills the rent as the
 * landlord's disclosed agent), kept with the receipt.
 */
export function receiptColumns(
  lease: FeeColumns & TaxSources,
  amount: string,
  currency: string,
  tax: TaxContext,
  now: Date,
): ReceiptColumns {
  const fee = lease.fee_kind === null || lease.fee_value === null ? null : { kind: lease.fee_kind, value: lease.fee_value };
  const day = todayIn(tax.timeZone, now);
  const fee_amount = feeAmount(fee, amount, storedDigits(currency));
  // A company not registered for VAT that day (no TRN, or before `vat_registered_on`: lib/tax.ts `chargesVatOn`, the
  // quotes' rule) charges none: its fee is out of scope, and so is a rent it lets as principal. A rent it bills as the
  // landlord's agent keeps its category: that supply, and its registration, are the landlord's.
  const registered = chargesVatOn(tax.settings, day);
  const accountedBy = tax.settings?.rent_vat_accounted_by ?? 'owner';
  const rentCategory =
    accountedBy === 'company' && !registered
      ? 'out_of_scope'
      : taxCategoryFor({
          kind: 'rent_residential',
          settings: tax.settings,
          listing: lease.listing_tax_category,
          lease: lease.lease_tax_category,
        });
  const rent = taxOf(rentCategory, amount, currency, tax.rates, day);
  const feeCategory = registered ? taxCategoryFor({ kind: 'fee', settings: tax.settings }) : 'out_of_scope';
  const feeTax = taxOf(feeCategory, fee_amount, currency, tax.rates, day);
  return {
    status: 'received',
    booked_on: day,
    fee_amount,
    received_at: now,
    tax_category: rent.category,
    tax_rate: rent.rate,
    net_amount: rent.net,
    vat_amount: rent.vat,
    fee_tax_category: feeTax.category,
    fee_tax_rate: feeTax.rate,
    fee_net_amount: feeTax.net,
    fee_vat_amount: feeTax.vat,
    rent_vat_accounted_by: accountedBy,
  };
}

/** The rate table as a receipt reads it, in the receipt's read: every row, as `TaxRate`s (a json array). */
export const taxRatesJson = sql<TaxRate[]>`(select coalesce(json_agg(json_build_object('category', r.category,
  'rate', r.rate::text, 'valid_from', r.valid_from::text, 'valid_to', r.valid_to::text)), '[]'::json) from tax_rates r)`;
