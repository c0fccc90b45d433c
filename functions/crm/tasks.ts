import { type Updateable, sql } from 'kysely';
import type { Executor, Trx } from '../../lib/db/index';
import { readLocked } from '../../lib/db/locked';
import { notFound } from '../../lib/errors';
import { type CausedBy, recordEvent } from '../../lib/events';
import { newId } from '../../lib/references';
import type { TasksTable } from '../../schema/crm/db';
import type { TaskInputValue, TaskPatchValue } from '../../schema/crm/tasks';
import type { Company } from '../../schema/platform/db';
import { checkMember, existingFollowup, keepFollowupKey, resolveFollowupLinks } from './followups';

/** A company's tasks with their lead's and person's references; `due_on` as text (a date, no time zone). */
export function selectTasks(executor: Executor, companyId: string, rows = executor.selectFrom('tasks').selectAll()) {
  return executor
    .selectFrom(rows.as('tasks'))
    .leftJoin('leads as lead', 'lead.id', 'tasks.lead_id')
    .leftJoin('contacts as person', 'person.id', 'tasks.contact_id')
    .selectAll('tasks')
    .select([
      sql<string | null>`tasks.due_on::text`.as('due_on'),
      'lead.reference as lead_reference',
      'person.reference as person_reference',
    ])
    .where('tasks.company_id', '=', companyId);
}

/**
 * Adds a task, once per `source` + `external_id` (sent again: the first, `created: false`, no event).
 * Records `task.created`. Run it in `transactionRetryingConflict` (see createActivity).
 */
export async function createTask(
  trx: Trx,
  company: Company,
  input: TaskInputValue,
  causedBy: CausedBy,
): Promise<{ id: string; created: boolean }> {
  const existing = await existingFollowup(trx, 'task', company.id, input);
  if (existing) return { id: existing, created: false };

  const links = await resolveFollowupLinks(trx, company.id, input);
  if (input.assignee !== undefined) await checkMember(trx, company.id, input.assignee, 'assignee', true);
  const task = await trx
    .insertInto('tasks')
    .values({
      id: newId('task'),
      company_id: company.id,
      title: input.title,
      due_on: input.due_on ?? null,
      assignee_id: input.assignee ?? null,
      lead_id: links.lead?.id ?? null,
      contact_id: links.person?.id ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await keepFollowupKey(trx, 'task', company.id, task.id, input);
  await recordEvent(trx, {
    companyId: company.id,
    type: 'task.created',
    causedBy,
    data: { task_id: task.id, lead: links.lead?.reference ?? null, person: links.person?.reference ?? null },
  });
  return { id: task.id, created: true };
}

/**
 * PATCH: title, due date, assignee, status. Open → done sets `done_at` and records `task.done`; done → open
 * (reopen) clears `done_at` and is seen through `updated_since`. A request that changes nothing writes nothing.
 */
export async function updateTask(trx: Trx, company: Company, taskId: string, input: TaskPatchValue, causedBy: CausedBy) {
  const row = trx.selectFrom('tasks').selectAll().where('company_id', '=', company.id).where('id', '=', taskId);
  const task = await readLocked(() => selectTasks(trx, company.id, row.forUpdate()).executeTakeFirst());
  if (!task) throw notFound(`The task ${taskId}`);
  const set: Updateable<TasksTable> = {};
  if (input.title !== undefined && input.title !== task.title) set.title = input.title;
  if (input.due_on !== undefined && input.due_on !== task.due_on) set.due_on = input.due_on;
  if (input.assignee !== undefined && input.assignee !== task.assignee_id) {
    if (input.assignee !== null) await checkMember(trx, company.id, input.assignee, 'assignee', true);
    set.assignee_id = input.assignee;
  }
  const done = input.status === undefined ? task.done : input.status === 'done';
  if (done !== task.done) {
    set.done = done;
    set.done_at = done ? new Date() : null;
  }
  if (Object.keys(set).length === 0) return task.id;
  await trx.updateTable('tasks').set(set).where('id', '=', task.id).execute();
  if (done && !task.done) {
    await recordEvent(trx, { companyId: company.id, type: 'task.done', causedBy, data: { task_id: task.id } });
  }
  return task.id;
}
