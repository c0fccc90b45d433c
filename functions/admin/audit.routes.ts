import { z } from '@hono/zod-openapi';
import { adminRoute, companyParam, findCompany } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import { auditExport } from '../../lib/audit-export';
import type { Handler } from '../../lib/routes';
import { json, pageQuery } from '../../schema/common/api';
import { AuditExportQuery, auditExportResponse } from '../../schema/platform/events-api';
import { auditPage } from './audit';

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

const exportRoute = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/audit-log/export',
  summary: 'The company’s audit log of a range of days, as JSON lines or CSV, streamed',
  request: { params: companyParam, query: AuditExportQuery },
  responses: { 200: auditExportResponse },
});

const listAudit: Handler<typeof route> = async (c) =>
  c.json(await auditPage(c.var.services.db, c.req.valid('param').company_id, c.req.valid('query')), 200);

const exported: Handler<typeof exportRoute> = async (c) =>
  auditExport(c, await findCompany(c.var.services.db, c.req.valid('param').company_id), c.req.valid('query'));

export const audit = createRouter().openapi(route, listAudit).openapi(exportRoute, exported);
