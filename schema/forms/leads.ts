import { z } from '@hono/zod-openapi';
import { formGuardFields, leadFormFields } from '../common/forms';

export const LeadInput = z
  .strictObject(leadFormFields)
  .superRefine((input, ctx) => {
    if (input.email === undefined && input.phone === undefined) {
      ctx.addIssue({ code: 'custom', path: ['email'], message: 'Send at least one of email or phone.' });
    }
  })
  .openapi('LeadInput');

export type LeadInputValue = z.infer<typeof LeadInput>;

export const LeadFormInput = z
  .strictObject({ ...leadFormFields, ...formGuardFields })
  .superRefine((input, ctx) => {
    if (input.email === undefined && input.phone === undefined) {
      ctx.addIssue({ code: 'custom', path: ['email'], message: 'Send at least one of email or phone.' });
    }
  })
  .openapi('LeadFormInput');

export const FormLeadAnswer = z
  .object({ reference: z.string().openapi({ example: 'L-4F7KQ2M9XA' }) })
  .openapi('FormLeadAnswer', { description: "A browser form's answer: the lead's reference, and nothing the visitor sent." });
