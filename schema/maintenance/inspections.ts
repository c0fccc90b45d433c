import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { calendarDate, listOf, syncQuery } from '../common/api';
import { ExternalInput, ExternalSchema, externalQuery } from '../common/external';
import { areaConditions, inspectionKinds } from './db';
import { dayOut, homeSlug, instantOut, longText, memberId, reference } from './fields';

/** Inspections (issue 12; docs/api-reference.md, "Maintenance"). */

export const AreaInput = z
  .strictObject({
    name: text().trim().min(1).max(100).openapi({ example: 'Kitchen' }),
    condition: z.enum(areaConditions).optional(),
    notes: longText(2000).optional(),
  })
  .openapi('InspectionAreaInput');

export const InspectionInput = z
  .strictObject({
    kind: z.enum(inspectionKinds),
    home: homeSlug.optional().openapi({ description: 'Default: the lease’s home. Required without a lease.' }),
    lease: reference
      .optional()
      .openapi({ description: 'Required for `move_in` and `move_out` (once each per lease); optional for `routine`.' }),
    planned_on: calendarDate,
    inspector: memberId.optional(),
    notes: longText().optional(),
    areas: z.array(AreaInput).max(100).default([]),
    external: ExternalInput.optional(),
  })
  .refine((i) => i.kind === 'routine' || i.lease !== undefined, {
    path: ['lease'],
    message: 'A move-in or move-out is on a lease.',
  })
  .refine((i) => i.home !== undefined || i.lease !== undefined, { path: ['home'], message: 'A home or a lease.' })
  .openapi('InspectionInput');

export const InspectionSchema = z
  .object({
    reference: z.string().openapi({ example: 'I-7K3M9Q2XAB' }),
    kind: z.enum(inspectionKinds),
    home: z.string(),
    lease: z.string().nullable(),
    planned_on: dayOut,
    inspector: z.string().nullable(),
    notes: z.string().nullable(),
    areas: z.array(z.object({ name: z.string(), condition: z.enum(areaConditions).nullable(), notes: z.string().nullable() })),
    external: z.array(ExternalSchema),
    created_at: instantOut,
    updated_at: instantOut,
  })
  .openapi('Inspection');

export const InspectionListSchema = listOf(InspectionSchema, 'InspectionList');

export const InspectionsQuery = z.strictObject({
  ...syncQuery,
  ...externalQuery,
  kind: z.enum(inspectionKinds).optional(),
  home: homeSlug.optional(),
  lease: reference.optional(),
});

export const InspectionParams = z.object({ reference });

export type InspectionInputValue = z.infer<typeof InspectionInput>;
