import { z } from '@hono/zod-openapi';
import { calendarDate } from '../common/api';
import { text } from '../common/text';

/** The Tourism Dirham's monthly report and its payment over to DET (issue 37; docs/api-reference.md, "The Tourism Dirham"). */

const month = z
  .string()
  .regex(/^(19\d\d|2\d\d\d)-(0[1-9]|1[0-2])$/, 'A month YYYY-MM, from 1900-01 to 2999-12.')
  .openapi({ example: '2027-02' });

export const DirhamQuery = z.strictObject({ month });
export const dirhamMonthParam = z.object({ month });

export const DirhamPaymentInput = z
  .strictObject({
    paid_on: calendarDate.openapi({ description: 'The day it was paid to DET: after the month, not after today.' }),
    reference: text().min(1).max(100).openapi({ description: 'DET’s receipt or the payment’s own reference.' }),
  })
  .openapi('TourismDirhamPaymentInput');

const money = z.string().openapi({ example: '450.00' });

export const DirhamMonthSchema = z
  .object({
    month,
    currency: z.string(),
    status: z.enum(['open', 'closed']).openapi({
      description: '`closed` (the month of the owner statements closed): the report is recorded and never changes.',
    }),
    closes_on: z.string(),
    recorded_at: z.string().nullable().openapi({ description: 'When the closed month’s report was recorded.' }),
    homes: z.array(
      z.object({
        listing_id: z.string(),
        listing: z.string().openapi({ description: 'The home’s slug.' }),
        det_class: z.enum(['standard', 'deluxe']),
        bedrooms: z.number().int(),
        per_bedroom_night: money,
        bookings: z.number().int(),
        nights: z.number().int().openapi({ description: 'The nights booked in the month that are charged.' }),
        bedroom_nights: z.number().int(),
        amount: money,
      }),
    ),
    total: money,
    payment: z
      .object({ paid_on: z.string(), reference: z.string(), paid_at: z.string() })
      .nullable()
      .openapi({ description: 'Paid over to DET (an admin action): the journal’s liability is cleared.' }),
  })
  .openapi('TourismDirhamMonth');
