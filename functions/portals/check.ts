import { sql } from 'kysely';
import type { Executor } from '../../lib/db/index';
import { todayIn } from '../../lib/dates';
import { type KeysetSort, pageOf, paginate } from '../../lib/pagination';
import { type Portal, portals } from '../../schema/common/permits';
import { type PortalProblemCode, portalProblemCodes } from '../../schema/portals/check';
import type { Company } from '../../schema/platform/db';
import { problemMessages, problemSql } from './rules';

const checkSort = {
  name: 'portal_check',
  columns: [{ ref: 'l.id', direction: 'asc', type: 'uuid' }],
} as const satisfies KeysetSort;

/** A problem's column in the check's statement: `<portal>__<code>`. */
const column = (portal: Portal, code: PortalProblemCode) => `${portal}__${code}`;

/**
 * One page of the portal check: the company's drafts and published listings (withdrawn ones are off every portal
 * anyway), each with its state on each portal, in one statement; `blocked` keeps those with a problem.
 */
export async function portalCheckPage(
  db: Executor,
  company: Company,
  now: Date,
  query: { page_size: number; cursor?: string; blocked?: boolean },
) {
  const today = todayIn(company.time_zone, now);
  const problems = Object.fromEntries(portals.map((portal) => [portal, problemSql(company, portal, today)])) as Record<
    Portal,
    ReturnType<typeof problemSql>
  >;
  const all = portals.flatMap((portal) => portalProblemCodes.map((code) => problems[portal][code]));
  const listings = db
    .selectFrom('listings as l')
    .select(['l.id', 'l.slug_en', 'l.listing_type', 'l.status', 'l.portals_off'])
    .select(portals.flatMap((portal) => portalProblemCodes.map((code) => problems[portal][code].as(column(portal, code)))))
    .where('l.company_id', '=', company.id)
    .where('l.status', '<>', 'withdrawn')
    .$if(query.blocked !== undefined, (qb) =>
      qb.where(query.blocked ? sql<boolean>`(${sql.join(all, sql` or `)})` : sql<boolean>`not (${sql.join(all, sql` or `)})`),
    );
  const rows = (await paginate(listings, checkSort, query).execute()) as Array<Record<string, unknown>>;
  const page = pageOf(rows, checkSort, query.page_size);
  return { results: page.rows.map(presentCheck), next_cursor: page.next_cursor };
}

function presentCheck(row: Record<string, unknown>) {
  const off = row.portals_off as string[];
  const state = (portal: Portal) => {
    const found = portalProblemCodes
      .filter((code) => row[column(portal, code)] === true)
      .map((code) => ({ code, message: problemMessages[code](portal) }));
    const optedIn = !off.includes(portal);
    return { in_feed: row.status === 'published' && optedIn && found.length === 0, opted_in: optedIn, problems: found };
  };
  return {
    id: row.id as string,
    slug: row.slug_en as string,
    listing_type: row.listing_type as 'sale' | 'lease' | 'holiday_home',
    status: row.status as 'draft' | 'published',
    portals: { propertyfinder: state('propertyfinder'), bayut: state('bayut') },
  };
}
