import type { Db } from '../../lib/db/index';
import { iso } from '../../lib/dates';
import { pageOf, paginate } from '../../lib/pagination';

const sort = { name: 'audit', columns: [{ ref: 'id', direction: 'desc', type: 'bigint' }] } as const;

/** A page of the company's audit log, newest first, narrowed to one action when given; as the admin API shows it. */
export async function auditPage(db: Db, companyId: string, query: { action?: string; page_size: number; cursor?: string }) {
  const rows = await paginate(
    db
      .selectFrom('audit_log')
      .select(['at', 'actor', 'action', 'subject', 'details'])
      .where('company_id', '=', companyId)
      .$if(query.action !== undefined, (qb) => qb.where('action', '=', query.action as string)),
    sort,
    query,
  ).execute();
  const page = pageOf(rows, sort, query.page_size);
  const results = page.rows.map(({ at, actor, action, subject, details }) => ({ at: iso(at), actor, action, subject, details }));
  return { results, next_cursor: page.next_cursor };
}
