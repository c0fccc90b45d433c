import { z } from '@hono/zod-openapi';

/** A company rule a write broke: the write still succeeded (DESIGN.md, "Warnings"). */
export const WarningSchema = z
  .object({
    code: z.string().openapi({ description: 'The spec’s warning code, e.g. `schedule_total_differs`.' }),
    message: z.string().openapi({ description: 'What was found, for people.' }),
  })
  .openapi('Warning');
