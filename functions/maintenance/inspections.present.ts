import type { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { type ExternalLink, externalIdsColumn, shownExternalIds } from '../../lib/external-ids';
import type { InspectionRow } from '../../schema/maintenance/db';
import type { InspectionSchema } from '../../schema/maintenance/inspections';

export type InspectionView = z.infer<typeof InspectionSchema>;
/** An inspection's row as shown: with its home's slug, its lease's reference and its external ids. */
export type InspectionRecord = InspectionRow & { home_slug: string; lease_reference: string | null; external: ExternalLink[] };

/** A company's inspections with the home's slug, the lease's reference and the external ids (one query a page). */
export function selectInspections(executor: Executor, companyId: string) {
  return executor
    .selectFrom('inspections')
    .innerJoin('listings as home', 'home.id', 'inspections.listing_id')
    .leftJoin('leases as lease', 'lease.id', 'inspections.lease_id')
    .selectAll('inspections')
    .select([
      sql<string>`inspections.planned_on::text`.as('planned_on'),
      'home.slug_en as home_slug',
      'lease.reference as lease_reference',
      externalIdsColumn('inspection', 'inspections.id').as('external'),
    ])
    .where('inspections.company_id', '=', companyId);
}

/** An inspection as the API shows it (from its row alone: no query). */
export function presentInspection(row: InspectionRecord): InspectionView {
  return {
    reference: row.reference,
    kind: row.kind,
    home: row.home_slug,
    lease: row.lease_reference,
    planned_on: row.planned_on,
    inspector: row.inspector_id,
    notes: row.notes,
    areas: row.areas,
    external: shownExternalIds(row.external),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
