import { z } from '@hono/zod-openapi';
import { calendarDate } from '../common/api';
import { decimalOf, percentInput } from '../common/money';
import { ratedTaxCategories, taxCategories } from '../common/tax';

/** The dated tax rates the operator keeps (admin API `/tax-rates`; docs/api-reference.md, "Tax"). */

const rated: readonly string[] = ratedTaxCategories;

export const CreateTaxRateInput = z
  .strictObject({
    category: z.enum(taxCategories).refine((category) => rated.includes(category), {
      message: 'Only standard and zero_rated carry a rate; exempt and out_of_scope carry none.',
      params: { code: 'no_rate' },
    }),
    rate: percentInput
      .refine((rate) => decimalOf(rate)?.lte(100) ?? true, { message: 'At most 100 percent.', params: { code: 'too_big' } })
      .openapi({ description: 'A percentage as a decimal string ("5" for 5 %).', example: '5' }),
    valid_from: calendarDate.openapi({
      description: 'Its first day: a day not yet reached anywhere (after today in UTC+14).',
      example: '2030-01-01',
    }),
    valid_to: calendarDate.nullable().default(null).openapi({ description: 'Its last day (included); null: open.' }),
  })
  .refine((r) => r.valid_to === null || r.valid_to >= r.valid_from, { path: ['valid_to'], message: 'On or after valid_from.' })
  .openapi('AdminTaxRateInput');

export const CloseTaxRateInput = z
  .strictObject({
    valid_to: calendarDate.openapi({
      description: 'The open rate’s last day (included): today in UTC+14 or later, so no day already used changes.',
      example: '2029-12-31',
    }),
  })
  .openapi('AdminTaxRateClose');

export const TaxRateSchema = z
  .object({
    id: z.string(),
    category: z.enum(ratedTaxCategories),
    rate: z.string().openapi({ description: 'A percentage as a decimal string ("5").', example: '5' }),
    code: z.enum(['S', 'Z']).openapi({ description: 'The category’s UNCL5305 code (PINT AE).' }),
    valid_from: z.string(),
    valid_to: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('AdminTaxRate');

export const TaxRateListSchema = z.object({ results: z.array(TaxRateSchema), next_cursor: z.null() }).openapi('AdminTaxRateList');

export const TaxRateParams = z.object({ rate_id: z.string().uuid() });
