import { sql } from 'kysely';
import type { Db } from '../../lib/db/index';
import { eventsCtes, newEventId } from '../../lib/events';
import type { CompanySettings } from '../../schema/platform/db';
import { firstOpenMonth } from './months';

const batch = 500;

/**
 * Scheduled work: `owner_statement.ready` once per owner and month, when the month has closed (the company's
 * `statement_grace_days` after its end, in its time zone) for an owner who has a statement (a line) in it. The event
 * carries the owner's reference and the month only. Each batch is one read and one statement that marks the months
 * announced (`announced_at is null` re-checked under the row lock) and records an event for each it marked, so runs
 * from several places announce each month once. Returns how many were announced.
 */
export async function announceReadyStatements(db: Db, now: Date): Promise<number> {
  const companies = await db
    .selectFrom('owner_statements')
    .innerJoin('companies', 'companies.id', 'owner_statements.company_id')
    .select(['companies.id', 'companies.time_zone', 'companies.settings'])
    .distinct()
    .where('owner_statements.announced_at', 'is', null)
    .execute();
  let count = 0;
  for (const company of companies) {
    const open = `${firstOpenMonth({ time_zone: company.time_zone, settings: company.settings as CompanySettings }, now)}-01`;
    for (;;) {
      const due = await db
        .selectFrom('owner_statements')
        .select(['owner_id', sql<string>`month::text`.as('month')])
        .where('company_id', '=', company.id)
        .where('announced_at', 'is', null)
        .where('month', '<', open)
        .orderBy('month')
        .orderBy('owner_id')
        .limit(batch)
        .execute();
      if (due.length === 0) break;
      const { rows } = await sql<{ announced: string }>`
        with claimed as (
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
        )}
        select count(*)::text as announced from claimed`.execute(db);
      count += Number(rows[0]?.announced ?? 0);
      if (due.length < batch) break;
    }
  }
  return count;
}
