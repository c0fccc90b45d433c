import type { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import type { TaskRow } from '../../schema/crm/db';
import type { TaskSchema } from '../../schema/crm/tasks';
import type { FollowupRecord } from './followups';

export type TaskView = z.infer<typeof TaskSchema>;

/**
 * A company's tasks with their lead's and person's references and their key; `due_on` as text (a date, no time zone).
 * Joins: one query for a page.
 */
export function selectTasks(executor: Executor, companyId: string) {
  return executor
    .selectFrom('tasks')
    .leftJoin('leads as lead', 'lead.id', 'tasks.lead_id')
    .leftJoin('contacts as person', 'person.id', 'tasks.contact_id')
    .innerJoin('external_ids as followup_key', (join) =>
      join.on('followup_key.record_type', '=', 'task').onRef('followup_key.record_id', '=', 'tasks.id'),
    )
    .selectAll('tasks')
    .select([
      sql<string | null>`tasks.due_on::text`.as('due_on'),
      'lead.reference as lead_reference',
      'person.reference as person_reference',
      'followup_key.source as source',
      'followup_key.external_id as external_id',
    ])
    .where('tasks.company_id', '=', companyId);
}

export function presentTask(row: FollowupRecord<TaskRow>): TaskView {
  return {
    task_id: row.id,
    title: row.title,
    due_on: row.due_on,
    assignee: row.assignee_id,
    status: row.done ? 'done' : 'open',
    done_at: iso(row.done_at),
    source: row.source,
    external_id: row.external_id,
    lead: row.lead_reference,
    person: row.person_reference,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
