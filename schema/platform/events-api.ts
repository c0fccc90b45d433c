import { z } from '@hono/zod-openapi';
import { calendarDate, instant, pageQuery } from '../common/api';
import { text } from '../common/text';
import { EventSchema, type EventType, eventTypes } from './events';

/**
 * Events and the audit log read through the API (issue 38): the shapes the admin API and a server key's routes share
 * (docs/api-reference.md, "Events through the API" and "Audit export").
 */

const eventType = text().max(100).optional().openapi({ description: 'Only events of this type (e.g. `booking.confirmed`).' });

export const EventListQuery = z.strictObject({
  ...pageQuery,
  type: eventType,
  since: instant.optional().openapi({ description: 'Only events recorded at or after this instant (within the 30 days).' }),
  until: instant.optional().openapi({ description: 'Only events recorded before this instant.' }),
});

export const EventListSchema = z
  .object({
    results: z.array(EventSchema),
    next_cursor: z.string().nullable().openapi({ description: 'Pass as `cursor` for the next page; null on the last.' }),
  })
  .openapi('EventList');

export const EventFeedQuery = z.strictObject({
  page_size: pageQuery.page_size,
  cursor: pageQuery.cursor.openapi({ description: 'The `next_cursor` of the previous answer: the events after it.' }),
  after: text()
    .max(100)
    .optional()
    .openapi({ description: 'An event id (`evt_…`, as a Last-Event-ID): the events committed after it. Not with `cursor`.' }),
});

export const EventFeedSchema = z
  .object({
    results: z.array(EventSchema).openapi({ description: 'Oldest first, in the order their changes were committed.' }),
    next_cursor: z.string().openapi({
      description: 'Never null: pass it as `cursor` to follow. A full page means more are ready now; fewer, poll again.',
    }),
  })
  .openapi('EventFeed');

export const AuditExportQuery = z.strictObject({
  from: calendarDate.openapi({ description: 'The first day of the range (the company’s time zone), included.' }),
  to: calendarDate.openapi({ description: 'The last day of the range (the company’s time zone), included.' }),
  format: z
    .enum(['jsonl', 'csv'])
    .default('jsonl')
    .openapi({ description: '`jsonl` (a JSON object per line, the default) or `csv` (a header line, then a row per entry).' }),
});

/** The answer of an export: a streamed text body in the asked format. */
export const auditExportResponse = {
  description: 'The entries of the range, oldest first, streamed',
  content: {
    'application/x-ndjson': { schema: z.string().openapi({ description: 'One AuditEntry as JSON per line.' }) },
    'text/csv': { schema: z.string().openapi({ description: 'at,actor,action,subject,details (details as JSON).' }) },
  },
};

// Test events on demand (issue 38): `events trigger`.
export const TriggerInput = z
  .strictObject({
    type: z
      .enum(eventTypes as [EventType, ...EventType[]])
      .openapi({ description: 'A type of the event catalogue (not `ping`: send it with webhooks ping).' }),
  })
  .openapi('TriggerInput');

export const TriggeredSchema = z
  .object({
    trigger_id: z.string().openapi({ description: '`trg_…`: every event the run recorded carries it as `data.trigger_id`.' }),
    type: z.string(),
    events: z
      .array(z.object({ id: z.string(), type: z.string(), created_at: z.string(), data: z.record(z.string(), z.unknown()) }))
      .openapi({ description: 'Every event the fixture’s records emitted, oldest first: the asked type among them.' }),
  })
  .openapi('Triggered');
