import { z } from '@hono/zod-openapi';
import { date } from './homes';
import { LineTaxSchema, TaxTotalsSchema } from './tax';

/**
 * A stay's quote (`GET /listings/{slug}/quote`, a booking's `quote`, and each home of a free-dates search of
 * `GET /listings`, issue 36): shared by the stay and the catalogue.
 */

const money = z.string().openapi({ description: 'A decimal string in the company’s currency.', example: '850.00' });

export const QuoteSchema = z
  .object({
    listing: z.string(),
    check_in: date,
    check_out: date,
    guests: z.number().int(),
    currency: z.string().openapi({ example: 'AED' }),
    nights: z.array(
      z.object({
        date,
        rate: z
          .enum(['base', 'weekend', 'season', 'daily'])
          .openapi({ description: 'Which price applies to the night: `daily` is the date’s own price (its daily rate).' }),
        price: money,
        tax: LineTaxSchema.openapi({
          description: 'The night’s tax: the stay’s category (the listing’s own, else the company’s `stay`).',
        }),
      }),
    ),
    subtotal: money.openapi({ description: 'The nights together.' }),
    fees: z.array(
      z.object({
        code: z.enum(['cleaning', 'tourism_fee']),
        amount: money,
        tax: LineTaxSchema.openapi({
          description: 'The fee’s tax: `cleaning` is part of the stay, `tourism_fee` the Tourism Dirham (`tourism_dirham`).',
        }),
      }),
    ),
    total: money.openapi({ description: 'Nights and fees.' }),
    tax: TaxTotalsSchema.openapi({
      description:
        'The nights’ and fees’ net and VAT together (the deposit apart): net + vat = total. Rates of the check-in day.',
    }),
    deposit: money.openapi({ description: 'Refundable security deposit, due with the payment, not part of the total.' }),
    deposit_tax: LineTaxSchema.openapi({
      description: 'The deposit’s tax (`deposit`: out of scope unless the company says otherwise).',
    }),
    tourism_dirham: z
      .object({
        det_class: z.enum(['standard', 'deluxe']),
        bedrooms: z.number().int().openapi({ description: 'The bedrooms charged (a studio counts as one).' }),
        nights: z.number().int().openapi({ description: 'The nights charged: the stay’s first, at most 30 by default.' }),
        per_bedroom_night: money.openapi({ description: 'AED 10 (`standard`) or 15 (`deluxe`).' }),
        amount: money.openapi({ description: 'bedrooms × nights × per_bedroom_night: the `tourism_fee` line’s amount.' }),
      })
      .optional()
      .openapi({
        description:
          'A home classed by Dubai’s Department of Economy and Tourism (its terms’ `det_class`): how its Tourism Dirham, the `tourism_fee` line (outside VAT), is made up. Absent for a home without a class.',
      }),
  })
  .openapi('Quote');
