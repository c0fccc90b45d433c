import { z } from '@hono/zod-openapi';

/** Fields every maintenance schema shares (schema/maintenance/*.ts). */

export const instantOut = z.string().openapi({ example: '2027-01-01T09:30:00.000Z' });
export const dayOut = z.string().openapi({ description: 'YYYY-MM-DD, in the company’s time zone.', example: '2027-01-15' });
export const reference = z.string().min(1).max(100);
/** An id in a path: any text (a malformed one is a 404, as an unknown one; see `knownId`). */
export const uuidParam = z.string().min(1).max(100);
export const memberId = z.string().min(1).max(100).openapi({ description: 'A member id of this company.' });
export const contractorId = z.string().uuid().openapi({ description: 'A `contractor_id` of this company.' });
export const homeSlug = z
  .string()
  .min(1)
  .max(200)
  .openapi({ description: 'A listing of the company, by its English slug.', example: 'marina-gate-1br-furnished' });
export const longText = (max = 5000) => z.string().trim().min(1).max(max);
