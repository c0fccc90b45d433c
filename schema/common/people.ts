import { z } from '@hono/zod-openapi';
import { text } from './text';
import { ExternalInput } from './external';

/** ISO 639-1 code, as team profiles take (e.g. `en`, `ar`). */
export const language = text().regex(/^[a-z]{2}$/, 'A two-letter ISO 639-1 code such as en or ar.');
/**
 * A person's phone as a client sends it (a visitor form, a booking request, POST /contacts, a deal's person): any
 * usual form, international or as dialled in the company's country (lib/people-keys.ts, normalisePhone).
 */
export const phoneInput = text().max(40).openapi({
  description:
    "Any usual form: international (`+971 50 123 4567`, `00971…`) or as dialled in the company's country (`050 123 4567`: the company's phone_country, else the country of its time zone). Kept and matched in E.164; a number that cannot be read is 400 `invalid_phone`.",
});
/** Why a form or request that names a person by details is refused without an email and a phone: it could never be matched. */
export const emailOrPhoneMessage = 'Send at least one of email or phone.';

/** The refinement of such a body (visitor forms, booking requests): 400 at `email` without an email and a phone. */
export function requireEmailOrPhone(input: { email?: string; phone?: string }, ctx: z.RefinementCtx): void {
  if (input.email === undefined && input.phone === undefined) {
    ctx.addIssue({ code: 'custom', path: ['email'], message: emailOrPhoneMessage });
  }
}

const role = text().regex(/^[a-z][a-z0-9_]{0,39}$/, 'Lower-case letters, digits and "_" (e.g. buyer, owner).');

/**
 * A person's details, matched or added exactly as POST /contacts does (lib/people.ts: external id, then email, then
 * phone; fills, never overwrites): the body of POST /contacts, and the `person` of a new deal.
 */
export const PersonInput = z
  .strictObject({
    name: text().trim().min(1).max(200).optional(),
    email: text().trim().max(254).pipe(z.email()).optional(),
    phone: phoneInput.optional(),
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

export type PersonInputValue = z.infer<typeof PersonInput>;

/**
 * `q` of the people's lists (contacts, leads, deals; issue 36): a name (any part, either script, common spellings), a
 * phone number as written (E.164 or its last digits) or an email (case-insensitive). docs "Search".
 */
export const personQuery = text()
  .max(200)
  .optional()
  .openapi({
    description:
      'A person’s name (words of it, in Arabic or English, common spellings: Mohammed finds Muhammad and محمد), a phone ' +
      'number in any written form (matched on E.164 and on its last digits) or an email (case-insensitive). At most 200 characters.',
  });
