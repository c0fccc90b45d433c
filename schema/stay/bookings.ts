import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { containsCardNumber } from '../common/card-numbers';
import { forbiddenKind } from '../common/forbidden-keys';
import { queryInteger } from '../common/api';
import { date, weekday } from '../common/homes';
import { formGuardFields, leadFormFields } from '../common/forms';
import { SentDetailsSchema } from '../common/lead-shape';
import { requireEmailOrPhone } from '../common/people';
import { TaxTotalsSchema } from '../common/tax';
import { QuoteSchema } from '../common/quote';

const money = z.string().openapi({ description: 'A decimal string in the company’s currency.', example: '850.00' });
const time = z.string().openapi({ description: 'A local time, HH:MM.', example: '15:00' });

export const slugParam = z.object({
  slug: text()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'slug', in: 'path' }, example: 'palm-5br-villa-private-beach-holiday' }),
});

/** What a holiday home takes: shown by availability and applied by quotes and bookings. */
const rules = {
  min_nights: z.number().int(),
  max_nights: z.number().int(),
  closed_arrival_days: z.array(weekday).openapi({ description: 'Weekdays on which no stay may start; 0 is Monday, 6 Sunday.' }),
  advance_days: z.number().int().openapi({ description: 'A stay may start at most this many days after today.' }),
  notice_hours: z
    .number()
    .int()
    .openapi({ description: 'A stay may start no sooner than this many hours from now (at check-in time).' }),
  available_from: date.nullable(),
  available_to: date.nullable().openapi({ description: 'The last night that can be booked is the one before this date.' }),
  check_in_time: time,
  check_out_time: time,
};

export const AvailabilityQuery = z.strictObject({
  from: date.optional().openapi({ description: 'First day of the window; default today.' }),
  to: date
    .optional()
    .openapi({ description: 'Day after the window (exclusive); default a year after `from`. At most 400 days after `from`.' }),
});

export const AvailabilitySchema = z
  .object({
    listing: z.string().openapi({ description: 'The English slug.' }),
    from: date,
    to: date,
    blocked: z
      .array(z.object({ start: date, end: date }))
      .openapi({ description: 'Nights that cannot be booked: start inclusive, end exclusive, merged, within the window.' }),
    ...rules,
    restrictions: z
      .array(
        z.object({
          starts_on: date,
          ends_on: date.openapi({ description: 'The day after the last date of the range.' }),
          min_nights: z
            .number()
            .int()
            .nullable()
            .openapi({ description: 'Stays arriving on these dates: at least (null: `min_nights`).' }),
          max_nights: z
            .number()
            .int()
            .nullable()
            .openapi({ description: 'Stays arriving on these dates: at most (null: `max_nights`).' }),
          closed_to_arrival: z.boolean(),
          closed_to_departure: z.boolean(),
        }),
      )
      .openapi({
        description:
          'Dates of the window with a stay rule of their own (daily rates, issue 37), over the terms above: consecutive dates with the same rule merged. Closed nights are in `blocked`; prices are in quotes.',
      }),
  })
  .openapi('Availability');

export const QuoteQuery = z.strictObject({
  check_in: date,
  check_out: date,
  guests: queryInteger(1, 1000),
});

export { QuoteSchema };

const bookingFields = {
  listing: text().min(1).max(200).openapi({ description: 'Slug (any language) of a published holiday home.' }),
  check_in: date,
  check_out: date,
  guests: z.number().int().min(1).max(1000),
  name: text().trim().min(1).max(200),
  email: leadFormFields.email,
  phone: leadFormFields.phone,
  message: leadFormFields.message,
  language: leadFormFields.language,
  consent: leadFormFields.consent,
  consent_version: leadFormFields.consent_version,
  ...formGuardFields,
};

/**
 * A booking request. Nothing else is taken: a field for payment details or an identity document (in any
 * spelling, as in lead details) is refused as such, any other unknown field as unknown, and a card number in
 * the message is refused.
 */
export const BookingInput = z
  .object(bookingFields)
  .catchall(z.unknown())
  .superRefine((input, ctx) => {
    for (const key of Object.keys(input)) {
      if (key in bookingFields) continue;
      const kind = forbiddenKind(key);
      const refused = kind === 'payment' || kind === 'identity' || kind === 'secret';
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: refused
          ? 'Payment details and identity documents are never taken with a booking request.'
          : `Unknown field or parameter "${key}".`,
        params: { code: refused ? 'forbidden_key' : 'unknown_field' },
      });
    }
    requireEmailOrPhone(input, ctx);
    if (input.message !== undefined && containsCardNumber(input.message)) {
      ctx.addIssue({
        code: 'custom',
        path: ['message'],
        message: 'A card number may not be sent; nothing is paid with the request.',
        params: { code: 'card_number' },
      });
    }
  })
  .openapi('BookingInput');

