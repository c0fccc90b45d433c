import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { instant, listOf, syncQuery } from '../common/api';
import { ExternalInput, ExternalSchema, externalQuery } from '../common/external';
import { viewingStatuses } from './db';

/** Viewings (issue 13; docs/api-reference.md, "Pipelines, deals and viewings"). */

const reference = text().min(1).max(100);
const memberId = text().min(1).max(100).openapi({ description: 'The member who shows the home.' });
const home = text()
  .min(1)
  .max(200)
  .openapi({ description: 'A listing of the company, by its English slug.', example: 'marina-gate-2br-sea-view' });
const feedback = text().trim().min(1).max(5000);

export const ViewingSchema = z
  .object({
    reference: z.string().openapi({ example: 'V-7K3M9Q2XAB' }),
    deal: z.string().openapi({ description: 'The deal’s reference (`D-…`).' }),
    home: z.string().openapi({ description: 'The listing shown, by its English slug.' }),
    time: z.string().openapi({ description: 'When it starts, ISO 8601 UTC.', example: '2027-01-15T10:00:00.000Z' }),
    shown_by: z.string().nullable().openapi({ description: 'The member who shows it.' }),
    status: z.enum(viewingStatuses),
    feedback: z.string().nullable().openapi({
      description: 'How it went, in staff’s words. Read here only: never in an event, a delivery or a delivery log.',
    }),
    external: z.array(ExternalSchema),
    done_at: z.string().nullable(),
    cancelled_at: z.string().nullable(),
    missed_at: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Viewing');

export const ViewingListSchema = listOf(ViewingSchema, 'ViewingList');

export const ViewingsQuery = z.strictObject({
  ...syncQuery,
  ...externalQuery,
  deal: reference.optional().openapi({ description: 'Only the viewings of this deal.' }),
  status: z.enum(viewingStatuses).optional(),
});

export const ViewingParams = z.object({ reference });

export const ViewingInput = z
  .strictObject({
    deal: reference.openapi({ description: 'The deal (`D-…`) the viewing is on.', example: 'D-7K3M9Q2XAB' }),
    home: home.optional().openapi({ description: 'Default: the deal’s home.' }),
    time: instant,
    shown_by: memberId.optional(),
    external: ExternalInput.optional().openapi({
      description: 'Your booking’s id: sent again, the same viewing comes back (200).',
    }),
  })
  .openapi('ViewingInput');

export const ViewingPatchInput = z
  .strictObject({
    time: instant,
    home,
    shown_by: memberId.nullable(),
    status: z
      .enum(['done', 'cancelled', 'missed'])
      .openapi({ description: 'How it ended: `done` (it took place), `cancelled`, `missed` (nobody came).' }),
    feedback: feedback.nullable().openapi({ description: 'How it went. Never in an event.' }),
    external: ExternalInput,
  })
  .partial()
  .openapi('ViewingPatch');

export type ViewingInputValue = z.infer<typeof ViewingInput>;
export type ViewingPatchValue = z.infer<typeof ViewingPatchInput>;
