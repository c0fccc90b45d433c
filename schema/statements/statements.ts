import { z } from '@hono/zod-openapi';
import { listOf, pageQuery } from '../common/api';
import { lineKinds } from './db';

/** Owner statements (issue 27; docs/api-reference.md, "Owner statements and the accounting journal"). */

/** A month `YYYY-MM` from 1900-01 to 2999-12. */
export const monthInput = z
  .string()
  .regex(/^(19\d\d|2\d\d\d)-(0[1-9]|1[0-2])$/, 'A month YYYY-MM, from 1900-01 to 2999-12.')
  .openapi({ example: '2027-02' });
export const ownerReference = z
  .string()
  .min(1)
  .max(100)
  .openapi({ description: 'The owner’s contact reference (`P-…`).', example: 'P-4F7KQ2M9XA' });
export const languages = ['en', 'ar'] as const;

const day = z.string().openapi({ description: 'YYYY-MM-DD, in the company’s time zone.', example: '2027-02-03' });
const money = (description: string) => z.string().openapi({ description, example: '10000.00' });
const status = z.enum(['open', 'closed']).openapi({
  description:
    '`closed` from `closes_on` on (the month is over and the company’s `statement_grace_days` have passed): recorded when it happens, it never changes and stays closed whatever the settings say later. An `open` month is still being booked.',
});

export const StatementQuery = z.strictObject({ owner: ownerReference, month: monthInput });

export const StatementLineSchema = z
  .object({
    kind: z.enum(lineKinds).openapi({
      description:
        '`rent_received` (by `booked_on`), `fee` (the company’s fee fixed at receipt), `rent_reversed` and `fee_reversed` (a bounce after the receipt, by `bounced_on`), `job_charge` (a charge booked to the owner, by `booked_on`), `job_charge_cancelled` (by `cancelled_on`), `booking_received` (a holiday home’s booking paid online: what the guest paid, on the day the payment was booked), `booking_refunded` (a refund of it the provider made: the refunded amount, on the refund’s day).',
    }),
    day,
    amount: money('Signed, in the line’s currency: positive adds to what the company owes the owner, negative takes from it.'),
    currency: z.string().openapi({ example: 'AED' }),
    lease: z
      .string()
      .nullable()
      .openapi({ description: 'The lease (`T-…`); a charge on a job of a home not let, and a booking’s line: null.' }),
    home: z.string().openapi({ description: 'The home’s English slug when the line was booked.' }),
    payment_id: z.string().nullable().openapi({ description: 'The rent payment of a rent or fee line.' }),
    charge_id: z.string().nullable().openapi({ description: 'The job charge of a charge line.' }),
    job: z.string().nullable().openapi({ description: 'The job (`J-…`) of a charge line.' }),
    method: z.string().nullable().openapi({
      description:
        'How the rent of a `rent_received` line (and its `rent_reversed`) was paid, as recorded with the receipt: `cheque` (staff recorded it with a cheque), the provider’s word for a payment online (`card`, `bank_transfer`, …, or `online` when it said none), or null (recorded by staff without a cheque) and on other lines. A booking’s line: how the guest paid online (the provider’s word, or `online`).',
      example: 'card',
    }),
    online_payment: z.string().nullable().openapi({
      description:
        'The online payment (`pay_…`) that made the receipt: rent paid at a payment link; on a booking’s line, the booking’s payment (its deposit or balance).',
    }),
    booking: z
      .string()
      .nullable()
      .openapi({ description: 'The booking’s reference of a `booking_received` or `booking_refunded` line; null on others.' }),
    refund: z.string().nullable().openapi({ description: 'The refund (`rfd_…`) of a `booking_refunded` line; null on others.' }),
  })
  .openapi('OwnerStatementLine');

export const StatementTotalsSchema = z
  .object({
    currency: z.string().openapi({ example: 'AED' }),
    rent_received: money('Sum of `rent_received` lines.'),
    rent_reversed: money('Sum of `rent_reversed` lines, as a positive amount.'),
    fees: money('Sum of `fee` lines, as a positive amount.'),
    fees_reversed: money('Sum of `fee_reversed` lines.'),
    job_charges: money('Sum of `job_charge` lines, as a positive amount.'),
    job_charges_cancelled: money('Sum of `job_charge_cancelled` lines.'),
    bookings_received: money('Sum of `booking_received` lines.'),
    bookings_refunded: money('Sum of `booking_refunded` lines, as a positive amount.'),
    net: money('Sum of every line: what the month adds to (or, negative, takes from) what the owner is owed.'),
    opening_balance: money('Every earlier month’s net, when the company keeps a balance (`statement_balance`).').nullable(),
    closing_balance: money('`opening_balance` plus `net`, when the company keeps a balance.').nullable(),
  })
  .openapi('OwnerStatementTotals', { description: 'One per currency of the month’s lines (and of the balance carried).' });

export const StatementSchema = z
  .object({
    owner: ownerReference,
    owner_name: z.string().nullable().openapi({ description: 'The owner’s name now; null once the person is erased.' }),
    company_name: z.string(),
    month: monthInput,
    from: day.openapi({ description: 'The month’s first day.' }),
    to: day.openapi({ description: 'The month’s last day.' }),
    status,
    closes_on: day.openapi({
      description:
        'The day the month closes: the next month’s first day plus the grace days (for a closed month, those it closed under).',
    }),
    lines: z.array(StatementLineSchema).openapi({ description: 'By day, in the order they were booked.' }),
    totals: z.array(StatementTotalsSchema).openapi({ description: 'Per currency, in alphabetical order.' }),
  })
  .openapi('OwnerStatement');

export const MonthsQuery = z.strictObject({
  ...pageQuery,
  owner: ownerReference.optional(),
  from: monthInput.optional().openapi({ description: 'Months on or after this one.' }),
  to: monthInput.optional().openapi({ description: 'Months on or before this one.' }),
});

export const MonthSchema = z
  .object({
    owner: ownerReference,
    month: monthInput,
    status,
    closes_on: day,
    ready_at: z
      .string()
      .nullable()
      .openapi({ description: 'When `owner_statement.ready` was recorded (ISO 8601 UTC); null before.' }),
  })
  .openapi('OwnerStatementMonth');

export const MonthListSchema = listOf(MonthSchema, 'OwnerStatementMonthList');

export const LinkInput = z
  .strictObject({
    owner: ownerReference,
    month: monthInput,
    language: z
      .enum(languages)
      .optional()
      .openapi({ description: 'The page’s language: `en` (default) or `ar` (right to left).' }),
    expires_in_days: z.number().int().min(1).max(90).optional().openapi({ description: 'Days the link works (default 30).' }),
  })
  .openapi('OwnerStatementLinkInput');

export const LinkSchema = z
  .object({
    url: z.string().openapi({ description: 'The printable page; anyone holding the link reads the statement until it expires.' }),
    owner: ownerReference,
    month: monthInput,
    language: z.enum(languages),
    expires_at: z.string().openapi({ example: '2027-03-31T08:00:00.000Z' }),
  })
  .openapi('OwnerStatementLink');
