import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { syncQuery, listOf, instant as requestInstant } from '../common/api';
import { ExternalInput, externalQuery } from '../common/external';
import { personQuery } from '../common/people';
import { LeadSchema, leadStatuses } from '../common/lead-shape';

export const LeadListSchema = listOf(LeadSchema, 'LeadList');

export const LeadsQuery = z.strictObject({ ...syncQuery, ...externalQuery, q: personQuery });

export const LeadParams = z.object({ reference: text().min(1).max(100) });

export const LeadPatchInput = z
  .strictObject({
    status: z.enum(leadStatuses).optional(),
    assignee: text().min(1).max(100).nullable().optional().openapi({ description: 'An active member id; null unassigns.' }),
    department: text().min(1).max(64).nullable().optional().openapi({ description: 'A department key; null clears it.' }),
    next_action: z
      .strictObject({ text: text().trim().min(1).max(500), due_at: requestInstant.nullable().optional() })
      .nullable()
      .optional(),
    external: ExternalInput.optional(),
  })
  .openapi('LeadPatch');

export type LeadPatchValue = z.infer<typeof LeadPatchInput>;
