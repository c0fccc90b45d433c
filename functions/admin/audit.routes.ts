import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import { pageOf, paginate } from '../../lib/pagination';
import { pageQuery } from '../../schema/common/api';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { json } from '../../schema/common/api';
import { iso } from '../../lib/dates';

const sort = { name: 'audit', columns: [{ ref: 'id', direction: 'desc', type: 'bigint' }] } as const;

const EntrySchema = z
  .object({
    at: z.string(),
    actor: z.string(),
    action: z.string(),
    subject: z.string().nullable(),
    details: z.record(z.string(), z.unknown()),
  })
  .openapi('AuditEntry');

const route = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/audit-log',
  summary: 'The company’s audit log, newest first',
  request: { params: companyParam, query: z.strictObject({ ...pageQuery, action: z.string().max(100).optional() }) },
  responses: { 200: json(z.object({ results: z.array(EntrySchema), next_cursor: z.string().nullable() })) },
});

export const audit = createRouter().openapi(route, async (c) => {
  const { company_id } = c.req.valid('param');
  const query = c.req.valid('query');
  const rows = await paginate(
    c.var.services.db
      .selectFrom('audit_log')
      .select(['at', 'actor', 'action', 'subject', 'details'])
      .where('company_id', '=', company_id)
      .$if(query.action !== undefined, (qb) => qb.where('action', '=', query.action as string)),
    sort,
    query,
  ).execute();
  const page = pageOf(rows, sort, query.page_size);
  const results = page.rows.map(({ at, actor, action, subject, details }) => ({
    at: iso(at),
    actor,
    action,
    subject,
    details,
  }));
  return c.json({ results, next_cursor: page.next_cursor }, 200);
});
