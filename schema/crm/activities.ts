import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { listOf, instant as requestInstant, syncQuery } from '../common/api';
import { externalFilter, externalIdText, externalSource } from '../common/external';
import { activityTypes } from './db';

/** The client's system and its id for a follow-up: `source` + `external_id` make a write idempotent. */
export const followupSource = externalSource.openapi({ description: 'Your system, e.g. `hubspot`.', example: 'hubspot' });
export const followupExternalId = externalIdText.openapi({
  description: 'Your id of this record: sent again with the same source, the first record comes back (200).',
});

/** `external=<source>:<external_id>` on follow-up lists (the one `?external=`, named as follow-ups show it). */
export const followupExternalQuery = externalFilter(
  'external_id',
  'Only the record with this `source` and `external_id`, as `<source>:<external_id>`.',
);

const reference = (description: string) => text().min(1).max(100).openapi({ description });
const instant = z.string().openapi({ example: '2026-11-21T09:30:00.000Z' });

export const ActivitySchema = z
  .object({
    reference: z.string().openapi({ example: 'A-9XK2M4Q7PB' }),
    type: z.enum(activityTypes),
    source: z.string(),
    external_id: z.string(),
    lead: z.string().nullable().openapi({ description: "The lead's reference." }),
    person: z.string().nullable().openapi({ description: "The person's contact reference." }),
    by: z.string().nullable().openapi({ description: 'The member who did it.' }),
    body: z.string().nullable(),
    occurred_at: instant,
    created_at: instant,
    updated_at: instant,
  })
  .openapi('Activity');

export const ActivityListSchema = listOf(ActivitySchema, 'ActivityList');

export const ActivitiesQuery = z.strictObject({ ...syncQuery, ...followupExternalQuery });

export const ActivityInput = z
  .strictObject({
    type: z.enum(activityTypes),
    source: followupSource,
    external_id: followupExternalId,
    lead: reference('A lead reference. A call logged on a lead is its first answer when it has none yet.').optional(),
    person: reference("A contact reference; the lead's person when only a lead is given.").optional(),
    by: text().min(1).max(100).optional().openapi({ description: 'A member id of this company.' }),
    body: text().max(10000).optional(),
    occurred_at: requestInstant.optional().openapi({ description: 'When it happened; now by default.' }),
  })
  .openapi('ActivityInput');

export type ActivityInputValue = z.infer<typeof ActivityInput>;
