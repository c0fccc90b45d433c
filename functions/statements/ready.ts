import { sql } from 'kysely';
import type { Db } from '../../lib/db/index';
import { todayIn } from '../../lib/dates';
import { eventsCtes, newEventId } from '../../lib/events';
import { issueManyCtes } from '../../lib/invoices';
import { lastClosedMonth, recordClosings } from '../../lib/statement-months';
import { recordClosedDirham } from '../../lib/tourism-dirham';
import type { Company, CompanySettings } from '../../schema/platform/db';
import { feeDocuments, type OwnerMonth, ownerMonthColumns } from './fee-invoices';

const batch = 500;

type Closer = Pick<Company, 'id' | 'name' | 'time_zone' | 'settings' | 'currency'>;

/**
 * Scheduled work: each company's months that closed, recorded (`statement_closings`, lib/statement-months.ts) with
 * their Tourism Dirham (`tourism_dirham_months`, lib/tourism-dirham.ts: the month's report as it closed), and
 * `owner_statement.ready` once per owner and month that is closed, for an owner who has a statement (a line) in it.
 * A month is closed when recorded so, or when the company's rule closes it (`statement_grace_days` after its end, in
 * its time zone), which this run records. The event carries the owner's reference and the month only. One read of
 * every company's last recorded month and first month not announced; then, for a company with something to do, each
 * batch is one read and one statement that records its closings (the first) and marks the months announced
 * (`announced_at is null` re-checked under the row lock) with an event for each it marked, so runs from several
 * places record and announce each month once. Returns how many were announced.
 */
export async function announceReadyStatements(db: Db, now: Date): Promise<number> {
  const companies = await db
    .selectFrom('companies as c')
    .select([
      'c.id',
      'c.name',
      'c.time_zone',
      'c.settings',
      'c.currency',
      sql<string | null>`(select to_char(max(k.month), 'YYYY-MM') from statement_closings k
        where k.company_id = c.id and k.recorded_at <= ${now}::timestamptz)`.as('recorded'),
      sql<string | null>`(select to_char(min(s.month), 'YYYY-MM') from owner_statements s
        where s.company_id = c.id and s.announced_at is null)`.as('unannounced'),
    ])
    .execute();
  let count = 0;
  for (const row of companies) {
    const company = {
      id: row.id,
      name: row.name,
      time_zone: row.time_zone,
      settings: row.settings as CompanySettings,
      currency: row.currency,
    };
    const closes = lastClosedMonth(company, now);
    // Through the later of the last month recorded and the last the rule closes; recorded when the rule's is later.
    const through = row.recorded !== null && row.recorded >= closes ? row.recorded : closes;
    const record = through === closes && row.recorded !== closes;
    const announce = row.unannounced !== null && row.unannounced <= through;
    if (record || announce) count += await closeMonths(db, company, { through, record, announce }, now);
  }
  return count;
}

/** A company's closings recorded (when `record`) and its owners' months through `through` announced, in batches. */
async function closeMonths(
  db: Db,
  company: Closer,
  work: { through: string; record: boolean; announce: boolean },
  now: Date,
): Promise<number> {
  let count = 0;
  let record = work.record;
  for (;;) {
    // With each owner's month its fee lines: the closing issues the month's fee invoices (fee-invoices.ts).
    const fees = ownerMonthColumns(company.id);
    const due: OwnerMonth[] = work.announce
      ? await db
          .selectFrom('owner_statements as s')
          .select([
            's.owner_id',
            sql<string>`s.month::text`.as('month'),
            fees.owner_ref.as('owner_ref'),
            fees.owner_name.as('owner_name'),
            fees.owner_trn.as('owner_trn'),
            fees.fees.as('fees'),
          ])
          .where('s.company_id', '=', company.id)
          .where('s.announced_at', 'is', null)
          .where('s.month', '<=', `${work.through}-01`)
          .orderBy('s.month')
          .orderBy('s.owner_id')
          .limit(batch)
          .execute()
      : [];
    if (due.length === 0 && !record) break;
    // Issued only for the months this statement claims (a concurrent closer that claimed one first issued them).
    const day = todayIn(company.time_zone, now);
    const issues = due.flatMap((d) =>
      feeDocuments(
        company,
        d,
        day,
        sql<boolean>`exists (select from claimed where claimed.owner_id = ${d.owner_id}::uuid and claimed.month = ${d.month}::date)`,
      ),
    );
    const { rows } = await sql<{ announced: string }>`
      with ${record ? sql`closed as (${recordClosings(company, now)}), dirham as (${recordClosedDirham(company, 'closed', now)}),` : sql``}
      claimed as (
        update owner_statements s set announced_at = ${now}::timestamptz
        from unnest(${due.map((d) => d.owner_id)}::uuid[], ${due.map((d) => d.month)}::date[],
          ${due.map(() => newEventId())}::text[]) as c (owner_id, month, event_id)
        where s.owner_id = c.owner_id and s.month = c.month and s.announced_at is null
        returning s.owner_id, s.month, c.event_id
      ),
      ${eventsCtes(
        'ready',
        { companyId: company.id, type: 'owner_statement.ready', causedBy: 'system' },
        sql`select claimed.event_id as id,
            jsonb_build_object('owner_reference', o.reference, 'month', to_char(claimed.month, 'YYYY-MM')) as data
          from claimed join contacts o on o.id = claimed.owner_id`,
      )}${issues.length > 0 ? sql`, ${issueManyCtes('fees', issues)}` : sql``}
      select count(*)::text as announced from claimed`.execute(db);
    count += Number(rows[0]?.announced ?? 0);
    record = false;
    if (due.length < batch) break;
  }
  return count;
}
