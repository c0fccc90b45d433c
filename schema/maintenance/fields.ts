import { z } from '@hono/zod-openapi';
import { text } from '../common/text';

/** Fields every maintenance schema shares (schema/maintenance/*.ts). */

export const instantOut = z.string().openapi({ example: '2027-01-01T09:30:00.000Z' });
export const dayOut = z.string().openapi({ description: 'YYYY-MM-DD, in the company’s time zone.', example: '2027-01-15' });
export const reference = text().min(1).max(100);
/** An id in a path: any text (a malformed one is a 404, as an unknown one; see `knownId`). */
export const uuidParam = text().min(1).max(100);
export const memberId = text().min(1).max(100).openapi({ description: 'A member id of this company.' });
export const contractorId = text().uuid().openapi({ description: 'A `contractor_id` of this company.' });
export const homeSlug = text()
  .min(1)
  .max(200)
  .openapi({ description: 'A listing of the company, by its English slug.', example: 'marina-gate-1br-furnished' });
export const longText = (max = 5000) => text().trim().min(1).max(max);
