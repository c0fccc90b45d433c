import type { z } from '@hono/zod-openapi';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { externalIdsOf } from '../../lib/external-ids';
import type { InspectionRow } from '../../schema/maintenance/db';
import type { InspectionSchema } from '../../schema/maintenance/inspections';

export type InspectionView = z.infer<typeof InspectionSchema>;
export type InspectionRecord = InspectionRow & { home_slug: string; lease_reference: string | null };

/** A page of inspections as the API shows them, with their external ids (one query for the page). */
export async function presentInspections(db: Executor, rows: InspectionRecord[]): Promise<InspectionView[]> {
  const externals = await externalIdsOf(
    db,
    'inspection',
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    reference: row.reference,
    kind: row.kind,
    home: row.home_slug,
    lease: row.lease_reference,
    planned_on: row.planned_on,
    inspector: row.inspector_id,
    notes: row.notes,
    areas: row.areas,
    external: externals.get(row.id) ?? [],
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }));
}
