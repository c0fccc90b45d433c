import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { calendarDate, listOf, syncQuery } from '../common/api';
import { ExternalInput, ExternalSchema, externalQuery } from '../common/external';
import { decimalInput, moneyOutput } from '../common/money';
import { PersonInput, personQuery } from '../common/people';
import { WarningSchema } from '../common/warnings';
import { dealStatuses } from './db';
import { pipelineKey } from './pipelines';

/** Deals (issue 13; docs/api-reference.md, "Pipelines, deals and viewings"). */

const reference = text().min(1).max(100);
const contactReference = reference.openapi({ description: 'A contact’s reference (`P-…`).', example: 'P-7K3M9Q2XAB' });
const memberId = text().min(1).max(100).openapi({ description: 'A member id of this company.' });
const home = text()
  .min(1)
  .max(200)
  .openapi({ description: 'A listing of the company, by its English slug.', example: 'marina-gate-1br-furnished' });
const departmentKey = text().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'A department `key`.');
const probability = z.number().int().min(0).max(100);
const title = text().trim().min(1).max(300);

export const DealSchema = z
  .object({
    reference: z.string().openapi({ example: 'D-7K3M9Q2XAB' }),
    pipeline: z.string().openapi({ description: 'The pipeline’s `key`.', example: 'leasing' }),
    stage: z.string().openapi({ description: 'The stage’s `key` in that pipeline.', example: 'viewing' }),
    status: z.enum(dealStatuses).openapi({ description: 'The stage’s kind: `open`, `won` or `lost`.' }),
    person: z.string().openapi({ description: 'The contact the deal is with (`P-…`).' }),
    enquiry: z.string().nullable().openapi({ description: 'The lead it came from (`L-…`).' }),
    home: z.string().nullable().openapi({ description: 'The listing, by its English slug.' }),
    owner: z.string().nullable().openapi({ description: 'The home’s owner, a contact (`P-…`).' }),
    handler: z.string().nullable().openapi({ description: 'The member handling it.' }),
    department: z.string().nullable(),
    title: z.string().nullable(),
    value: moneyOutput.nullable().openapi({ description: 'What the deal is worth (price, or the rent of a term).' }),
    money: z
      .object({
        currency: z.string().openapi({ example: 'AED' }),
        commission: moneyOutput.nullable().openapi({ description: 'The company’s expected fee.' }),
      })
      .openapi({ description: 'The deal’s money besides its value: the currency of its amounts, the commission.' }),
    probability: z.number().int().openapi({ description: 'Percent: the deal’s own, else its stage’s.' }),
    probability_source: z.enum(['stage', 'deal']),
    expected_close: z.string().nullable().openapi({ description: 'YYYY-MM-DD.' }),
    outcome: z
      .object({ closed_at: z.string(), reason: z.string().nullable() })
      .nullable()
      .openapi({ description: 'Set while the deal is won or lost: when it closed and why (the move’s `reason`).' }),
    external: z.array(ExternalSchema),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Deal');

export const DealListSchema = listOf(DealSchema, 'DealList');

export const DealMoveAnswer = DealSchema.extend({
  warnings: z
    .array(WarningSchema)
    .openapi({ description: '`no_value`, `no_lease`, `no_lost_reason`, `reopened`: the move happened all the same.' }),
}).openapi('DealMoved');

export const DealsQuery = z.strictObject({
  ...syncQuery,
  ...externalQuery,
  q: personQuery,
  pipeline: pipelineKey.optional(),
  stage: pipelineKey.optional().openapi({ description: 'A stage `key` (of any pipeline, unless `pipeline` is given).' }),
  status: z.enum(dealStatuses).optional(),
  person: contactReference.optional(),
});

export const DealParams = z.object({ reference });

const dealFields = {
  title,
  home,
  owner: contactReference,
  handler: memberId,
  department: departmentKey,
  value: decimalInput,
  commission: decimalInput,
  probability,
  expected_close: calendarDate,
};

export const DealInput = z
  .strictObject({
    pipeline: pipelineKey.optional().openapi({ description: 'Default: the company’s first pipeline.' }),
    stage: pipelineKey.optional().openapi({ description: 'An open stage; default: the pipeline’s first open stage.' }),
    enquiry: reference
      .optional()
      .openapi({ description: 'The lead (`L-…`) it comes from: its person, home, department and assignee.' }),
    person: z
      .union([contactReference, PersonInput])
      .optional()
      .openapi({ description: 'A contact’s reference, or their details (matched or added exactly as POST /contacts does).' }),
    title: dealFields.title.optional(),
    home: dealFields.home.optional().openapi({ description: 'Default: the enquiry’s home.' }),
    owner: dealFields.owner.optional(),
    handler: dealFields.handler.optional().openapi({ description: 'Default: the enquiry’s assignee.' }),
    department: dealFields.department.optional().openapi({ description: 'Default: the enquiry’s department.' }),
    value: dealFields.value.optional(),
    commission: dealFields.commission.optional(),
    probability: dealFields.probability.optional().openapi({ description: 'Default: follow the stage’s.' }),
    expected_close: dealFields.expected_close.optional(),
    external: ExternalInput.optional().openapi({ description: 'Your deal’s id: sent again, the same deal comes back (200).' }),
  })
  .superRefine((input, ctx) => {
    if ((input.enquiry === undefined) === (input.person === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['person'], message: 'Send one of enquiry or person.' });
    }
  })
  .openapi('DealInput');

export const DealPatchInput = z
  .strictObject({
    title: title.nullable(),
    home: home.nullable(),
    owner: contactReference.nullable(),
    handler: memberId.nullable(),
    department: departmentKey.nullable(),
    value: decimalInput.nullable(),
    commission: decimalInput.nullable(),
    probability: probability.nullable().openapi({ description: 'null: follow the stage’s probability again.' }),
    expected_close: calendarDate.nullable(),
    external: ExternalInput,
  })
  .partial()
  .openapi('DealPatch');

export const MoveInput = z
  .strictObject({
    stage: pipelineKey.openapi({ description: 'A stage `key` of the deal’s pipeline, in any direction.', example: 'viewing' }),
    reason: text()
      .trim()
      .min(1)
      .max(2000)
      .optional()
      .openapi({ description: 'Why it was won or lost (its `outcome.reason`); a lost deal without one warns `no_lost_reason`.' }),
  })
  .openapi('DealMove');

export type DealInputValue = z.infer<typeof DealInput>;
export type DealPatchValue = z.infer<typeof DealPatchInput>;
export type MoveInputValue = z.infer<typeof MoveInput>;
