import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { calendarDate, listOf, syncQuery } from '../common/api';
import { externalQuery } from '../common/external';
import { ExternalInput, ExternalSchema } from '../common/external';
import { decimalInput, moneyOutput } from '../common/money';
import { rentVatAccountedBy, taxCategories } from '../common/tax';
import { rentPaymentStatuses } from './db';

/** Rent payments (issue 11; docs/api-reference.md, "Leases and rent payments"). */

const instant = z.string().openapi({ example: '2027-01-01T09:30:00.000Z' });
const day = z.string().openapi({ description: 'YYYY-MM-DD, in the company’s time zone.', example: '2027-01-01' });
const notes = text().trim().max(2000);

/** An amount's tax kept at receipt (issue 35): its category, rate, and the VAT-inclusive amount's split. */
const ReceiptTax = z
  .object({
    category: z.enum(taxCategories),
    rate: z
      .string()
      .nullable()
      .openapi({ description: 'The rate in percent that day ("5"); null: the category carries none.', example: '5' }),
    net: moneyOutput,
    vat: moneyOutput,
  })
  .openapi('ReceiptTax');

/** A post-dated cheque: one payment per cheque. */
export const ChequeInput = z
  .strictObject({
    number: text().trim().min(1).max(50).openapi({ example: '000123' }),
    bank: text().trim().min(1).max(100).openapi({ example: 'Emirates NBD' }),
  })
  .openapi('ChequeInput', { description: 'A post-dated cheque: its number and bank, together.' });

export const ChequeSchema = z.object({ number: z.string(), bank: z.string() }).openapi('Cheque');

/** A collection by direct debit under an active mandate of the same lease (issue 34). */
export const DirectDebitInput = z
  .strictObject({
    mandate: text().min(1).max(100).openapi({
      description: 'The `mandate_id` of an active mandate of the same lease.',
      example: '5d0c7a3e-8f61-4b2a-9c3d-2e1f0a9b8c7d',
    }),
  })
  .openapi('DirectDebitInput', { description: 'Collected by direct debit under the mandate named; instead of a cheque.' });

export const DirectDebitSchema = z.object({ mandate: z.string() }).openapi('DirectDebit');

/** How a payment is made, where the company said: a cheque, a direct-debit collection, or not said (null). */
export const paymentMethods = ['cheque', 'direct_debit'] as const;

/** A body that names both a cheque and a direct debit: one method per payment. */
const oneMethod = (input: { cheque?: unknown; direct_debit?: unknown }, ctx: z.RefinementCtx) => {
  if (input.cheque != null && input.direct_debit != null) {
    ctx.addIssue({ code: 'custom', path: ['direct_debit'], message: 'A payment is a cheque or a direct debit, not both.' });
  }
};

export const RentPaymentSchema = z
  .object({
    payment_id: z.string().openapi({ example: '0b6c1f9e-4a8e-4b7e-9a51-3f2d8c7e6a10' }),
    lease: z.string().openapi({ description: 'The lease’s reference.', example: 'T-7K3M9Q2XAB' }),
    status: z.enum(rentPaymentStatuses).openapi({ description: '`due` until it is received, bounced or cancelled.' }),
    due_on: day,
    amount: moneyOutput,
    method: z
      .enum(paymentMethods)
      .nullable()
      .openapi({ description: '`cheque` or `direct_debit` when the payment names one; null when neither was said.' }),
    cheque: ChequeSchema.nullable(),
    direct_debit: DirectDebitSchema.nullable(),
    notes: z.string().nullable(),
    replaces: z.string().nullable().openapi({ description: 'The bounced payment this one replaces.' }),
    booked_on: day.nullable().openapi({ description: 'Set on receipt: the day it counted for the owner. Never changes.' }),
    fee_amount: moneyOutput.nullable().openapi({ description: 'Set on receipt: the company’s fee then. Never changes.' }),
    tax: ReceiptTax.nullable().openapi({
      description:
        'Set on receipt: the rent’s tax as it stood that day (the amount is VAT-inclusive: net + vat = amount). Never changes; null before the receipt, and on receipts recorded before VAT was (migration 0044).',
    }),
    fee_tax: ReceiptTax.nullable().openapi({
      description:
        'Set on receipt: the tax of the company’s fee (`fee_amount`, VAT-inclusive), category of the company’s `fee` kind. Never changes.',
    }),
    rent_vat_accounted_by: z.enum(rentVatAccountedBy).nullable().openapi({
      description:
        'Set on receipt: who accounts for the rent’s VAT, the company’s setting that day: `owner` (the company billed the rent as the landlord’s disclosed agent; the VAT stays in the owner’s money) or `company` (principal: a `rent_vat` statement line took it). Never changes; null with `tax`.',
    }),
    bounced_on: day
      .nullable()
      .openapi({ description: 'Set when a received payment bounces: the day the reversal counted. Never changes.' }),
    received_at: instant.nullable(),
    bounced_at: instant.nullable(),
    cancelled_at: instant.nullable(),
    overdue_at: instant.nullable().openapi({ description: 'When `rent_payment.overdue` was announced for it.' }),
    external: z.array(ExternalSchema),
    created_at: instant,
    updated_at: instant,
  })
  .openapi('RentPayment');

