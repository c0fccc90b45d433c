import { sql } from 'kysely';
import type { Db, Trx } from '../../lib/db/index';
import { recordEvent } from '../../lib/events';

const batchSize = 500;

/** Leads that can be escalated: still `new`, without a first answer, not erased, not escalated yet. */
const unanswered = (trx: Trx) =>
  trx
    .selectFrom('leads as l')
    .select('l.id')
    .where('l.first_answered_at', 'is', null)
    .where('l.escalated_at', 'is', null)
    .where('l.status', '=', 'new')
    .where('l.erased', '=', false);

/**
 * The step of the escalation: the leads `due` selects (of those {@link unanswered}) get `escalated_at = now` and a
 * `lead.escalated` event each, in the caller's transaction; the update re-checks `escalated_at is null` under the row
 * lock. Answers the rows escalated.
 */
async function escalate(trx: Trx, now: Date, due: ReturnType<typeof unanswered>) {
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
}

/** One lead escalated now, if it can be (the test events' fixture, functions/triggers-scheduled.ts): its reference. */
export async function escalateLead(trx: Trx, now: Date, leadId: string): Promise<string | null> {
  const rows = await escalate(trx, now, unanswered(trx).where('l.id', '=', leadId));
  return rows[0]?.reference ?? null;
}

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
    const batch = await db
      .transaction()
      .execute((trx) =>
        escalate(
          trx,
          now,
          unanswered(trx)
            .innerJoin('companies as c', 'c.id', 'l.company_id')
            .where(sql<boolean>`jsonb_typeof(c.settings -> 'lead_answer_minutes') = 'number'`)
            .where(
              'l.created_at',
              '<=',
              sql<Date>`${now}::timestamptz - make_interval(mins => (c.settings ->> 'lead_answer_minutes')::int)`,
            )
            .orderBy('l.created_at')
            .limit(batchSize),
        ),
      );
    escalated.push(...batch.map((row) => row.reference));
    if (batch.length < batchSize) return escalated;
  }
}
