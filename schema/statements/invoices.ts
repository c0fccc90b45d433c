import { z } from '@hono/zod-openapi';
import { calendarDate, listOf, pageQuery } from '../common/api';
import { taxCategories } from '../common/tax';
import { text } from '../common/text';

/**
 * Tax invoices and credit notes (issue 35; docs/api-reference.md, "Tax invoices and credit notes"): what was issued, as
 * it was issued. Amounts are decimal strings with the currency's digits.
 */

const money = (description: string) => z.string().openapi({ description, example: '1050.00' });

/** A document's number: its series (`INV`, `CRN`), a dash and at least 6 digits. */
export const documentNumberParam = z.object({
  number: text()
    .regex(/^(INV|CRN)-\d{6,18}$/, 'A document number: INV- or CRN- and its digits, e.g. INV-000042.')
    .openapi({ param: { name: 'number', in: 'path' }, example: 'INV-000042' }),
});

/**
 * The path of `GET /invoices/{number}`, which also answers `{number}.xml` (Hono cannot end a path parameter in a suffix:
 * both paths share one route, functions/statements/invoices.routes.ts).
 */
export const documentPathParam = z.object({
  number: text()
    .regex(/^(INV|CRN)-\d{6,18}(\.xml)?$/, 'A document number: INV- or CRN- and its digits, e.g. INV-000042.')
    .openapi({ param: { name: 'number', in: 'path' }, example: 'INV-000042' }),
});

export const InvoiceListQuery = z.strictObject({
  ...pageQuery,
  kind: z.enum(['invoice', 'credit_note']).optional().openapi({ description: 'Only invoices, or only credit notes.' }),
  issued_from: calendarDate.optional().openapi({ description: 'Issued on or after this day (the company’s time zone).' }),
  issued_to: calendarDate.optional().openapi({ description: 'Issued on or before this day.' }),
  einvoice_status: z
    .enum(['pending', 'accepted', 'rejected'])
    .optional()
    .openapi({ description: 'Only documents whose e-invoice is in this state at the provider.' }),
  einvoice_due_by: calendarDate.optional().openapi({
    description: 'Only documents not yet accepted whose e-invoice deadline (`einvoice.deadline`) is on or before this day.',
  }),
});

export const PageQuery = z.strictObject({
  language: z.enum(['en', 'ar']).default('en').openapi({ description: 'The page’s language (default English).' }),
});

const AddressSchema = z
  .object({
    line1: z.string(),
    line2: z.string().nullable(),
    city: z.string(),
    subdivision: z.string().openapi({ description: 'In the UAE the emirate’s PINT AE code (DXB, AUH, …).' }),
    country: z.string().openapi({ example: 'AE' }),
  })
  .openapi('InvoiceAddress');

const LineSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    quantity: z.string().openapi({ example: '1' }),
    unit_code: z.string().openapi({ description: 'UN/ECE Recommendation 20: MON month, DAY day, C62 one.', example: 'MON' }),
    category: z.enum(taxCategories),
    rate: z.string().nullable().openapi({ description: 'The rate, a percentage; null for exempt and out_of_scope.' }),
    exemption_reason: z.string().nullable().openapi({ description: 'An exempt line’s reason (PINT AE: DL8.46.2 residential).' }),
    net: money('Without VAT.'),
    vat: money('The VAT of the line, rounded once per line.'),
    gross: money('With VAT.'),
  })
  .openapi('InvoiceLine');

