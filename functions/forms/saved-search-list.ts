import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { notFound } from '../../lib/errors';
import { type KeysetSort, pageOf, paginate } from '../../lib/pagination';

/** A saved search's matches, newest first (GET /saved-searches/{id}/matches). */
const matchSort = {
  name: 'saved_search_matches',
  columns: [
    { ref: 'm.matched_at', direction: 'desc', type: 'timestamptz' },
    { ref: 'm.listing_id', direction: 'desc', type: 'uuid' },
  ],
} as const satisfies KeysetSort;

/** A page of the listings a saved search of the company found, with their slugs and status now; 404 for another's. */
export async function searchMatches(db: Executor, companyId: string, id: string, page: { page_size: number; cursor?: string }) {
  const search = await db
    .selectFrom('saved_searches')
    .select('id')
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!search) throw notFound(`The saved search ${id}`);
  const query = db
    .selectFrom('saved_search_matches as m')
    .innerJoin('listings as l', 'l.id', 'm.listing_id')
    .select(['m.listing_id', 'm.matched_at', 'm.announced', 'l.slug_en', 'l.slug_ar', 'l.status'])
    .where('m.saved_search_id', '=', id);
  const rows = await paginate(query, matchSort, page).execute();
  const shown = pageOf(rows, matchSort, page.page_size);
  return {
    results: shown.rows.map((row) => ({
      listing_id: row.listing_id,
      slug: { en: row.slug_en, ar: row.slug_ar },
      status: row.status,
      matched_at: iso(row.matched_at),
      announced: row.announced,
    })),
    next_cursor: shown.next_cursor,
  };
}
