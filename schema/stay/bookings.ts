import { z } from '@hono/zod-openapi';
import { containsCardNumber } from '../common/card-numbers';
import { forbiddenKind } from '../common/forbidden-keys';
import { calendarDate, queryInteger } from '../common/api';
import { formGuardFields, leadFormFields } from '../crm/leads';

const date = calendarDate.openapi({
  description: 'A calendar date, YYYY-MM-DD, in the company’s time zone; from 1900-01-01 to 2999-12-31.',
});
const money = z.string().openapi({ description: 'A decimal string in the company’s currency.', example: '850.00' });
const time = z.string().openapi({ description: 'A local time, HH:MM.', example: '15:00' });
const weekday = z.number().int().min(0).max(6);

export const slugParam = z.object({
  slug: z
    .string()
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
  })
  .openapi('Availability');

export const QuoteQuery = z.strictObject({
  check_in: date,
  check_out: date,
  guests: queryInteger(1, 1000),
});

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
        rate: z.enum(['base', 'weekend', 'season']).openapi({ description: 'Which price applies to the night.' }),
        price: money,
      }),
    ),
    subtotal: money.openapi({ description: 'The nights together.' }),
    fees: z.array(
      z.object({
        code: z.enum(['cleaning', 'tourism_fee']),
        amount: money,
      }),
    ),
    total: money.openapi({ description: 'Nights and fees.' }),
    deposit: money.openapi({ description: 'Refundable security deposit, due with the payment, not part of the total.' }),
  })
  .openapi('Quote');

const bookingFields = {
  listing: z.string().min(1).max(200).openapi({ description: 'Slug (any language) of a published holiday home.' }),
  check_in: date,
  check_out: date,
  guests: z.number().int().min(1).max(1000),
  name: z.string().trim().min(1).max(200),
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
    if (input.email === undefined && input.phone === undefined) {
      ctx.addIssue({ code: 'custom', path: ['email'], message: 'Send at least one of email or phone.' });
    }
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

const decimal = z.string().regex(/^\d{1,12}(\.\d{1,2})?$/, 'A decimal string such as "1250.00".');
const days = z.array(weekday).max(7);
const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'A time HH:MM.');

/** A holiday home's booking terms, as the catalogue import and the admin API write them (defaults as the database). */
export const HomeTermsInput = z
  .strictObject({
    min_nights: z.number().int().min(1).max(365).default(1),
    max_nights: z.number().int().min(1).max(1000).default(90),
    closed_arrival_days: days.default([]),
    advance_days: z.number().int().min(1).max(1000).default(365),
    notice_hours: z.number().int().min(0).max(8760).default(24),
    available_from: date.nullable().default(null),
    available_to: date.nullable().default(null),
    check_in_time: clock.default('15:00'),
    check_out_time: clock.default('11:00'),
    weekend_nights: days
      .default([4, 5])
      .openapi({ description: 'Nights priced at weekend rates; 0 is Monday (default Friday and Saturday nights).' }),
    weekend_price: decimal.nullable().default(null),
    cleaning_fee: decimal.default('0'),
    tourism_fee_per_bedroom_night: decimal.default('0'),
    tourism_fee_max_nights: z.number().int().min(0).max(1000).default(30),
    deposit: decimal.default('0'),
    payment_window_hours: z.number().int().min(1).max(2160).default(48),
    seasons: z
      .array(
        z.strictObject({
          name: z.string().max(100).default(''),
          starts_on: date,
          ends_on: date.openapi({ description: 'The day after the last night of the season.' }),
          nightly_price: decimal,
          weekend_price: decimal.nullable().default(null),
        }),
      )
      .max(100)
      .default([]),
  })
  .superRefine((t, ctx) => {
    if (t.max_nights < t.min_nights) ctx.addIssue({ code: 'custom', path: ['max_nights'], message: 'At least min_nights.' });
    if (t.available_from && t.available_to && t.available_to <= t.available_from) {
      ctx.addIssue({ code: 'custom', path: ['available_to'], message: 'After available_from.' });
    }
    const sorted = t.seasons.map((s, i) => ({ ...s, i })).sort((a, b) => (a.starts_on < b.starts_on ? -1 : 1));
    sorted.forEach((s, n) => {
      if (s.ends_on <= s.starts_on)
        ctx.addIssue({ code: 'custom', path: ['seasons', s.i, 'ends_on'], message: 'After starts_on.' });
      const next = sorted[n + 1];
      if (next && next.starts_on < s.ends_on) {
        ctx.addIssue({ code: 'custom', path: ['seasons', next.i, 'starts_on'], message: 'Seasons may not overlap.' });
      }
    });
  })
  .openapi('HomeTermsInput');

export type HomeTermsValue = z.infer<typeof HomeTermsInput>;

export const AdminBookingSchema = z
  .object({
    reference: z.string(),
    status: z.enum(['held', 'confirmed', 'paid', 'cancelled']),
    listing: z.string().openapi({ description: 'The English slug.' }),
    listing_id: z.string(),
    person: z.string().nullable().openapi({ description: "The guest's contact reference." }),
    check_in: date,
    check_out: date,
    guests: z.number().int(),
    language: z.string().nullable(),
    message: z.string().nullable(),
    quote: z.record(z.string(), z.unknown()),
    total: money,
    deposit: money,
    currency: z.string(),
    hold_expires_at: z.string(),
    confirmed_at: z.string().nullable(),
    payment_due_at: z.string().nullable(),
    paid_at: z.string().nullable(),
    cancelled_at: z.string().nullable(),
    cancel_reason: z.enum(['staff', 'hold_expired', 'payment_overdue']).nullable(),
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
    note: z.string().max(500).default(''),
  })
  .refine((b) => b.ends_on > b.starts_on, { path: ['ends_on'], message: 'After starts_on.' });

export const BlockSchema = z
  .object({ id: z.string(), reason: z.enum(['owner', 'maintenance']), starts_on: date, ends_on: date, note: z.string() })
  .openapi('AdminCalendarBlock');
