import type { z } from '@hono/zod-openapi';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { externalIdsOf } from '../../lib/external-ids';
import type { ContractorSchema } from '../../schema/maintenance/contractors';
import type { ContractorRow } from '../../schema/maintenance/db';

export type ContractorView = z.infer<typeof ContractorSchema>;

/** A page of contractors as the API shows them, with their external ids (one query for the page). */
export async function presentContractors(db: Executor, rows: ContractorRow[]): Promise<ContractorView[]> {
  const externals = await externalIdsOf(
    db,
    'contractor',
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
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
    external: externals.get(row.id) ?? [],
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }));
}
