import type { z } from '@hono/zod-openapi';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { externalIdsOf } from '../../lib/external-ids';
import type { ViewingRow } from '../../schema/pipelines/db';
import type { ViewingSchema } from '../../schema/pipelines/viewings';

export type ViewingView = z.infer<typeof ViewingSchema>;

/** A viewing row as selectViewings gives it (viewings.ts). */
export type ViewingRecord = ViewingRow & { deal_reference: string; home_slug: string };

/** A page of viewings as the API shows them, with their external ids (one more query for the page). */
export async function presentViewings(db: Executor, rows: ViewingRecord[]): Promise<ViewingView[]> {
  const externals = await externalIdsOf(
    db,
    'viewing',
    rows.map((row) => row.id),
  );
  return rows.map((row) => ({
    reference: row.reference,
    deal: row.deal_reference,
    home: row.home_slug,
    time: iso(row.starts_at),
    shown_by: row.shown_by,
    status: row.status,
    feedback: row.feedback,
    external: externals.get(row.id) ?? [],
    done_at: iso(row.done_at),
    cancelled_at: iso(row.cancelled_at),
    missed_at: iso(row.missed_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  }));
}
