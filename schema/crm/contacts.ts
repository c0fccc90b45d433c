import { z } from '@hono/zod-openapi';
import { syncQuery, listOf } from '../common/api';
import { ExternalInput, ExternalSchema, externalQuery } from '../common/external';

/** ISO 639-1 code, as team profiles take (e.g. `en`, `ar`). */
const language = z.string().regex(/^[a-z]{2}$/, 'A two-letter ISO 639-1 code such as en or ar.');
const role = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'Lower-case letters, digits and "_" (e.g. buyer, owner).');

export const ContactSchema = z
  .object({
    reference: z.string().openapi({ example: 'P-7K3M9Q2XAB' }),
    name: z.string().nullable(),
    email: z.string().nullable(),
    phone: z.string().nullable().openapi({ description: 'E.164, e.g. +971501234567.' }),
    language: z.string().nullable(),
    roles: z.array(z.string()),
    leads: z.array(z.string()).openapi({ description: "References of the person's leads, oldest first." }),
    external: z.array(ExternalSchema),
    erased: z.boolean().openapi({ description: 'Erased under a privacy request or retention: erase your copy too.' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('Contact');

export const ContactListSchema = listOf(ContactSchema, 'ContactList');

export const ContactsQuery = z.strictObject({ ...syncQuery, ...externalQuery });

export const ContactParams = z.object({ reference: z.string().min(1).max(100) });

export const ContactInput = z
  .strictObject({
    name: z.string().trim().min(1).max(200).optional(),
    email: z.string().trim().max(254).pipe(z.email()).optional(),
    phone: z
      .string()
      .max(40)
      .optional()
      .openapi({ description: "Any format; normalised to E.164 (numbers without + read in the company's phone_country)." }),
    language: language.optional(),
    roles: z.array(role).max(10).optional().openapi({ description: 'Added to the roles the person already has.' }),
    external: ExternalInput.optional(),
  })
  .superRefine((input, ctx) => {
    if (input.email === undefined && input.phone === undefined && input.external === undefined) {
      ctx.addIssue({ code: 'custom', path: ['email'], message: 'Send at least one of email, phone or external.' });
    }
  })
  .openapi('ContactInput');

export const ContactPatchInput = z
  .strictObject({
    name: z.string().trim().min(1).max(200).nullable().optional(),
    language: language.nullable().optional(),
    external: ExternalInput.optional(),
  })
  .openapi('ContactPatch');

export type ContactInputValue = z.infer<typeof ContactInput>;
export type ContactPatchValue = z.infer<typeof ContactPatchInput>;
