import { z } from '@hono/zod-openapi';
import { text } from './text';

/**
 * Tax categories and the kinds of amount they are set for (issue 35, first slice; docs/api-reference.md, "Tax"). The
 * category names are ours; lib/tax.ts maps each to its UNCL5305 code as PINT AE writes it (S, Z, E, O).
 */

/** The categories of a supply under UAE VAT: standard-rated, zero-rated, exempt, outside the scope of VAT. */
export const taxCategories = ['standard', 'zero_rated', 'exempt', 'out_of_scope'] as const;
export type TaxCategory = (typeof taxCategories)[number];

/**
 * The tax of one amount (a quote's line, a booking's): its category, its rate (a percentage, "5"; null for a category
 * without one), net and VAT, decimal strings with the currency's minor digits (lib/tax.ts lineTax).
 */
export type LineTax = { category: TaxCategory; rate: string | null; net: string; vat: string };

/** The categories that carry a rate (in `tax_rates`); exempt and out-of-scope supplies carry none. */
export const ratedTaxCategories = ['standard', 'zero_rated'] as const;
export type RatedTaxCategory = (typeof ratedTaxCategories)[number];

/**
 * The kinds of amount a company sets a default category for: rent of a residential home, of a residential home's
 * first supply (within three years of its completion), of a commercial one; a holiday-home stay; the company's fees
 * and commissions; a job charge; a deposit; the Tourism Dirham.
 */
export const taxKinds = [
  'rent_residential',
  'rent_residential_first_supply',
  'rent_commercial',
  'stay',
  'fee',
  'job_charge',
  'deposit',
  'tourism_dirham',
] as const;
export type TaxKind = (typeof taxKinds)[number];

export const taxCategoryInput = z.enum(taxCategories).openapi({
  description: 'standard (5 % in the UAE), zero_rated, exempt or out_of_scope (PINT AE / UNCL5305: S, Z, E, O).',
});

/** A listing's or a lease's own category for its rent; null (or absent): the company's default for the rent's kind. */
export const taxCategoryOverride = taxCategoryInput.nullable().openapi({
  description: 'The category of its rent, over the company’s default for the rent’s kind (`tax_categories`); null: that default.',
});

/**
 * A UAE Tax Registration Number: 15 digits, starting 100 (the numbers the Federal Tax Authority gives VAT registrants)
 * and ending 03, the shape PINT AE requires of every TRN on an e-invoice (ibr-132-ae: `1XXXXXXXXXXXX03`), so a TRN
 * accepted here can always be invoiced. Anything else is 400 `invalid_trn` at the field.
 */
export const trnShape = /^100\d{10}03$/;
export const trnInput = text().refine((value) => trnShape.test(value), {
  message: 'A UAE Tax Registration Number: 15 digits starting with 100 and ending with 03.',
  params: { code: 'invalid_trn' },
});

/** The company's categories per kind of amount, each optional (merged into the current ones). */
export const TaxCategoriesInput = z
  .strictObject(Object.fromEntries(taxKinds.map((kind) => [kind, taxCategoryInput])) as Record<TaxKind, typeof taxCategoryInput>)
  .partial();

/** Who accounts for a rent's VAT (issue 35): the landlord (the company its disclosed agent) or the company (principal). */
export const rentVatAccountedBy = ['owner', 'company'] as const;
export type RentVatAccountedBy = (typeof rentVatAccountedBy)[number];

/** {@link LineTax} as the API shows it (issue 35: a quote's lines, a booking's). */
export const LineTaxSchema = z
  .object({
    category: z.enum(taxCategories),
    rate: z.string().nullable().openapi({
      description: 'The rate in force on the supply’s day, a percentage ("5"); null for exempt and out_of_scope (no VAT).',
      example: '5',
    }),
    net: z.string().openapi({ description: 'The amount without its VAT.', example: '952.38' }),
    vat: z
      .string()
      .openapi({ description: 'The VAT in the amount (it is what the payer pays, VAT included).', example: '47.62' }),
  })
  .openapi('LineTax', {
    description:
      'The tax of one amount: the amount is what the payer pays, VAT included; net + vat = the amount, VAT rounded once per line to the minor unit (half away from zero).',
  });

/** The sums of lines' net and VAT. */
export const TaxTotalsSchema = z
  .object({
    net: z.string().openapi({ description: 'The lines’ nets together.' }),
    vat: z.string().openapi({ description: 'The lines’ VAT together.' }),
  })
  .openapi('TaxTotals');
