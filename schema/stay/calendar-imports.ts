import { z } from '@hono/zod-openapi';
import { text } from '../common/text';

/** Calendars imported per holiday home (issue 24): the admin API's bodies and answers. */

const channel = text()
  .min(1)
  .max(60)
  .openapi({ description: 'The channel’s name as staff call it (`airbnb`, `booking.com`, a channel manager’s name).' });
const url = text()
  .max(2000)
  .url()
  .openapi({ description: 'The channel’s iCalendar export address. Kept encrypted and never shown again: it carries a secret.' });
const interval = z.number().int().min(5).max(1440).openapi({ description: 'Minutes between syncs: at least 5, default 10.' });

export const CalendarImportInput = z
  .strictObject({ url, channel, interval_minutes: interval.default(10) })
  .openapi('CalendarImportInput');
export type CalendarImportValue = z.infer<typeof CalendarImportInput>;

export const CalendarImportUpdate = z
  .strictObject({ url: url.optional(), channel: channel.optional(), interval_minutes: interval.optional() })
  .openapi('CalendarImportUpdate');
export type CalendarImportChange = z.infer<typeof CalendarImportUpdate>;

export const importIdParam = z.string().uuid().openapi({ description: 'The import’s id (`import_id`).' });

export const CalendarImportSchema = z
  .object({
    import_id: z.string(),
    listing: z.string().openapi({ description: 'The holiday home’s slug.' }),
    channel: z.string(),
    interval_minutes: z.number().int(),
    last_synced_at: z.string().nullable().openapi({ description: 'The last sync that reached the feed (a 304 too).' }),
    last_changed_at: z.string().nullable().openapi({ description: 'The last sync that moved, added or removed a block.' }),
    last_error: z
      .string()
      .nullable()
      .openapi({ description: 'Why the last sync failed (the blocks of the last good sync stay); null after a good one.' }),
    failures: z.number().int().openapi({ description: 'Failed syncs in a row.' }),
    event_count: z.number().int().openapi({ description: 'Events (blocks) the last good sync read.' }),
    next_sync_at: z.string(),
    created_at: z.string(),
  })
  .openapi('CalendarImport');
