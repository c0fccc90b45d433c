import { noQuery } from '../../schema/common/api';
import type { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import type { Executor } from '../../lib/db/index';
import { notFound } from '../../lib/errors';
import { ProblemSchema } from '../../schema/common/api';
import type { TaskRow } from '../../schema/crm/db';
import { TaskInput, TaskListSchema, TaskParams, TaskPatchInput, TaskSchema, TasksQuery } from '../../schema/crm/tasks';
import { jsonBody } from '../../schema/common/api';
import { transactionRetryingConflict } from '../../lib/external-ids';
import { crmRoute } from './route';
import { auditRead } from '../../lib/audit';
import { parseExternal, syncPage, syncSort } from '../../lib/sync';
import { createTask, selectTasks, updateTask } from './tasks';

type TaskView = z.infer<typeof TaskSchema>;
type TaskRecord = TaskRow & { lead_reference: string | null; person_reference: string | null };

const sort = syncSort('tasks', 'text');
const task = (description: string) => ({ description, content: { 'application/json': { schema: TaskSchema } } });

function present(row: TaskRecord): TaskView {
  return {
    task_id: row.id,
    title: row.title,
    due_on: row.due_on,
    assignee: row.assignee_id,
    status: row.done ? 'done' : 'open',
    done_at: row.done_at === null ? null : new Date(row.done_at).toISOString(),
    source: row.source,
    external_id: row.external_id,
    lead: row.lead_reference,
    person: row.person_reference,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** Tasks that name a lead or a person carry personal data: their reads are audited. */
const personal = (views: TaskView[]) => views.filter((v) => v.lead !== null || v.person !== null).map((v) => v.task_id);

async function taskView(db: Executor, companyId: string, id: string): Promise<TaskView | undefined> {
  const row = await selectTasks(db, companyId).where('tasks.id', '=', id).executeTakeFirst();
  return row && present(row);
}

const listRoute = crmRoute('read:followups', {
  method: 'get',
  path: '/tasks',
  summary: 'Tasks, in (updated_at, id) order for sync',
  request: { query: TasksQuery },
  responses: { 200: { description: 'A page of tasks', content: { 'application/json': { schema: TaskListSchema } } } },
});
const oneRoute = crmRoute('read:followups', {
  method: 'get',
  path: '/tasks/{task_id}',
  record: { table: 'tasks', column: 'id', param: 'task_id' },
  summary: 'One task',
  request: { params: TaskParams, query: noQuery },
  responses: { 200: task('The task') },
});
const addRoute = crmRoute('write:followups', {
  method: 'post',
  path: '/tasks',
  summary: 'Add a task (once per source and external_id)',
  request: { body: jsonBody(TaskInput, { title: 'Send the tenancy contract', source: 'hubspot', external_id: 'task-815' }) },
  responses: {
    201: task('A new task'),
    200: task('The task added before with the same source and external_id (the first record)'),
    409: { description: 'The lead or person is erased', content: { 'application/problem+json': { schema: ProblemSchema } } },
  },
});
const patchRoute = crmRoute('write:followups', {
  method: 'patch',
  path: '/tasks/{task_id}',
  record: { table: 'tasks', column: 'id', param: 'task_id' },
  summary: 'Mark done, open again, or change title, due date or assignee',
  request: { params: TaskParams, body: jsonBody(TaskPatchInput) },
  responses: { 200: task('The task') },
});

export const tasks = createRouter()
  .openapi(listRoute, async (c) => {
    const query = c.req.valid('query');
    const db = c.var.services.db;
    let select = selectTasks(db, c.var.company.id);
    if (query.external) {
      const { source, id } = parseExternal(query.external);
      select = select.where('tasks.source', '=', source).where('tasks.external_id', '=', id);
    }
    const page = await syncPage(select, sort, query);
    const results = page.rows.map(present);
    await auditRead(c, personal(results));
    return c.json({ results, next_cursor: page.next_cursor }, 200);
  })
  .openapi(oneRoute, async (c) => {
    const { task_id } = c.req.valid('param');
    const view = await taskView(c.var.services.db, c.var.company.id, task_id);
    if (!view) throw notFound(`The task ${task_id}`);
    await auditRead(c, personal([view]));
    return c.json(view, 200);
  })
  .openapi(addRoute, async (c) => {
    const input = c.req.valid('json');
    const { db } = c.var.services;
    const company = c.var.company;
    const result = await transactionRetryingConflict(db, (trx) => createTask(trx, company, input, actorOf(c.var.caller)));
    const view = (await taskView(db, company.id, result.id)) as TaskView;
    await auditRead(c, personal([view]));
    return c.json(view, result.created ? 201 : 200);
  })
  .openapi(patchRoute, async (c) => {
    const { task_id } = c.req.valid('param');
    const input = c.req.valid('json');
    const { db } = c.var.services;
    const company = c.var.company;
    const id = await db.transaction().execute((trx) => updateTask(trx, company, task_id, input, actorOf(c.var.caller)));
    const view = (await taskView(db, company.id, id)) as TaskView;
    await auditRead(c, personal([view]));
    return c.json(view, 200);
  });