export const InvoiceSchema = z
  .object({
    id: z.string().openapi({ description: 'The document’s unique identifier (PINT AE BTAE-07).' }),
    number: z.string().openapi({ example: 'INV-000042' }),
    kind: z.enum(['invoice', 'credit_note']),
    type_code: z.enum(['380', '480', '381', '81', '389', '261']).openapi({
      description:
        'UNTDID 1001 as PINT AE uses it: 380 tax invoice, 480 an invoice of only exempt or out-of-scope supplies, 381 tax credit note, 81 its out-of-scope counterpart.',
    }),
    simplified: z.boolean().openapi({
      description:
        'A simplified tax invoice (the buyer is not registered for VAT: named by our reference only); false: a full tax invoice with the buyer’s name and TRN.',
    }),
    issue_date: z.string().openapi({ example: '2027-02-03' }),
    currency: z.string().openapi({ example: 'AED' }),
    source: z
      .object({
        kind: z.enum(['rent_payment', 'booking_payment', 'booking_offline', 'statement_fees', 'job_charge']).openapi({
          description:
            'A rent payment received, a booking’s payment online, a booking staff marked paid (what was left to pay, received outside the API), an owner’s month of fees, a job charge.',
        }),
        key: z.string().openapi({
          description: 'The record it was issued for: a payment’s or charge’s id, a booking’s reference, or owner and month.',
        }),
      })
      .openapi({ description: 'What it was issued for.' }),
    credits: z.string().nullable().openapi({ description: 'A credit note: the number of the invoice it credits.' }),
    credit_reason: z.string().nullable().openapi({
      description: 'A credit note’s reason (PINT AE BTAE-03): DL8.61.1.A supply cancelled, DL8.61.1.C consideration altered, ….',
    }),
    seller: z
      .object({ name: z.string(), legal_name: z.string(), trn: z.string(), address: AddressSchema })
      .openapi('InvoiceSeller'),
    principal: z
      .object({ name: z.string(), trn: z.string() })
      .nullable()
      .openapi({ description: 'The landlord the company billed for as disclosed agent; null when it billed for itself.' }),
    buyer: z
      .object({ name: z.string(), trn: z.string().nullable(), reference: z.string().nullable(), address: AddressSchema })
      .openapi('InvoiceBuyer'),
    period: z
      .object({ start: z.string(), end: z.string() })
      .nullable()
      .openapi({ description: 'The period supplied (a month of rent, a stay), when there is one.' }),
    lines: z.array(LineSchema),
    totals: z
      .object({
        net: money('The lines’ nets.'),
        vat: money('The lines’ VAT.'),
        gross: money('Net + VAT.'),
        paid: money('Already paid.'),
        due: money('Gross − paid.'),
      })
      .openapi('InvoiceTotals'),
    einvoice: z
      .object({
        status: z.enum(['pending', 'accepted', 'rejected']).openapi({
          description:
            '`pending` until the company’s Accredited Service Provider answers; then `accepted` or `rejected` (with its reasons).',
        }),
        reasons: z.array(z.string()).nullable(),
        answered_at: z.string().nullable(),
        deadline: z.string().openapi({
          description:
            'The last day to issue and transmit it: 14 days after its date of supply, the issue date (Federal Decree-Law No. 8 of 2017, Article 67; Ministerial Decision No. 243 of 2025). `invoice.einvoice_due` warns 3 days before while it is not accepted.',
          example: '2027-02-17',
        }),
        attempts: z
          .number()
          .int()
          .openapi({ description: 'Hand-offs tried so far (a 2xx ends them: then the answer is awaited).' }),
        last_error: z.string().nullable().openapi({ description: 'Why the last hand-off failed; null once one succeeded.' }),
      })
      .openapi('InvoiceEinvoice'),
    created_at: z.string(),
  })
  .openapi('Invoice', { description: 'A tax invoice or credit note, as issued: it never changes.' });

export const InvoiceListSchema = listOf(InvoiceSchema, 'InvoiceList');

/**
 * The answer of the company's Accredited Service Provider (POST /inbound/einvoice): which document (its id, BTAE-07, or
 * its number), and the provider's verdict, signed with the secret the company shares with it (docs/pint-ae.md,
 * "Hand-off to the Accredited Service Provider").
 */
export const EinvoiceAnswer = z
  .strictObject({
    document_id: text().uuid().optional().openapi({ description: 'The document’s id (its UUID, BTAE-07), as sent.' }),
    number: text()
      .regex(/^(INV|CRN)-\d{6,18}$/, 'A document number: INV- or CRN- and its digits, e.g. INV-000042.')
      .optional()
      .openapi({ description: 'Its number (IBT-001), as sent; one of the two is enough.' }),
    status: z.enum(['accepted', 'rejected']).openapi({ description: 'The provider’s verdict.' }),
    reasons: z
      .array(text().min(1).max(1000))
      .max(50)
      .default([])
      .openapi({ description: 'Why it was rejected (at least one when rejected), as the provider words it.' }),
  })
  .superRefine((answer, ctx) => {
    if (answer.document_id === undefined && answer.number === undefined) {
      ctx.addIssue({ code: 'custom', path: ['document_id'], message: 'Send the document’s id or its number.' });
    }
    if (answer.status === 'rejected' && answer.reasons.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['reasons'], message: 'A rejection gives at least one reason.' });
    }
  })
  .openapi('EinvoiceAnswer');
export type EinvoiceAnswerValue = z.infer<typeof EinvoiceAnswer>;

export const EinvoiceAnswerReceipt = z
  .object({
    id: z.string(),
    number: z.string(),
    status: z.enum(['pending', 'accepted', 'rejected']).openapi({ description: 'The document’s state after the answer.' }),
    recorded: z.boolean().openapi({
      description:
        'Whether this answer changed the document: false for a repeat (the same webhook-id), an older answer, or the same verdict again.',
    }),
  })
  .openapi('EinvoiceAnswerReceipt');
