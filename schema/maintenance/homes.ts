import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { decimalInput } from '../common/money';

/** A home's maintenance settings (admin API): its owner when no lease names one, and the owner's approval limit. */
export const HomeMaintenanceInput = z
  .strictObject({
    owner: text()
      .min(1)
      .max(100)
      .nullable()
      .optional()
      .openapi({ description: 'A contact’s reference: the owner charges are booked to when the home has no lease then.' }),
    approval_limit: decimalInput
      .nullable()
      .optional()
      .openapi({ description: '`approval_needed` above this estimate; null: the company’s `maintenance_approval_limit`.' }),
  })
  .openapi('AdminHomeMaintenanceInput');

export const HomeMaintenanceSchema = z
  .object({ home: z.string(), owner: z.string().nullable(), approval_limit: z.string().nullable() })
  .openapi('AdminHomeMaintenance');
