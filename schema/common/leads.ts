import { z } from '@hono/zod-openapi';
import { ExternalSchema } from './external';

/** A lead's statuses (the CRM moves them; see leadTransitions in functions/crm/leads.ts). */
export const leadStatuses = ['new', 'contacted', 'qualified', 'viewing', 'negotiating', 'won', 'lost', 'spam'] as const;
export type LeadStatus = (typeof leadStatuses)[number];

/** A lead as every answer shows it: the forms group (a server's POST /leads) and the CRM (sync, PATCH). */
const instant = z.string().openapi({ example: '2026-11-21T09:30:00.000Z' });

export const LeadSchema = z
  .object({
    reference: z.string().openapi({ example: 'L-4F7KQ2M9XA' }),
    person: z.string().nullable().openapi({ description: "The person's contact reference." }),
    status: z.enum(leadStatuses),
    assignee: z.string().nullable().openapi({ description: 'A member id.' }),
    department: z.string().nullable().openapi({ description: 'A department key.' }),
    next_action: z.object({ text: z.string(), due_at: instant.nullable() }).nullable(),
    first_answered_at: instant.nullable().openapi({ description: 'When the first call on this lead happened.' }),
    first_answer_seconds: z.number().int().nullable().openapi({ description: 'Seconds from created_at to first_answered_at.' }),
    escalated_at: instant.nullable(),
    service: z.string().nullable(),
    form: z.string().nullable(),
    page: z.string().nullable(),
    listing: z.string().nullable().openapi({ description: "The listing's English slug." }),
    message: z.string().nullable(),
    language: z.string().nullable(),
    details: z.record(z.string(), z.unknown()).nullable().openapi({ description: 'Decrypted; null when none were sent.' }),
    consent: z.object({ version: z.string(), given_at: instant }).nullable(),
    external: z.array(ExternalSchema),
    erased: z.boolean(),
    created_at: instant,
    updated_at: instant,
  })
  .openapi('Lead');
