import type { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import { iso } from '../../lib/dates';
import { transactionRetryingConflict } from '../../lib/external-ids';
import { readOne, readWritten, syncList } from '../../lib/resources';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import type { TaskRow } from '../../schema/crm/db';
import { TaskInput, TaskListSchema, TaskParams, TaskPatchInput, TaskSchema, TasksQuery } from '../../schema/crm/tasks';
import { type FollowupRecord, followupResource } from './followups';
import { crmRoute } from './route';
import { createTask, selectTasks, updateTask } from './tasks';

type TaskView = z.infer<typeof TaskSchema>;

/** Tasks that name a lead or a person carry personal data: their reads are audited. */
const resource = followupResource('task', { select: selectTasks, present, reference: (view) => view.task_id });

function present(row: FollowupRecord<TaskRow>): TaskView {
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

const listRoute = crmRoute('read:followups', {
  method: 'get',
  path: '/tasks',
  summary: 'Tasks, in (updated_at, id) order for sync',
  request: { query: TasksQuery },
  responses: { 200: json(TaskListSchema, 'A page of tasks') },
});
const oneRoute = crmRoute('read:followups', {
  method: 'get',
  path: '/tasks/{task_id}',
  record: { table: 'tasks', column: 'id', param: 'task_id' },
  summary: 'One task',
  request: { params: TaskParams, query: noQuery },
  responses: { 200: json(TaskSchema, 'The task') },
});
const addRoute = crmRoute('write:followups', {
  method: 'post',
  path: '/tasks',
  summary: 'Add a task (once per source and external_id)',
  request: { body: jsonBody(TaskInput, { title: 'Send the tenancy contract', source: 'hubspot', external_id: 'task-815' }) },
  responses: {
    201: json(TaskSchema, 'A new task'),
    200: json(TaskSchema, 'The task added before with the same source and external_id (the first record)'),
    409: problem('The lead or person is erased'),
  },
});
const patchRoute = crmRoute('write:followups', {
  method: 'patch',
  path: '/tasks/{task_id}',
  record: { table: 'tasks', column: 'id', param: 'task_id' },
  summary: 'Mark done, open again, or change title, due date or assignee',
  request: { params: TaskParams, body: jsonBody(TaskPatchInput) },
  responses: { 200: json(TaskSchema, 'The task') },
});

export const tasks = createRouter()
  .openapi(listRoute, async (c) => c.json(await syncList(c, resource, c.req.valid('query')), 200))
  .openapi(oneRoute, async (c) => c.json(await readOne(c, resource, 'id', c.req.valid('param').task_id), 200))
  .openapi(addRoute, async (c) => {
    const input = c.req.valid('json');
    const company = c.var.company;
    const result = await transactionRetryingConflict(c.var.services.db, (trx) =>
      createTask(trx, company, input, actorOf(c.var.caller)),
    );
    return c.json(await readWritten(c, resource, result.id), result.created ? 201 : 200);
  })
  .openapi(patchRoute, async (c) => {
    const { task_id } = c.req.valid('param');
    const input = c.req.valid('json');
    const company = c.var.company;
    const id = await c.var.services.db
      .transaction()
      .execute((trx) => updateTask(trx, company, task_id, input, actorOf(c.var.caller)));
    return c.json(await readWritten(c, resource, id), 200);
  });
