import { sql } from 'kysely';
import type { Executor, Trx } from '../../lib/db/index';
import { type CausedBy, recordEvent } from '../../lib/events';
import { newReference } from '../../lib/references';
import type { ActivityInputValue } from '../../schema/crm/activities';
import type { Company } from '../../schema/platform/db';
import { checkMember, existingFollowup, keepFollowupKey, resolveFollowupLinks } from './followups';

/** A company's activities with their lead's and person's references (joins: one query for a page). */
export function selectActivities(executor: Executor, companyId: string) {
  return executor
    .selectFrom('activities')
    .leftJoin('leads as lead', 'lead.id', 'activities.lead_id')
    .leftJoin('contacts as person', 'person.id', 'activities.contact_id')
    .selectAll('activities')
    .select(['lead.reference as lead_reference', 'person.reference as person_reference'])
    .where('activities.company_id', '=', companyId);
}

/**
 * Logs an activity, once per `source` + `external_id`: sent again, the first one comes back
 * (`created: false`, no event). A new one records `activity.created`; a call on a lead without a first
 * answer sets it (`first_answered_at`, at the call's time but never before the lead arrived). Concurrent
 * identical posts meet on the external id's key (keepFollowupKey): run this in
 * `transactionRetryingConflict`, whose retry then finds the first.
 */
export async function createActivity(
  trx: Trx,
  company: Company,
  input: ActivityInputValue,
  causedBy: CausedBy,
): Promise<{ id: string; created: boolean }> {
  const existing = await existingFollowup(trx, 'activity', company.id, input);
  if (existing) return { id: existing, created: false };

  const links = await resolveFollowupLinks(trx, company.id, input);
  if (input.by !== undefined) await checkMember(trx, company.id, input.by, 'by', false);
  const occurredAt = input.occurred_at ? new Date(input.occurred_at) : new Date();
  const activity = await trx
    .insertInto('activities')
    .values({
      company_id: company.id,
      reference: newReference('A'),
      type: input.type,
      lead_id: links.lead?.id ?? null,
      contact_id: links.person?.id ?? null,
      member_id: input.by ?? null,
      body: input.body ?? null,
      occurred_at: occurredAt,
    })
    .returning(['id', 'reference'])
    .executeTakeFirstOrThrow();
  await keepFollowupKey(trx, 'activity', company.id, activity.id, input);

  if (input.type === 'call' && links.lead) {
    await trx
      .updateTable('leads')
      .set({ first_answered_at: sql<Date>`greatest(${occurredAt}::timestamptz, created_at)` })
      .where('id', '=', links.lead.id)
      .where('first_answered_at', 'is', null)
      .execute();
  }
  await recordEvent(trx, {
    companyId: company.id,
    type: 'activity.created',
    causedBy,
    data: { reference: activity.reference, lead: links.lead?.reference ?? null, person: links.person?.reference ?? null },
  });
  return { id: activity.id, created: true };
}
