import { sql } from 'kysely';
import { addDays, todayIn } from '../../lib/dates';
import type { Db, Trx } from '../../lib/db/index';
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
    for (;;) {
      const announced = await db.transaction().execute((trx) => announceOverdue(trx, company, now, { limit: batch }));
      count += announced;
      if (announced < batch) break;
    }
  }
  return count;
}

type Overdue = { limit: number } | { leaseId: string };

/** The last due date that is overdue at `now` for the company: `due_on + grace + 1` is the first day overdue. */
export function lastDueOn(company: { time_zone: string; settings: unknown }, now: Date): string {
  const grace = (company.settings as CompanySettings).rent_grace_days ?? leaseDefaults.rent_grace_days;
  return addDays(todayIn(company.time_zone, now), -(grace + 1));
}

/**
 * The step of the work for one company, in the caller's transaction: its payments overdue at `now` claimed (a batch of
 * `limit`, or those of one lease: the test events' fixture, functions/triggers-scheduled.ts), marked and announced.
 * Answers how many were announced.
 */
export async function announceOverdue(
  trx: Trx,
  company: { id: string; time_zone: string; settings: unknown },
  now: Date,
  which: Overdue,
): Promise<number> {
  const lastDue = lastDueOn(company, now);
  const rows = await sql<{ id: string; lease_reference: string }>`
    with claimed as (
      select p.id from rent_payments p
      where p.company_id = ${company.id} and p.status = 'due' and p.overdue_at is null
        and p.due_on <= ${lastDue}::date
        and (select l.status from leases l where l.id = p.lease_id) <> 'draft'
        ${'leaseId' in which ? sql`and p.lease_id = ${which.leaseId}::uuid` : sql``}
      order by p.due_on, p.id
      ${'limit' in which ? sql`limit ${which.limit}` : sql``}
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
}
