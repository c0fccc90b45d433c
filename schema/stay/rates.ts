import { z } from '@hono/zod-openapi';
import { date } from '../common/homes';
import { decimalInput } from '../common/money';
import { text } from '../common/text';
import { WarningSchema } from '../common/warnings';

/** Daily rates and restrictions of a holiday home (issue 37; docs/api-reference.md, "Daily rates"). */

const stayNights = z.number().int().min(1).max(365);

const ruleFields = {
  price: decimalInput.nullable().default(null).openapi({
    description: 'The price of each night, in the company’s currency; null: the seasonal, weekend or base price.',
  }),
  min_nights: stayNights.nullable().default(null).openapi({
    description: 'Stays arriving on one of these dates take at least this many nights; null: the home’s `min_nights`.',
  }),
  max_nights: stayNights.nullable().default(null).openapi({
    description: 'Stays arriving on one of these dates take at most this many nights; null: the home’s `max_nights`.',
  }),
  closed_to_arrival: z.boolean().default(false).openapi({ description: 'No stay may start on these dates.' }),
  closed_to_departure: z.boolean().default(false).openapi({ description: 'No stay may end (check out) on these dates.' }),
  closed: z.boolean().default(false).openapi({ description: 'No stay may use these nights: shown as blocked.' }),
};

/** One range of nights and its rule, as written: every night of [starts_on, ends_on) gets exactly this rule. */
export const RateRangeInput = z
  .strictObject({
    starts_on: date,
    ends_on: date.openapi({ description: 'The day after the last night of the range.' }),
    ...ruleFields,
  })
  .openapi('RateRangeInput');

export const RatesInput = z
  .strictObject({
    rates: z.array(RateRangeInput).min(1).max(730).openapi({
      description:
        'Ranges of nights, none overlapping another, within today and 730 days ahead and 730 nights from the first to the last. Each night of a range takes the range’s rule and loses any it had; a rule with no price, no stay limits and no restriction removes the nights’ own rules.',
    }),
  })
  .openapi('RatesInput');

export type RatesValue = z.infer<typeof RatesInput>;
export type RateRangeValue = z.infer<typeof RateRangeInput>;

export const RateRangeSchema = z
  .object({
    starts_on: z.string(),
    ends_on: z.string().openapi({ description: 'The day after the last night.' }),
    price: z.string().nullable(),
    min_nights: z.number().int().nullable(),
    max_nights: z.number().int().nullable(),
    closed_to_arrival: z.boolean(),
    closed_to_departure: z.boolean(),
    closed: z.boolean(),
  })
  .openapi('RateRange', { description: 'Consecutive nights with the same own rule.' });

export const RatesSchema = z
  .object({
    listing: z.string().openapi({ description: 'The home’s English slug.' }),
    from: z.string(),
    to: z.string(),
    rates: z.array(RateRangeSchema).openapi({ description: 'The nights of [from, to) that have a rule of their own.' }),
  })
  .openapi('Rates');

export const RatesQuery = z.strictObject({
  from: date.optional().openapi({ description: 'The first night; default today (the company’s zone).' }),
  to: date.optional().openapi({ description: 'The day after the last night; default 365 days after `from`, at most 730.' }),
});

export const RatesChangedSchema = z
  .object({
    listing: z.string(),
    starts_on: z.string().openapi({ description: 'The first night changed.' }),
    ends_on: z.string().openapi({ description: 'The day after the last night changed.' }),
    nights: z.number().int().openapi({ description: 'The nights written.' }),
    warnings: z.array(WarningSchema).openapi({
      description:
        '`rates_over_booking`: a closed night is held by a booking (named); the booking is kept, no new stay may use the night.',
    }),
  })
  .openapi('RatesChanged');

/**
 * A pricing tool's push (PriceLabs' daily entries, docs/api-reference.md "Pricing tools"): one home, its nights by date.
 */
export const RatePushDay = z.strictObject({
  date,
  price: z
    .union([z.number().nonnegative().max(1e11), decimalInput])
    .openapi({ description: 'The night’s price in the company’s currency (a number or a decimal string).' }),
  min_stay: stayNights.nullable().optional(),
  max_stay: stayNights.nullable().optional(),
  check_in: z.boolean().default(true).openapi({ description: 'False: closed to arrival.' }),
  check_out: z.boolean().default(true).openapi({ description: 'False: closed to departure.' }),
  unbookable: z.boolean().default(false).openapi({ description: 'True: closed.' }),
});

export const RatePush = z
  .strictObject({
    listing_id: text().min(1).max(200).openapi({ description: 'The home: its slug (English or Arabic) or its id.' }),
    currency: z.string().length(3).optional().openapi({ description: 'When sent, the company’s currency.' }),
    data: z.array(RatePushDay).min(1).max(730),
  })
  .openapi('RatePush');

export type RatePushValue = z.infer<typeof RatePush>;

export const RatePushReceipt = z
  .object({
    listing: z.string(),
    push_id: z.string().openapi({ description: 'The tool’s own id of the push (its `webhook-id`).' }),
    recorded: z.boolean().openapi({ description: 'False: a repeat of a push already recorded; nothing changed.' }),
    nights: z.number().int(),
    warnings: z.array(WarningSchema),
  })
  .openapi('RatePushReceipt');

export const PricingToolInput = z
  .strictObject({
    tool: text()
      .min(1)
      .max(40)
      .regex(/^[a-z0-9_-]+$/, 'Lower-case letters, digits, - and _.')
      .openapi({ description: 'The tool, e.g. `pricelabs`: the pushes are caused by `inbound:<tool>`.' }),
    secret: text()
      .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, 'A Standard Webhooks secret: whsec_ and base64.')
      .openapi({ description: 'The secret the tool signs its pushes with (Standard Webhooks), never shown again.' }),
  })
  .openapi('PricingToolInput');

export const PricingToolSchema = z.object({ tool: z.string().nullable(), configured: z.boolean() }).openapi('PricingTool');
