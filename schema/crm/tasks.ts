import { z } from '@hono/zod-openapi';
import { text } from '../common/text';
import { syncQuery, calendarDate, listOf } from '../common/api';
import { followupExternalId, followupExternalQuery, followupSource } from './activities';

const instant = z.string().openapi({ example: '2026-11-21T09:30:00.000Z' });
const title = text().trim().min(1).max(500);
const memberId = text().min(1).max(100);

export const TaskSchema = z
  .object({
    task_id: z.string().openapi({ example: 'task_3kq9XbT2mN8pWv4Rz7Ya' }),
    title: z.string(),
    due_on: z.string().nullable().openapi({ description: 'YYYY-MM-DD.' }),
    assignee: z.string().nullable().openapi({ description: 'A member id.' }),
    status: z.enum(['open', 'done']),
    done_at: instant.nullable(),
    source: z.string(),
    external_id: z.string(),
    lead: z.string().nullable(),
    person: z.string().nullable(),
    created_at: instant,
    updated_at: instant,
  })
  .openapi('Task');

export const TaskListSchema = listOf(TaskSchema, 'TaskList');

export const TasksQuery = z.strictObject({ ...syncQuery, ...followupExternalQuery });

export const TaskParams = z.object({ task_id: text().min(1).max(100) });

export const TaskInput = z
  .strictObject({
    title,
    source: followupSource,
    external_id: followupExternalId,
    due_on: calendarDate.optional(),
    assignee: memberId.optional().openapi({ description: 'An active member id of this company.' }),
    lead: text().min(1).max(100).optional().openapi({ description: 'A lead reference.' }),
    person: text()
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: "A contact reference; the lead's person when only a lead is given." }),
  })
  .openapi('TaskInput');

export const TaskPatchInput = z
  .strictObject({
    title: title.optional(),
    due_on: calendarDate.nullable().optional(),
    assignee: memberId.nullable().optional().openapi({ description: 'An active member id; null unassigns.' }),
    status: z.enum(['open', 'done']).optional().openapi({ description: '`done` closes the task; `open` reopens it.' }),
  })
  .openapi('TaskPatch');

export type TaskInputValue = z.infer<typeof TaskInput>;
export type TaskPatchValue = z.infer<typeof TaskPatchInput>;
