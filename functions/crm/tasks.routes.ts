import { createRouter } from '../../lib/app';
import { changed, readOne, syncList, written } from '../../lib/resources';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import { TaskInput, TaskListSchema, TaskParams, TaskPatchInput, TaskSchema, TasksQuery } from '../../schema/crm/tasks';
import { followupResource } from './followups';
import { crmRoute } from './scopes';
import { addTask, changeTask } from './tasks';
import { presentTask, selectTasks } from './tasks.present';

/** Tasks that name a lead or a person carry personal data: their reads are audited. */
const taskResource = followupResource('task', { select: selectTasks, present: presentTask, reference: (view) => view.task_id });

const versioned = { table: 'tasks', column: 'id', param: 'task_id' } as const;

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
  versioned,
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
  versioned,
  summary: 'Mark done, open again, or change title, due date or assignee',
  request: { params: TaskParams, body: jsonBody(TaskPatchInput) },
  responses: { 200: json(TaskSchema, 'The task') },
});

const listTasks: Handler<typeof listRoute> = async (c) => c.json(await syncList(c, taskResource, c.req.valid('query')), 200);

const oneTask: Handler<typeof oneRoute> = async (c) =>
  c.json(await readOne(c, taskResource, 'id', c.req.valid('param').task_id), 200);

const postTask: Handler<typeof addRoute> = async (c) => {
  const { view, status } = await written(c, taskResource, (scope) => addTask(scope, c.req.valid('json')));
  return c.json(view, status);
};

const patchTask: Handler<typeof patchRoute> = async (c) =>
  c.json(await changed(c, taskResource, (scope) => changeTask(scope, c.req.valid('param').task_id, c.req.valid('json'))), 200);

export const tasks = createRouter()
  .openapi(listRoute, listTasks)
  .openapi(oneRoute, oneTask)
  .openapi(addRoute, postTask)
  .openapi(patchRoute, patchTask);
