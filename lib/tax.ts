import Big from 'big.js';
import type { CompanySettings } from '../schema/platform/db';
import {
  type LineTax,
  type RatedTaxCategory,
  ratedTaxCategories,
  type TaxCategory,
  type TaxKind,
  taxKinds,
} from '../schema/common/tax';
import { todayIn } from './dates';
import { formatAmount, vatOfLine } from './money';

/**
 * Tax categories, the company's defaults per kind of amount, and the rate in force on a day (issue 35, first slice;
 * docs/api-reference.md, "Tax"). The VAT of one line is `vatOfLine` in lib/money.ts (the one rounding rule).
 */

/**
 * Each category's code in UN/CEFACT code list 5305 ("Duty or tax or fee category code"), the list PINT AE's
 * `cac:ClassifiedTaxCategory/cbc:ID` and `cac:TaxCategory/cbc:ID` take (Peppol PINT AE, "Tax category code"): S standard
 * rate, Z zero rated goods, E exempt from tax, O services outside scope of tax.
 */
export const uncl5305: Readonly<Record<TaxCategory, 'S' | 'Z' | 'E' | 'O'>> = {
  standard: 'S',
  zero_rated: 'Z',
  exempt: 'E',
  out_of_scope: 'O',
};

/**
 * The category of each kind of amount when the company sets none, as UAE VAT treats it (Federal Decree-Law No. 8 of
 * 2017): residential rent exempt (Article 46), its first supply within three years of completion zero-rated (Article
 * 45), commercial rent, holiday-home stays, fees and commissions standard-rated; a job charge standard until the charge
 * says otherwise; a security deposit (not consideration for a supply) and the Tourism Dirham (a government fee) out of
 * scope.
 */
export const defaultTaxCategories: Readonly<Record<TaxKind, TaxCategory>> = {
  rent_residential: 'exempt',
  rent_residential_first_supply: 'zero_rated',
  rent_commercial: 'standard',
  stay: 'standard',
  fee: 'standard',
  job_charge: 'standard',
  deposit: 'out_of_scope',
  tourism_dirham: 'out_of_scope',
};

/** The company's category for every kind: its setting `tax_categories` over the defaults. */
export function companyTaxCategories(settings: CompanySettings | null | undefined): Record<TaxKind, TaxCategory> {
  const own = settings?.tax_categories ?? {};
  return Object.fromEntries(taxKinds.map((kind) => [kind, own[kind] ?? defaultTaxCategories[kind]])) as Record<
    TaxKind,
    TaxCategory
  >;
}

/** The kinds a listing's or a lease's own category replaces: its rent (a holiday home's rent is its stays). */
const rentKinds: ReadonlySet<TaxKind> = new Set(['rent_residential', 'rent_residential_first_supply', 'rent_commercial', 'stay']);

/**
 * The category of an amount: for a rent (or a stay), the lease's own category, else its listing's, else the company's
 * for the kind; for every other kind (a fee, a deposit, a job charge, the Tourism Dirham) the company's for the kind.
 */
export function taxCategoryFor(amount: {
  kind: TaxKind;
  settings: CompanySettings | null | undefined;
  listing?: TaxCategory | null;
  lease?: TaxCategory | null;
}): TaxCategory {
  if (rentKinds.has(amount.kind)) {
    const own = (amount.kind === 'stay' ? null : amount.lease) ?? amount.listing;
    if (own) return own;
  }
  return companyTaxCategories(amount.settings)[amount.kind];
}

/** A row of the rate table: its category, a percentage ("5"), its first day and last day (null: open). */
export type TaxRate = { category: RatedTaxCategory; rate: string; valid_from: string; valid_to: string | null };

export const isRated = (category: TaxCategory): category is RatedTaxCategory =>
  (ratedTaxCategories as readonly string[]).includes(category);

/**
 * The rate of a category on a day (YYYY-MM-DD): `null` for a category that carries none (exempt, out of scope: no
 * VAT), the percentage of the one row whose days hold the day, or `undefined` when none does (before the tax began,
 * or a gap the operator left).
 */
export function rateOn(rates: readonly TaxRate[], category: TaxCategory, day: string): string | null | undefined {
  if (!isRated(category)) return null;
  const row = rates.find((r) => r.category === category && r.valid_from <= day && (r.valid_to === null || day <= r.valid_to));
  return row?.rate;
}

/**
 * The last day some company may already have used: today where the day begins first (UTC+14, Kiribati's Line
 * Islands). A day after it has been reached nowhere, so a rate may still start (or an open rate end the day before);
 * one on or before it may already stand on an amount, and never changes.
 */
export function lastUsableDay(now: Date): string {
  return todayIn('Etc/GMT-14', now);
}

/**
 * The tax rate names the journal CSVs give a supply's rows when the company maps none (`accounting_tax_rates`): the
 * names the issue proposes. Neither Xero nor Intuit publishes a UAE list we could read (docs/api-reference.md, "Tax"):
 * assumed, and each company maps the names its own ledger has.
 */
export const defaultAccountingTaxRates: Readonly<Record<TaxCategory, string>> = {
  standard: 'Standard Rated (5%)',
  zero_rated: 'Zero Rated',
  exempt: 'Exempt',
  out_of_scope: 'No VAT',
};

/** The company's tax rate name of a category in the journal CSVs: its mapping over the defaults. */
export function accountingTaxRate(settings: CompanySettings | null | undefined, category: TaxCategory): string {
  return settings?.accounting_tax_rates?.[category] ?? defaultAccountingTaxRates[category];
}

/**
 * Whether the company charges VAT on a supply made on `day` (YYYY-MM-DD): it has a TRN, and its registration took
 * effect on or before the day (no registration day: since before any day asked). A supplier that is not registered
 * charges no VAT (Federal Decree-Law No. 8 of 2017, Article 2: the tax is on taxable supplies a Taxable Person makes;
 * Article 65: a Registrant issues the tax invoice, and an amount collected as tax is owed to the Authority), so its
 * every amount is `out_of_scope` (issue 35; docs "Tax", "Amounts with their tax").
 */
export function chargesVatOn(settings: CompanySettings | null | undefined, day: string): boolean {
  if (!settings?.trn) return false;
  const from = settings.vat_registered_on;
  return !from || from <= day;
}

/**
 * The tax of one amount the payer pays (VAT-inclusive, docs "Tax"): split by vatOfLine at `rate` for a rated category,
 * else all net and no VAT. Amounts with the currency's minor digits.
 */
export function lineTax(amount: string, currency: string, category: TaxCategory, rate: string | null): LineTax {
  if (rate === null) return { category, rate, net: formatAmount(amount, currency), vat: formatAmount(0, currency) };
  const { net, vat } = vatOfLine(formatAmount(amount, currency), currency, rate, 'inclusive');
  return { category, rate: new Big(rate).toString(), net, vat };
}

/** The sums of lines' net and VAT (each line rounded on its own: the totals are exact sums). */
export function taxTotals(lines: ReadonlyArray<Pick<LineTax, 'net' | 'vat'>>, currency: string): { net: string; vat: string } {
  const sum = (pick: (line: Pick<LineTax, 'net' | 'vat'>) => string) =>
    formatAmount(
      lines.reduce((total, line) => total.plus(pick(line)), new Big(0)),
      currency,
    );
  return { net: sum((l) => l.net), vat: sum((l) => l.vat) };
}
