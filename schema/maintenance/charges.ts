import { z } from '@hono/zod-openapi';
import { calendarDate, listOf, syncQuery } from '../common/api';
import { LineTaxSchema, taxCategoryInput } from '../common/tax';
import { ExternalInput, ExternalSchema, externalQuery } from '../common/external';
import { decimalInput, decimalOf, moneyOutput } from '../common/money';
import { chargeStatuses, payers } from './db';
import { dayOut, instantOut, longText, reference, uuidParam } from './fields';

/** Job charges (issue 12; docs/api-reference.md, "Maintenance"). */

export const ChargeInput = z
  .strictObject({
    job: reference.openapi({ description: 'The job’s reference (`J-…`).', example: 'J-7K3M9Q2XAB' }),
    cost: decimalInput.refine((v) => decimalOf(v)?.gt(0) ?? true, 'Above zero.').openapi({ example: '450.00' }),
    payer: z.enum(payers).optional().openapi({ description: 'Who pays; default the job’s payer.' }),
    description: longText(2000).optional(),
    tax_category: taxCategoryInput.optional().openapi({
      description:
        'The VAT category of the charge; default the company’s for `job_charge` (standard). A company not registered for VAT on the day, or a charge the company pays itself: out_of_scope.',
    }),
    external: ExternalInput.optional().openapi({
      description: 'Your id (e.g. the accounting line): sent again, the same charge.',
    }),
  })
  .openapi('JobChargeInput');

const fixed = z
  .unknown()
  .optional()
  .openapi({ description: 'Never changes: `409 charge_fixed` (cancel the charge and record it again).' });

export const ChargePatchInput = z
  .strictObject({
    status: z
      .enum(['cancelled', 'paid'])
      .optional()
      .openapi({ description: '`cancelled`: a mistake (`cancelled_on` is today); `paid`: a renter’s charge was paid.' }),
    paid_on: calendarDate.optional().openapi({ description: 'With `paid`: the day it was paid; default today.' }),
    external: ExternalInput.optional(),
    job: fixed,
    cost: fixed,
    payer: fixed,
    description: fixed,
    booked_on: fixed,
    booked_owner: fixed,
    cancelled_on: fixed,
    tax_category: fixed,
  })
  .refine((p) => p.paid_on === undefined || p.status === 'paid', { path: ['paid_on'], message: 'Only with status paid.' })
  .openapi('JobChargePatch');

export const ChargeSchema = z
  .object({
    charge_id: z.string().openapi({ example: '0b6c1f9e-4a8e-4b7e-9a51-3f2d8c7e6a10' }),
    job: z.string(),
    home: z.string().openapi({ description: 'The job’s home (English slug).' }),
    cost: moneyOutput,
    payer: z.enum(payers),
    description: z.string().nullable(),
    status: z.enum(chargeStatuses),
    booked_on: dayOut.openapi({ description: 'The day it counted for the owner’s statement. Never changes.' }),
    booked_owner: z
      .string()
      .nullable()
      .openapi({ description: 'The home’s owner on `booked_on` (a contact reference); kept when the home changes hands.' }),
    paid_on: dayOut.nullable(),
    cancelled_on: dayOut.nullable().openapi({ description: 'The day the cancellation counted (its own month).' }),
    tax: LineTaxSchema.nullable().openapi({
      description:
        'The VAT in the cost as booked (the cost is what the payer pays, VAT included); null: booked before VAT was recorded.',
    }),
    external: z.array(ExternalSchema),
    created_at: instantOut,
    updated_at: instantOut,
  })
  .openapi('JobCharge');

export const ChargeListSchema = listOf(ChargeSchema, 'JobChargeList');

export const ChargesQuery = z
  .strictObject({
    ...syncQuery,
    ...externalQuery,
    job: reference.optional(),
    payer: z.enum(payers).optional(),
    owner: reference.optional().openapi({ description: 'The `booked_owner`’s contact reference.' }),
    status: z.enum(chargeStatuses).optional(),
    booked_from: calendarDate.optional().openapi({ description: '`booked_on` on or after this day.' }),
    booked_to: calendarDate.optional().openapi({ description: '`booked_on` on or before this day.' }),
    cancelled_from: calendarDate.optional().openapi({ description: '`cancelled_on` on or after this day.' }),
    cancelled_to: calendarDate.optional().openapi({ description: '`cancelled_on` on or before this day.' }),
  })
  .openapi('JobChargesQuery');

export const ChargeParams = z.object({ charge_id: uuidParam });

export type ChargeInputValue = z.infer<typeof ChargeInput>;
export type ChargePatchValue = z.infer<typeof ChargePatchInput>;
export type ChargesQueryValue = z.infer<typeof ChargesQuery>;
