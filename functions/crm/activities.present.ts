import type { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import type { ActivitySchema } from '../../schema/crm/activities';
import type { ActivityRow } from '../../schema/crm/db';
import type { FollowupRecord } from './followups';

export type ActivityView = z.infer<typeof ActivitySchema>;

/** A company's activities with their lead's and person's references and their key (joins: one query for a page). */
export function selectActivities(executor: Executor, companyId: string) {
  return executor
    .selectFrom('activities')
    .leftJoin('leads as lead', 'lead.id', 'activities.lead_id')
    .leftJoin('contacts as person', 'person.id', 'activities.contact_id')
    .innerJoin('external_ids as followup_key', (join) =>
      join.on('followup_key.record_type', '=', 'activity').on(sql<boolean>`followup_key.record_id = activities.id::text`),
    )
    .selectAll('activities')
    .select([
      'lead.reference as lead_reference',
      'person.reference as person_reference',
      'followup_key.source as source',
      'followup_key.external_id as external_id',
    ])
    .where('activities.company_id', '=', companyId);
}

export function presentActivity(row: FollowupRecord<ActivityRow>): ActivityView {
  return {
    reference: row.reference,
    type: row.type,
    source: row.source,
    external_id: row.external_id,
    lead: row.lead_reference,
    person: row.person_reference,
    by: row.member_id,
    body: row.body,
    occurred_at: iso(row.occurred_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
