import { iso } from '../../lib/dates';
import type { ShownImport } from './calendar-imports';

/** An import as the admin API shows it: its health, never its URL (the URL carries the channel's secret). */
export function presentImport(row: ShownImport) {
  return {
    import_id: row.id,
    listing: row.listing_slug,
    channel: row.channel,
    interval_minutes: row.interval_minutes,
    last_synced_at: iso(row.last_synced_at),
    last_changed_at: iso(row.last_changed_at),
    last_error: row.last_error,
    failures: row.failures,
    event_count: row.event_count,
    next_sync_at: iso(row.next_sync_at),
    created_at: iso(row.created_at),
  };
}
