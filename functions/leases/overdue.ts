import { sql } from 'kysely';
import { addDays, todayIn } from '../../lib/dates';
import type { Db } from '../../lib/db/index';
import { recordEvent } from '../../lib/events';
import type { CompanySettings } from '../../schema/platform/db';
import { leaseDefaults } from './rules';

const batch = 500;

/**
 * Scheduled work: announces `rent_payment.overdue` once per payment and sets its `overdue_at`. A payment is overdue
 * from the day after its due date plus the company's `rent_grace_days`, counted in the company's time zone, while
 * it is still `due` on a lease that is not a draft (an ended lease's arrears stay overdue). Each batch claims its
 * rows (`for update skip locked`, `overdue_at is null`), so runs from several places announce each payment once. The
 * payment row is locked bare: its lease is read by a subquery, not joined (lib/db/locked.ts says why).
 * Returns how many were announced.
 */
export async function announceOverdueRent(db: Db, now: Date): Promise<number> {
  const companies = await db
    .selectFrom('rent_payments')
    .innerJoin('companies', 'companies.id', 'rent_payments.company_id')
    .select(['companies.id', 'companies.time_zone', 'companies.settings'])
    .distinct()
    .where('rent_payments.status', '=', 'due')
    .where('rent_payments.overdue_at', 'is', null)
    .execute();
  let count = 0;
  for (const company of companies) {
    const grace = (company.settings as CompanySettings).rent_grace_days ?? leaseDefaults.rent_grace_days;
    // Overdue on `due_on + grace + 1`: so every payment due on or before this day is overdue today.
    const lastDue = addDays(todayIn(company.time_zone, now), -(grace + 1));
    for (;;) {
      const announced = await db.transaction().execute(async (trx) => {
        const rows = await sql<{ id: string; lease_reference: string }>`
          with claimed as (
            select p.id from rent_payments p
            where p.company_id = ${company.id} and p.status = 'due' and p.overdue_at is null
              and p.due_on <= ${lastDue}::date
              and (select l.status from leases l where l.id = p.lease_id) <> 'draft'
            order by p.due_on, p.id
            limit ${batch}
            for update skip locked
          )
          update rent_payments p set overdue_at = ${now}::timestamptz
          from claimed, leases l
          where p.id = claimed.id and l.id = p.lease_id
          returning p.id, l.reference as lease_reference`.execute(trx);
        for (const row of rows.rows) {
          const data = { payment_id: row.id, lease_reference: row.lease_reference };
          await recordEvent(trx, { companyId: company.id, type: 'rent_payment.overdue', causedBy: 'system', data });
        }
        return rows.rows.length;
      });
      count += announced;
      if (announced < batch) break;
    }
  }
  return count;
}
