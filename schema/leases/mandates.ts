import { z } from '@hono/zod-openapi';
import { calendarDate, listOf, syncQuery } from '../common/api';
import { ibanChecks, normalIban } from '../common/iban';
import { decimalInput, decimalOf, moneyOutput } from '../common/money';
import { text } from '../common/text';
import { rentMandateStatuses } from './db';

/**
 * Direct-debit mandates for rent (issue 34; docs/api-reference.md, "Rent mandates"): the fields of a UAE Direct Debit
 * Authority (UAEDDS) a company keeps for its leases. The IBAN is taken whole and shown by its last four characters.
 */

const instant = z.string().openapi({ example: '2027-01-01T09:30:00.000Z' });

export const MandateBankInput = z
  .strictObject({
    name: text().trim().min(1).max(100).openapi({ example: 'Emirates NBD' }),
    code: text()
      .trim()
      .min(1)
      .max(20)
      .optional()
      .openapi({ description: 'The bank’s code (UAEDDS: its 3-digit code, as in the IBAN).', example: '026' }),
  })
  .openapi('MandateBankInput');

export const RentMandateInput = z
  .strictObject({
    mandate_reference: text()
      .trim()
      .min(1)
      .max(50)
      .openapi({ description: 'The mandate’s reference at the bank (UAEDDS: the DDA reference).', example: 'DDA-2027-000451' }),
    bank: MandateBankInput,
    account_holder: text().trim().min(1).max(200).openapi({ description: 'The account’s title.', example: 'Renter Name' }),
    iban: text()
      .max(50)
      .transform(normalIban)
      .refine(ibanChecks, { message: 'An IBAN whose check digits agree (e.g. AE07 0331 2345 6789 0123 456).' })
      .openapi({
        description: 'The account debited. Kept sealed; answers show only its last four characters.',
        example: 'AE070331234567890123456',
      }),
    max_amount: decimalInput
      .refine((value) => decimalOf(value)?.gt(0) === true, { message: 'More than 0.' })
      .openapi({ description: 'The most one collection may take.', example: '30000.00' }),
    starts_on: calendarDate,
    ends_on: calendarDate,
  })
  .superRefine((input, ctx) => {
    if (input.ends_on < input.starts_on) ctx.addIssue({ code: 'custom', path: ['ends_on'], message: 'On or after starts_on.' });
  })
  .openapi('RentMandateInput');
export type RentMandateInputValue = z.infer<typeof RentMandateInput>;

export const RentMandatePatchInput = z
  .strictObject({
    status: z.enum(['active', 'cancelled', 'rejected', 'expired']).openapi({
      description:
        'From `pending`: `active` (the bank accepted it), `rejected` or `cancelled`; from `active`: `cancelled` or `expired`.',
    }),
  })
  .openapi('RentMandatePatch');
export type RentMandatePatchValue = z.infer<typeof RentMandatePatchInput>;

export const RentMandateSchema = z
  .object({
    mandate_id: z.string().openapi({ example: '5d0c7a3e-8f61-4b2a-9c3d-2e1f0a9b8c7d' }),
    lease: z.string().openapi({ description: 'The lease’s reference.', example: 'T-7K3M9Q2XAB' }),
    mandate_reference: z.string(),
    status: z.enum(rentMandateStatuses),
    bank: z.object({ name: z.string(), code: z.string().nullable() }).openapi('MandateBank'),
    account_holder: z.string().nullable().openapi({ description: 'Null once the renter was erased.' }),
    iban_last4: z.string().openapi({ description: 'The last four characters of the IBAN: never more.', example: '3456' }),
    max_amount: moneyOutput,
    starts_on: z.string().openapi({ example: '2027-01-01' }),
    ends_on: z.string().openapi({ example: '2027-12-31' }),
    activated_at: instant.nullable(),
    cancelled_at: instant.nullable(),
    rejected_at: instant.nullable(),
    expired_at: instant.nullable(),
    created_at: instant,
    updated_at: instant,
  })
  .openapi('RentMandate');

export const RentMandateListSchema = listOf(RentMandateSchema, 'RentMandateList');

export const RentMandatesQuery = z.strictObject({
  ...syncQuery,
  lease: text().min(1).max(100).optional().openapi({ description: 'A lease’s reference.' }),
  status: z.enum(rentMandateStatuses).optional(),
});

export const RentMandateParams = z.object({ mandate_id: text().min(1).max(100) });
