import { sql, type Updateable } from 'kysely';
import { readAuditCte } from '../../lib/audit';
import { notFound } from '../../lib/errors';
import { eventCtes, type EventInput, newEventId } from '../../lib/events';
import { type MemberRule, memberKnown, unknownMember } from '../../lib/named-records';
import { checkIfMatch } from '../../lib/preconditions';
import { newId } from '../../lib/references';
import type { Written } from '../../lib/resources';
import { type Stale, stale, type WriteScope, writeStatement } from '../../lib/write';
import type { TaskRow, TasksTable } from '../../schema/crm/db';
import type { TaskInputValue, TaskPatchValue } from '../../schema/crm/tasks';
import { addedFollowup, answeredAgain, type FollowupRecord, isPersonal, readFollowupCreate } from './followups';
import { selectTasks } from './tasks.present';

type TaskRecord = FollowupRecord<TaskRow>;

/** Who a task may be given to: an active member. */
const assignee: MemberRule = { path: 'assignee', active: true };

/** Adds a task, once per `source` + `external_id` (sent again: the first, `created: false`, no event); `task.created`. */
export async function addTask(scope: WriteScope, input: TaskInputValue): Promise<Written<TaskRecord>> {
  const { db, company } = scope;
  const member = input.assignee === undefined ? undefined : { id: input.assignee, rule: assignee };
  const shown = selectTasks(db, company.id).where(sql<boolean>`tasks.id = k.existing`);
  const { existing, links } = await readFollowupCreate<TaskRow>(scope, 'task', input, shown, member);
  if (existing) return answeredAgain(scope, existing, existing.id);

  const id = newId('task');
  const insert = db
    .insertInto('tasks')
    .values({
      id,
      company_id: company.id,
      title: input.title,
      due_on: input.due_on ?? null,
      assignee_id: input.assignee ?? null,
      lead_id: links.lead?.id ?? null,
      contact_id: links.person?.id ?? null,
    })
    .returningAll();
  const data = { task_id: id, lead: links.lead?.reference ?? null, person: links.person?.reference ?? null };
  const row = await addedFollowup<TaskRow>(scope, 'task', input, insert, { reference: id, links, data });
  return { row, created: true };
}

/**
 * PATCH: title, due date, assignee, status, in two round trips (lib/write.ts). Open → done sets `done_at` and records
 * `task.done`; done → open (reopen) clears `done_at` and is seen through `updated_since`. A request that changes nothing
 * writes nothing but the audit of the answer.
 */
export async function changeTask(scope: WriteScope, taskId: string, input: TaskPatchValue): Promise<Written<TaskRecord> | Stale> {
  const { db, company } = scope;
  const known = input.assignee ? memberKnown(company.id, input.assignee, assignee) : sql<boolean>`true`;
  const task = (await selectTasks(db, company.id)
    .select(known.as('assignee_known'))
    .where('tasks.id', '=', taskId)
    .executeTakeFirst()) as (TaskRecord & { assignee_known: boolean }) | undefined;
  if (!task) throw notFound(`The task ${taskId}`);
  checkIfMatch(scope.ifMatch, task.version);
  const set: Updateable<TasksTable> = {};
  if (input.title !== undefined && input.title !== task.title) set.title = input.title;
  if (input.due_on !== undefined && input.due_on !== task.due_on) set.due_on = input.due_on;
  if (input.assignee !== undefined && input.assignee !== task.assignee_id) {
    if (input.assignee !== null && !task.assignee_known) throw unknownMember(input.assignee, assignee);
    set.assignee_id = input.assignee;
  }
  const done = input.status === undefined ? task.done : input.status === 'done';
  if (done !== task.done) {
    set.done = done;
    set.done_at = done ? scope.now : null;
  }
  const { assignee_known: _, ...current } = task;
  const personal = isPersonal({ lead: task.lead_reference, person: task.person_reference });
  const audit = readAuditCte('answer_read', scope.answerRead, personal ? [task.id] : []);
  if (Object.keys(set).length === 0) {
    if (audit) await writeStatement([audit], sql`select 1`).execute(db);
    return { row: current, version: task.version };
  }
  const change = db.updateTable('tasks').set(set).where('id', '=', task.id).where('version', '=', task.version).returningAll();
  const event: EventInput = { companyId: company.id, type: 'task.done', causedBy: scope.causedBy, data: { task_id: task.id } };
  const { rows } = await writeStatement(
    [sql`changed as (${change})`, done && !task.done && eventCtes('done', newEventId(), event, 'changed'), audit],
    sql`select *, due_on::text as due_on from changed`,
  ).execute(db);
  const row = rows[0] as TaskRow | undefined;
  if (!row) return stale;
  return { row: { ...current, ...row }, version: row.version };
}
