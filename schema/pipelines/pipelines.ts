import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { LocalisedTextInput, LocalisedTextSchema } from '../common/api';
import { pipelinePurposes, stageKinds } from './db';

/** Pipelines and their stages (issue 13; docs/api-reference.md, "Pipelines, deals and viewings"). */

/** A pipeline's or a stage's key: lower-case letters, digits, `_` and `-`. */
export const pipelineKey = text().regex(
  /^[a-z0-9][a-z0-9_-]{0,63}$/,
  'Lower-case letters, digits, "_" and "-", up to 64 characters.',
);

const probability = z.number().int().min(0).max(100);

export const StageSchema = z
  .object({
    key: z.string().openapi({ example: 'viewing' }),
    name: LocalisedTextSchema,
    kind: z.enum(stageKinds).openapi({ description: '`open`; `won` or `lost` close a deal moved there.' }),
    probability: z.number().int().openapi({ description: 'Percent, 0 to 100: a deal’s probability unless it sets its own.' }),
  })
  .openapi('PipelineStage');

export const PipelineSchema = z
  .object({
    key: z.string().openapi({ example: 'sales' }),
    name: LocalisedTextSchema,
    purpose: z.enum(pipelinePurposes).openapi({
      description: '`sales` or `leasing`: a won leasing deal without its lease warns `no_lease`.',
    }),
    stages: z.array(StageSchema).openapi({ description: 'In order.' }),
  })
  .openapi('Pipeline');

export const PipelineListSchema = z
  .object({
    results: z.array(PipelineSchema).openapi({ description: 'Every pipeline of the company, in order.' }),
    next_cursor: z.null().openapi({ description: 'Always null: the list is never paged.' }),
  })
  .openapi('PipelineList');

// Admin inputs.
const position = z.number().int().min(0).max(1000).openapi({
  description: 'Where it goes, from 0 (first); past the end: last. Default: last for a new one, unchanged otherwise.',
});

export const StageInput = z
  .strictObject({ name: LocalisedTextInput, kind: z.enum(stageKinds), probability, position: position.optional() })
  .openapi('AdminStageInput');

export const PipelineInput = z
  .strictObject({
    key: pipelineKey,
    name: LocalisedTextInput,
    purpose: z.enum(pipelinePurposes),
    stages: z
      .array(z.strictObject({ key: pipelineKey, name: LocalisedTextInput, kind: z.enum(stageKinds), probability }))
      .min(1)
      .max(50)
      .refine((stages) => new Set(stages.map((s) => s.key)).size === stages.length, 'Stage keys are unique in a pipeline.'),
    position: position.optional(),
  })
  .openapi('AdminPipelineInput');

export const PipelinePatchInput = z
  .strictObject({ name: LocalisedTextInput, purpose: z.enum(pipelinePurposes), position })
  .partial()
  .openapi('AdminPipelinePatch');

export type PipelineInputValue = z.infer<typeof PipelineInput>;
export type PipelinePatchValue = z.infer<typeof PipelinePatchInput>;
export type StageInputValue = z.infer<typeof StageInput>;
export type PipelineView = z.infer<typeof PipelineSchema>;
