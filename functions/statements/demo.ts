import { sql } from 'kysely';
import type { Trx } from '../../lib/db/index';
import { lastClosedMonth, recordClosings } from '../../lib/statement-months';
import { recordClosedDirham } from '../../lib/tourism-dirham';
import type { Company } from '../../schema/platform/db';

/**
 * The demo company's history (leases' receipts and maintenance's charges dated before `now`) came with its statement
 * lines; the months already closed at `now` are recorded closed and count as announced, as migration 0023 does for a
 * deployment's history, so the first scheduled run does not send `owner_statement.ready` for months long settled;
 * with their Tourism Dirham recorded, as the scheduled work records it. One statement.
 */
export async function seedStatementsDemo(trx: Trx, company: Company, now: Date): Promise<void> {
  await sql`
    with closed as (${recordClosings(company, now)}), dirham as (${recordClosedDirham(company, 'closed', now)})
    update owner_statements set announced_at = ${now}::timestamptz
    where company_id = ${company.id}::uuid and month <= ${`${lastClosedMonth(company, now)}-01`}::date`.execute(trx);
}
