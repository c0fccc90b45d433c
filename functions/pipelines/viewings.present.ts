import type { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { type ExternalLink, externalIdsColumn, shownExternalIds } from '../../lib/external-ids';
import type { ViewingRow } from '../../schema/pipelines/db';
import type { ViewingSchema } from '../../schema/pipelines/viewings';

export type ViewingView = z.infer<typeof ViewingSchema>;

/** A viewing's row as shown (selectViewings). */
export type ViewingRecord = ViewingRow & { deal_reference: string; home_slug: string; external: ExternalLink[] };

/** A company's viewings with the deal's reference, the home's English slug and the external ids (one query a page). */
export function selectViewings(executor: Executor, companyId: string) {
  return executor
    .selectFrom('viewings')
    .innerJoin('deals as deal', 'deal.id', 'viewings.deal_id')
    .innerJoin('listings as home', 'home.id', 'viewings.listing_id')
    .selectAll('viewings')
    .select([
      sql<string>`viewings.version::text`.as('version'),
      'deal.reference as deal_reference',
      'home.slug_en as home_slug',
      externalIdsColumn('viewing', 'viewings.id').as('external'),
    ])
    .where('viewings.company_id', '=', companyId);
}

/** A viewing as the API shows it (from its row alone: no query). */
export function presentViewing(row: ViewingRecord): ViewingView {
  return {
    reference: row.reference,
    deal: row.deal_reference,
    home: row.home_slug,
    time: iso(row.starts_at),
    shown_by: row.shown_by,
    status: row.status,
    feedback: row.feedback,
    external: shownExternalIds(row.external),
    done_at: iso(row.done_at),
    cancelled_at: iso(row.cancelled_at),
    missed_at: iso(row.missed_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
