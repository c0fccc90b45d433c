import { z } from '@hono/zod-openapi';
import { formGuardFields, leadFormFields } from '../common/forms';
import { requireEmailOrPhone } from '../common/people';

export const LeadInput = z.strictObject(leadFormFields).superRefine(requireEmailOrPhone).openapi('LeadInput');

export type LeadInputValue = z.infer<typeof LeadInput>;

export const LeadFormInput = z
  .strictObject({ ...leadFormFields, ...formGuardFields })
  .superRefine(requireEmailOrPhone)
  .openapi('LeadFormInput');

export const FormLeadAnswer = z
  .object({ reference: z.string().openapi({ example: 'L-4F7KQ2M9XA' }) })
  .openapi('FormLeadAnswer', { description: "A browser form's answer: the lead's reference, and nothing the visitor sent." });