export const RentPaymentListSchema = listOf(RentPaymentSchema, 'RentPaymentList');

const range = (what: string, edge: 'first' | 'last') =>
  calendarDate
    .optional()
    .openapi({ description: `Only payments whose ${what} is on or ${edge === 'first' ? 'after' : 'before'} this day.` });

export const RentPaymentsQuery = z
  .strictObject({
    ...syncQuery,
    ...externalQuery,
    lease: text().min(1).max(100).optional().openapi({ description: 'A lease’s reference.' }),
    status: z.enum(rentPaymentStatuses).optional(),
    booked_from: range('`booked_on`', 'first'),
    booked_to: range('`booked_on`', 'last'),
    bounced_from: range('`bounced_on`', 'first'),
    bounced_to: range('`bounced_on`', 'last'),
  })
  .superRefine((query, ctx) => {
    for (const [from, to] of [
      ['booked_from', 'booked_to'],
      ['bounced_from', 'bounced_to'],
    ] as const) {
      const first = query[from];
      const last = query[to];
      if (first !== undefined && last !== undefined && last < first) {
        ctx.addIssue({ code: 'custom', path: [to], message: `On or after ${from}.` });
      }
    }
  });

export const RentPaymentParams = z.object({ payment_id: text().min(1).max(100) });

/** `POST /rent-payments`: a replacement for a bounced payment, on the same lease. */
export const RentPaymentInput = z
  .strictObject({
    replaces: text().min(1).max(100).openapi({ description: 'The `payment_id` of a bounced payment.' }),
    due_on: calendarDate,
    amount: decimalInput.openapi({ example: '10000.00' }),
    cheque: ChequeInput.optional(),
    direct_debit: DirectDebitInput.optional(),
    notes: notes.optional(),
    external: ExternalInput.optional(),
  })
  .superRefine(oneMethod)
  .openapi('RentPaymentInput');

/** `PATCH /rent-payments/{payment_id}`: a status step, and changes to a payment still due. */
export const RentPaymentPatchInput = z
  .strictObject({
    status: z
      .enum(['received', 'bounced', 'cancelled'])
      .optional()
      .openapi({ description: 'From `due`: any of the three; from `received`: `bounced`. A bounced payment never changes.' }),
    due_on: calendarDate.optional(),
    amount: decimalInput.optional(),
    cheque: ChequeInput.nullable().optional(),
    direct_debit: DirectDebitInput.nullable()
      .optional()
      .openapi({ description: 'Collected under this mandate (the cheque removed); null: no longer by direct debit.' }),
    notes: notes.nullable().optional(),
    external: ExternalInput.optional(),
  })
  .superRefine(oneMethod)
  .openapi('RentPaymentPatch');

/** The fields of a payment that only a payment still due may change. */
export const duePaymentFields = ['due_on', 'amount', 'cheque', 'direct_debit', 'notes'] as const;

export type RentPaymentInputValue = z.infer<typeof RentPaymentInput>;
export type RentPaymentPatchValue = z.infer<typeof RentPaymentPatchInput>;
export type RentPaymentsQueryValue = z.infer<typeof RentPaymentsQuery>;
