import { z } from '@hono/zod-openapi';
import { text } from './text';
import { phoneInput } from './people';

/** The fields every visitor form shares (enquiries: schema/forms/enquiries.ts; booking requests: schema/stay/bookings.ts). */

const detailScalar = z.union([text().max(500), z.number().finite(), z.boolean()]);

const prototypeNames = ['__proto__', 'constructor', 'prototype'];

/**
 * Refuses an object's own keys that name a prototype. JSON.parse keeps `"__proto__"` as an own key, which zod
 * would otherwise drop without a word; `constructor` and `prototype` are refused alike.
 */
export function refusePrototypeKeys(value: unknown, ctx: z.RefinementCtx): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  for (const key of prototypeNames.filter((name) => Object.hasOwn(value, name))) {
    ctx.addIssue({
      code: 'custom',
      path: [key],
      message: `"${key}" may not be used as a name.`,
      params: { code: 'forbidden_key' },
    });
  }
}

/** The form's other answers, for staff. Content rules (no identity, card, password or contact data) are the domain's. */
export const LeadDetailsInput = z
  .preprocess(
    (value, ctx) => {
      refusePrototypeKeys(value, ctx);
      return value;
    },
    z
      .record(
        text()
          .max(64)
          .regex(/^[a-z0-9_]+$/, 'Lower-case letters, digits and "_".'),
        z.union([detailScalar, z.array(detailScalar).max(20)]),
      )
      .refine((details) => Object.keys(details).length <= 20, 'At most 20 keys.'),
  )
  .openapi('LeadDetails', {
    description:
      'Up to 20 keys of lower-case letters, digits and `_`; each value text (≤ 500 characters), a number, a boolean or a list of those. Stored encrypted. Keys for identity documents, card or bank numbers, passwords or contact details (in any spelling), email addresses, phone numbers and card numbers are refused with 400 at `details.<key>`.',
    example: { purpose: 'sale', bedrooms: 2, size_sqm: 120.5 },
  });

const language = text().regex(/^[a-z]{2}$/, 'A two-letter ISO 639-1 code such as en or ar.');

/** The fields of an enquiry, as a server posts it (the browser form adds its own fields to these). */
export const leadFormFields = {
  consent: z.literal(true).openapi({ description: 'Must be true: the person agreed to the privacy notice.' }),
  consent_version: text().trim().min(1).max(100).openapi({ description: 'The version of the privacy notice the person saw.' }),
  email: text().trim().max(254).pipe(z.email()).optional(),
  phone: phoneInput.optional(),
  name: text().trim().min(1).max(200).optional(),
  message: text().max(5000).optional(),
  language: language.optional(),
  service: text()
    .regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'A service key from GET /services.')
    .optional()
    .openapi({ description: 'A key from `GET /services`; a key the list does not have yet is kept too.' }),
  form: text()
    .max(64)
    .regex(/^[a-z0-9_-]+$/, 'Lower-case letters, digits, "-" and "_".')
    .optional(),
  page: text().max(2000).optional().openapi({
    description: 'The page of the form. Kept when it is an http(s) address, without query, fragment or credentials.',
  }),
  listing: text()
    .min(1)
    .max(200)
    .optional()
    .openapi({ description: 'A listing slug in any language; an unknown slug is ignored.' }),
  details: LeadDetailsInput.optional(),
};

/** What a browser form adds: the spam check's token and the hidden field bots fill. */
export const formGuardFields = {
  challenge: text().min(1).max(2048).optional().openapi({
    description:
      "The token of the company's spam-check widget (Cloudflare Turnstile) on the page. Required with a publishable key; a server key does not send it.",
  }),
  website: text().max(2000).optional().openapi({
    description: 'The hidden field: it must be sent empty (or left out). Bots fill it.',
  }),
};
