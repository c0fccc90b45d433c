import { z } from '@hono/zod-openapi';
import { listOf, pageQuery } from '../common/api';
import { taxCategories } from '../common/tax';
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
        '`rent_received` (by `booked_on`), `fee` (the company’s fee fixed at receipt), `rent_reversed` and `fee_reversed` (a bounce after the receipt, by `bounced_on`), `job_charge` (a charge booked to the owner, by `booked_on`), `job_charge_cancelled` (by `cancelled_on`), `rent_vat` (the VAT in a standard-rated rent, taken for the company to account for it when it does: company setting `rent_vat_accounted_by: company`, kept on the receipt; by `booked_on`), `rent_vat_reversed` (its reversal on a bounce), `booking_received` (a holiday home’s booking paid online: what the guest paid, on the day the payment was booked), `booking_refunded` (a refund of it the provider made: the refunded amount, on the refund’s day).',
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
    tax_category: z.enum(taxCategories).nullable().openapi({
      description:
        'The tax category the amount was booked under (the rent’s on rent and rent VAT lines, the company’s `fee` kind’s on fee lines); null on charge lines and on lines booked before VAT was recorded.',
    }),
    net: money(
      'The amount less its VAT (same sign): on rent, rent VAT and fee lines (and their reversals); null on others.',
    ).nullable(),
    vat: money(
      'The VAT in the amount (same sign; 0 for exempt, zero-rated or out-of-scope amounts): the fee’s VAT the owner is charged, the rent’s VAT; null on charge lines and lines booked before VAT was recorded.',
    ).nullable(),
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
    rent_vat: money('Sum of `rent_vat` lines, as a positive amount: the rent’s VAT taken for the company to account for.'),
    rent_vat_reversed: money('Sum of `rent_vat_reversed` lines.'),
    fees_vat: money('The VAT in `fees` (already in it: not added to `net` again).'),
    fees_vat_reversed: money('The VAT in `fees_reversed`.'),
    rent_vat_for_owner: money(
      'The VAT in `rent_received` the owner accounts for (company setting `rent_vat_accounted_by: owner`, the company their disclosed agent): information for the owner’s own VAT return, already in the rent and in `net` (nothing taken).',
    ),
    rent_vat_for_owner_reversed: money(
      'The VAT in `rent_reversed` the owner accounts for (information, as `rent_vat_for_owner`).',
    ),
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

export const StatementsExportQuery = z.strictObject({ month: monthInput });

export const StatementsExportSchema = z
  .object({
    month: monthInput,
    from: day.openapi({ description: 'The month’s first day.' }),
    to: day.openapi({ description: 'The month’s last day.' }),
    status,
    closes_on: day.openapi({ description: 'The day the month closes (as each statement’s).' }),
    statements: z.array(StatementSchema).openapi({
      description:
        'One per owner with at least one line in the month, by owner reference: each exactly what `GET /owner-statements?owner=…&month=…` answers for that owner.',
    }),
  })
  .openapi('OwnerStatementsExport');