export type BookingInputValue = Omit<z.infer<typeof BookingInput>, never>;
const bookingRequestFields = z.object(bookingFields);
/** A booking request's known fields (what `BookingInput` lets through besides the refused unknown ones). */
export type BookingRequestValue = z.infer<typeof bookingRequestFields>;

export const BookingAnswer = z
  .object({
    reference: z.string().openapi({ example: 'B-7K3M9Q2XAB' }),
    status: z.literal('held'),
    listing: z.string(),
    check_in: date,
    check_out: date,
    guests: z.number().int(),
    hold_expires_at: z.string().openapi({ description: 'Staff confirm before this instant, or the request lapses.' }),
    stay_url: z.string().url().openapi({ description: "The guest's own page on the company's host: status, quote and payment." }),
    quote: QuoteSchema,
  })
  .openapi('BookingRequested');

export const AdminBookingSchema = z
  .object({
    reference: z.string(),
    status: z.enum(['held', 'confirmed', 'paid', 'cancelled']),
    listing: z.string().openapi({ description: 'The English slug.' }),
    listing_id: z.string(),
    person: z.string().nullable().openapi({ description: "The guest's contact reference." }),
    sent: SentDetailsSchema,
    check_in: date,
    check_out: date,
    guests: z.number().int(),
    language: z.string().nullable(),
    message: z.string().nullable(),
    quote: z.record(z.string(), z.unknown()),
    total: money,
    tax: TaxTotalsSchema.nullable().openapi({
      description:
        'The total’s net and VAT as quoted when the booking was requested (each line’s in `quote`), never recomputed; null for a booking requested before amounts carried their tax.',
    }),
    deposit: money,
    currency: z.string(),
    hold_expires_at: z.string(),
    confirmed_at: z.string().nullable(),
    payment_due_at: z.string().nullable(),
    paid_at: z.string().nullable(),
    cancelled_at: z.string().nullable(),
    cancel_reason: z
      .enum(['staff', 'guest', 'hold_expired', 'payment_overdue'])
      .nullable()
      .openapi({ description: '`guest`: the guest cancelled on the stay page.' }),
    payment_terms: z
      .object({
        booking_deposit: money.openapi({ description: 'The deposit payable on the stay page while held (0: none).' }),
        balance_due_days: z.number().int().nullable(),
        deposit_confirms: z.boolean(),
        free_cancellation_days: z.number().int(),
        late_cancellation_refund_percent: z.number().int(),
      })
      .openapi({ description: 'The home’s payment terms when the booking was requested, kept with it (issue 34).' }),
    balance_due_at: z
      .string()
      .nullable()
      .openapi({ description: 'When the balance became what is due (`booking.balance_due` was sent); null before.' }),
    consent: z.object({ version: z.string(), at: z.string(), address: z.string().nullable() }),
    caused_by: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('AdminBooking');

export const BlockInput = z
  .strictObject({
    reason: z.enum(['owner', 'maintenance']),
    starts_on: date,
    ends_on: date.openapi({ description: 'The day after the last blocked night.' }),
    note: text().max(500).default(''),
  })
  .refine((b) => b.ends_on > b.starts_on, { path: ['ends_on'], message: 'After starts_on.' });

export type BlockValue = z.infer<typeof BlockInput>;

export const BlockSchema = z
  .object({
    id: z.string().nullable().openapi({
      description:
        'The block’s id (for `DELETE`); null for `turnover`, which is computed from the home’s `turnover_days`, not kept.',
    }),
    reason: z.enum(['owner', 'maintenance', 'imported', 'turnover']).openapi({
      description:
        'Why the nights are blocked: `owner` and `maintenance` (staff blocks; a maintenance job’s block too), `imported` (a channel’s calendar: `channel`), `turnover` (the home’s `turnover_days` after a stay: `follows`).',
    }),
    channel: z.string().nullable().openapi({
      description: 'The channel an imported block came from, or of the imported stay a turnover follows; null otherwise.',
    }),
    starts_on: date,
    ends_on: date,
    note: z.string(),
    follows: z.string().nullable().openapi({
      description:
        'For `turnover`: the stay it follows, a booking’s reference (`B-…`) or an imported block’s `id`; null otherwise.',
    }),
  })
  .openapi('AdminCalendarBlock');
