import { sql } from 'kysely';
import type { Trx } from '../../lib/db/index';
import type { Company } from '../../schema/platform/db';
import { firstOpenMonth } from './months';

/**
 * The demo company's history (leases' receipts and maintenance's charges dated before `now`) came with its statement
 * lines; the months already closed at `now` count as announced, as migration 0023 does for a deployment's history,
 * so the first scheduled run does not send `owner_statement.ready` for months long settled.
 */
export async function seedStatementsDemo(trx: Trx, company: Company, now: Date): Promise<void> {
  await trx
    .updateTable('owner_statements')
    .set({ announced_at: now })
    .where('company_id', '=', company.id)
    .where('month', '<', sql<string>`${`${firstOpenMonth(company, now)}-01`}::date`)
    .execute();
}
