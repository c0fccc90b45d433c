import { sql } from 'kysely';
import type { Db } from '../../lib/db/index';
import { recordEvent } from '../../lib/events';

const batchSize = 500;

/**
 * Scheduled work: every lead still `new`, without a first answer (a call logged on it) and not yet
 * escalated, that arrived at least the company's `settings.lead_answer_minutes` before `now` (the scheduler's), gets
 * `escalated_at = now` and a `lead.escalated` event (`caused_by: system`), once. Companies without the
 * setting are left alone; erased leads too. Each batch is one transaction, and the update re-checks
 * `escalated_at is null` under the row lock, so two runs at once never escalate a lead twice.
 * Returns the references escalated.
 */
export async function escalateUnansweredLeads(db: Db, now: Date): Promise<string[]> {
  const escalated: string[] = [];
  for (;;) {
    const batch = await db.transaction().execute(async (trx) => {
      const due = trx
        .selectFrom('leads as l')
        .innerJoin('companies as c', 'c.id', 'l.company_id')
        .select('l.id')
        .where('l.first_answered_at', 'is', null)
        .where('l.escalated_at', 'is', null)
        .where('l.status', '=', 'new')
        .where('l.erased', '=', false)
        .where(sql<boolean>`jsonb_typeof(c.settings -> 'lead_answer_minutes') = 'number'`)
        .where(
          'l.created_at',
          '<=',
          sql<Date>`${now}::timestamptz - make_interval(mins => (c.settings ->> 'lead_answer_minutes')::int)`,
        )
        .orderBy('l.created_at')
        .limit(batchSize);
      const rows = await trx
        .updateTable('leads')
        .set({ escalated_at: now })
        .where('id', 'in', due)
        .where('escalated_at', 'is', null)
        .returning(['company_id', 'reference'])
        .execute();
      for (const row of rows) {
        await recordEvent(trx, {
          companyId: row.company_id,
          type: 'lead.escalated',
          causedBy: 'system',
          data: { reference: row.reference },
        });
      }
      return rows;
    });
    escalated.push(...batch.map((row) => row.reference));
    if (batch.length < batchSize) return escalated;
  }
}
