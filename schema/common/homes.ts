import { z } from '@hono/zod-openapi';
import { text } from './text';
import { decimalInput } from './money';
import { calendarDate } from './api';

/** A holiday home's terms: written by the catalogue import and by the stay group's admin routes. */

export const date = calendarDate.openapi({
  description: 'A calendar date, YYYY-MM-DD, in the company’s time zone; from 1900-01-01 to 2999-12-31.',
});
export const weekday = z.number().int().min(0).max(6);

const decimal = decimalInput;
const days = z.array(weekday).max(7);
const clock = text().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'A time HH:MM.');

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
    det_class: z.enum(['standard', 'deluxe']).nullable().default(null).openapi({
      description:
        'The home’s class with Dubai’s Department of Economy and Tourism (issue 37): `standard` charges the Tourism Dirham at AED 10 per bedroom per night, `deluxe` AED 15 (a studio counts as one bedroom), for at most `tourism_fee_max_nights` nights, in place of `tourism_fee_per_bedroom_night`. Only for a company whose currency is AED. Null (default): not classed; `tourism_fee_per_bedroom_night` applies.',
    }),
    deposit: decimal.default('0'),
    payment_window_hours: z.number().int().min(1).max(2160).default(48),
    turnover_days: z.number().int().min(0).max(7).default(0).openapi({
      description:
        'Nights kept free after each stay (a booking that holds its dates, or a stay imported from a channel’s calendar) for cleaning, 0 to 7 (default 0). A stay may not start within another’s turnover, nor end so that its own turnover reaches the next stay. Computed when the calendar is read, so a change applies at once to the stays already taken; availability and the iCalendar export show the nights as blocked ranges, the admin API’s blocks with reason `turnover`.',
    }),
    booking_deposit_percent: z.number().int().min(0).max(100).nullable().default(null).openapi({
      description:
        'A deposit of this percent of the stay’s total (a whole number, 0 to 100), payable on the guest’s stay page at once, while the dates are held (issue 34). Null (default): no deposit. At most one of booking_deposit_percent and booking_deposit_amount.',
    }),
    booking_deposit_amount: decimal.nullable().default(null).openapi({
      description:
        'A deposit of this amount of the company’s currency (its own digits), payable on the stay page while the dates are held; at most the amount due. Null (default): no deposit.',
    }),
    balance_due_days: z.number().int().min(0).max(365).nullable().default(null).openapi({
      description:
        'The balance is due this many days before arrival (midnight of the check-in day, the company’s time zone), and never sooner than payment_window_hours after it became due. Null (default): the balance (or everything, without a deposit) is due within payment_window_hours once it is what is due.',
    }),
    deposit_confirms: z.boolean().default(false).openapi({
      description:
        'True: a deposit paid while the dates are held confirms the booking without staff (`booking.confirmed`). False (default): the booking stays held until staff confirm it.',
    }),
    free_cancellation_days: z.number().int().min(0).max(365).default(0).openapi({
      description:
        'A cancellation at least this many days before arrival refunds everything paid (default 0: until the check-in day).',
    }),
    late_cancellation_refund_percent: z.number().int().min(0).max(100).default(100).openapi({
      description:
        'A later cancellation refunds this percent (0 to 100) of the stay’s total paid; the refundable deposit is refunded in full. Default 100.',
    }),
    seasons: z
      .array(
        z.strictObject({
          name: text().max(100).default(''),
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
    if (t.booking_deposit_percent !== null && t.booking_deposit_amount !== null) {
      ctx.addIssue({
        code: 'custom',
        path: ['booking_deposit_amount'],
        message: 'A deposit is a percent or an amount, not both: booking_deposit_percent is set.',
      });
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
