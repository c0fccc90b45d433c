import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { listOf, syncQuery } from '../common/api';
import { ExternalInput, ExternalSchema, externalQuery } from '../common/external';
import { contractorKinds, contractorStatuses } from './db';
import { instantOut, longText, uuidParam } from './fields';

/** Contractors (issue 12; docs/api-reference.md, "Maintenance"). */

const trade = text().regex(/^[a-z][a-z0-9_]{0,39}$/, 'Lower-case letters, digits and "_" (e.g. plumbing).');
const trades = z.array(trade).max(20);
const name = text().trim().min(1).max(200);
const email = z.email().max(320);
const phone = text().trim().min(3).max(40);

export const ContractorInput = z
  .strictObject({
    name,
    kind: z
      .enum(contractorKinds)
      .default('firm')
      .openapi({ description: '`sole_trader`: a person, whose contact details are personal data (reads audited).' }),
    trades: trades.default([]),
    contact_name: name.optional(),
    email: email.optional(),
    phone: phone.optional(),
    notes: longText().optional(),
    external: ExternalInput.optional(),
  })
  .openapi('ContractorInput');

export const ContractorPatchInput = z
  .strictObject({
    name: name.optional(),
    kind: z.enum(contractorKinds).optional(),
    trades: trades.optional(),
    contact_name: name.nullable().optional(),
    email: email.nullable().optional(),
    phone: phone.nullable().optional(),
    notes: longText().nullable().optional(),
    status: z
      .enum(contractorStatuses)
      .optional()
      .openapi({ description: '`stopped`: no new work is scheduled for them; their history stays. `active` again.' }),
    external: ExternalInput.optional(),
  })
  .openapi('ContractorPatch');

export const ContractorSchema = z
  .object({
    contractor_id: z.string().openapi({ example: '0b6c1f9e-4a8e-4b7e-9a51-3f2d8c7e6a10' }),
    name: z.string(),
    kind: z.enum(contractorKinds),
    trades: z.array(z.string()),
    contact_name: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    notes: z.string().nullable(),
    status: z.enum(contractorStatuses),
    stopped_at: instantOut.nullable(),
    external: z.array(ExternalSchema),
    created_at: instantOut,
    updated_at: instantOut,
  })
  .openapi('Contractor');

export const ContractorListSchema = listOf(ContractorSchema, 'ContractorList');

export const ContractorsQuery = z.strictObject({
  ...syncQuery,
  ...externalQuery,
  status: z.enum(contractorStatuses).optional(),
  trade: trade.optional(),
});

export const ContractorParams = z.object({ contractor_id: uuidParam });

export type ContractorInputValue = z.infer<typeof ContractorInput>;
export type ContractorPatchValue = z.infer<typeof ContractorPatchInput>;
