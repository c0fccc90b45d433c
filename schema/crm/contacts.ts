import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { syncQuery, listOf } from '../common/api';
import { ExternalInput, ExternalSchema, externalQuery } from '../common/external';
import { language, PersonInput, personQuery } from '../common/people';
import { trnInput } from '../common/tax';

export const ContactSchema = z
  .object({
    reference: z.string().openapi({ example: 'P-7K3M9Q2XAB' }),
    name: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable().openapi({ description: 'E.164, e.g. +971501234567.' }),
    language: z.string().nullable(),
    trn: z.string().nullable().openapi({
      description:
        'The UAE Tax Registration Number of a buyer or landlord registered for VAT: its tax invoices are full ones naming it (docs/api-reference.md, "Tax invoices and credit notes").',
    }),
    roles: z.array(z.string()),
    leads: z.array(z.string()).openapi({ description: "References of the person's leads, oldest first." }),
    possible_duplicates: z
      .array(
        z.object({
          person: z.string().openapi({ description: 'The other person’s reference.' }),
          reason: z.enum(['same_phone']).openapi({
            description:
              '`same_phone`: a visitor (a form, an inbound channel) gave this phone with another email (or the other person has none); they were kept apart.',
          }),
          since: z.string(),
        }),
      )
      .openapi({
        description:
          'People staff should look at beside this one: anonymous input never merges people (docs/api-reference.md, "Matching people"). Listed on both people.',
      }),
    external: z.array(ExternalSchema),
    erased: z.boolean().openapi({ description: 'Erased under a privacy request or retention: erase your copy too.' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Contact');

export const ContactListSchema = listOf(ContactSchema, 'ContactList');

export const ContactsQuery = z.strictObject({ ...syncQuery, ...externalQuery, q: personQuery });

export const ContactParams = z.object({ reference: text().min(1).max(100) });

/** Add or match a person (the one person input, shared with every group that names a person by details). */
export const ContactInput = PersonInput;

export const ContactPatchInput = z
  .strictObject({
    name: text().trim().min(1).max(200).nullable().optional(),
    language: language.nullable().optional(),
    trn: trnInput.nullable().optional().openapi({
      description: 'The person’s or business’s TRN (15 digits, 100…03; else `invalid_trn`); null removes it.',
    }),
    external: ExternalInput.optional(),
  })
  .openapi('ContactPatch');

export type ContactInputValue = z.infer<typeof ContactInput>;
export type ContactPatchValue = z.infer<typeof ContactPatchInput>;
