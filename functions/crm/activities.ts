import { sql } from 'kysely';
import { newReference } from '../../lib/references';
import type { Written } from '../../lib/resources';
import type { WriteScope } from '../../lib/write';
import type { ActivityInputValue } from '../../schema/crm/activities';
import type { ActivityRow } from '../../schema/crm/db';
import { selectActivities } from './activities.present';
import { addedFollowup, answeredAgain, type FollowupRecord, readFollowupCreate } from './followups';

/**
 * Logs an activity, once per `source` + `external_id`: sent again, the first one comes back (`created: false`, no
 * event). A new one records `activity.created`; a call on a lead without a first answer sets it (`first_answered_at`,
 * at the call's time but never before the lead arrived), in the same statement. Who did it (`by`) may be any member,
 * active or not.
 */
export async function addActivity(scope: WriteScope, input: ActivityInputValue): Promise<Written<FollowupRecord<ActivityRow>>> {
  const { db, company } = scope;
  const by = input.by === undefined ? undefined : { id: input.by, rule: { path: 'by' } };
  const shown = selectActivities(db, company.id).where(sql<boolean>`activities.id = k.existing::uuid`);
  const { existing, links } = await readFollowupCreate<ActivityRow>(scope, 'activity', input, shown, by);
  if (existing) return answeredAgain(scope, existing, existing.reference);

  const occurredAt = input.occurred_at ? new Date(input.occurred_at) : scope.now;
  const reference = newReference('A');
  const insert = db
    .insertInto('activities')
    .values({
      company_id: company.id,
      reference,
      type: input.type,
      lead_id: links.lead?.id ?? null,
      contact_id: links.person?.id ?? null,
      member_id: input.by ?? null,
      body: input.body ?? null,
      occurred_at: occurredAt,
    })
    .returningAll();
  const answered =
    input.type === 'call' && links.lead
      ? sql`first_answer as (
          update leads set first_answered_at = greatest(${occurredAt}::timestamptz, created_at)
          where id = ${links.lead.id} and first_answered_at is null
        )`
      : undefined;
  const data = { reference, lead: links.lead?.reference ?? null, person: links.person?.reference ?? null };
  const row = await addedFollowup<ActivityRow>(
    scope,
    'activity',
    input,
    insert,
    { reference, links, data },
    answered ? [answered] : [],
  );
  return { row, created: true };
}
