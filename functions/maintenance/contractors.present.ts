import type { z } from '@hono/zod-openapi';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { type ExternalLink, externalIdsColumn, shownExternalIds } from '../../lib/external-ids';
import type { ContractorSchema } from '../../schema/maintenance/contractors';
import type { ContractorRow } from '../../schema/maintenance/db';

export type ContractorView = z.infer<typeof ContractorSchema>;

/** A contractor's row as shown: with its external ids. */
export type ContractorRecord = ContractorRow & { external: ExternalLink[] };

/** A company's contractors with their external ids (a subquery: one query for a whole page). */
export function selectContractors(executor: Executor, companyId: string) {
  return executor
    .selectFrom('contractors')
    .selectAll('contractors')
    .select(externalIdsColumn('contractor', 'contractors.id').as('external'))
    .where('contractors.company_id', '=', companyId);
}

/** A contractor as the API shows it (from its row alone: no query). */
export function presentContractor(row: ContractorRecord): ContractorView {
  return {
    contractor_id: row.id,
    name: row.name,
    kind: row.kind,
    trades: row.trades,
    contact_name: row.contact_name,
    email: row.email,
    phone: row.phone,
    notes: row.notes,
    status: row.status,
    stopped_at: iso(row.stopped_at),
    external: shownExternalIds(row.external),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
