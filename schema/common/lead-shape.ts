import { z } from '@hono/zod-openapi';
import { ExternalSchema } from './external';

/** A lead's statuses (the CRM moves them; see leadMachine in functions/crm/lead-changes.ts). */
export const leadStatuses = ['new', 'contacted', 'qualified', 'viewing', 'negotiating', 'won', 'lost', 'spam'] as const;
export type LeadStatus = (typeof leadStatuses)[number];

/**
 * How the enquirer reached out: a web form (POST /leads), or, for a lead from an inbound channel, what the source
 * says (Property Finder's `email`, `call` or `whatsapp`; a WhatsApp message; a signed sender's own choice).
 */
export const leadChannels = ['form', 'whatsapp', 'call', 'email', 'sms', 'chat', 'other'] as const;
export type LeadChannel = (typeof leadChannels)[number];

/** A click-to-WhatsApp ad's details (Meta's `referral`), kept on the lead it started. */
export type LeadReferral = {
  source_url: string | null;
  source_id: string | null;
  source_type: string | null;
  headline: string | null;
  body: string | null;
  ctwa_clid: string | null;
};

const text = z.string().nullable();

export const LeadReferralSchema = z
  .object({
    source_url: text.openapi({ description: 'The ad or post the enquirer clicked.' }),
    source_id: text.openapi({ description: "Meta's id of the ad or post." }),
    source_type: text.openapi({ description: '`ad` or `post`.' }),
    headline: text,
    body: text,
    ctwa_clid: text.openapi({ description: 'The click id, for Meta’s conversions reporting.' }),
  })
  .openapi('LeadReferral', { description: 'The click-to-WhatsApp ad (or post) that started the conversation.' });

const sentFields = {
  name: text,
  email: text,
  phone: text.openapi({ description: 'As sent (not normalised).' }),
};
const sentDescription =
  'What the sender gave, exactly as sent (but for card numbers, never kept: each is `[card number removed]`). The person (`person`) may be an existing contact whose own name, email or phone differ: an anonymous form or source never changes them (docs/api-reference.md, "Matching people").';

export const SentDetailsSchema = z.object(sentFields).openapi('SentDetails', { description: sentDescription });

export const LeadSentSchema = z
  .object({
    ...sentFields,
    listing: text.openapi({
      description:
        'The listing as the sender named it (a slug, or a portal’s reference), kept even when it matches no listing (`listing` is then null).',
    }),
  })
  .openapi('LeadSent', { description: sentDescription });

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
    sent: LeadSentSchema,
    channel: z.enum(leadChannels).openapi({ description: 'How the enquirer reached out.' }),
    source: z.string().openapi({
      description:
        '`website` (a publishable key), `api` (a server key), `whatsapp`, `propertyfinder`, or the name of a signed inbound channel (e.g. `bayut`).',
      example: 'website',
    }),
    source_id: text.openapi({
      description: "The source's own id of the enquiry (a WhatsApp message id, a Property Finder lead id).",
    }),
    referral: LeadReferralSchema.nullable(),
    consent: z.object({ version: z.string(), given_at: instant }).nullable(),
    external: z.array(ExternalSchema),
    erased: z.boolean(),
    created_at: instant,
    updated_at: instant,
  })
  .openapi('Lead');
