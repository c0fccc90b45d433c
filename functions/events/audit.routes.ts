import { createRouter } from '../../lib/app';
import { auditExport } from '../../lib/audit-export';
import type { Handler } from '../../lib/routes';
import { AuditExportQuery, auditExportResponse } from '../../schema/platform/events-api';
import { eventsRoute } from './scopes';

const exportRoute = eventsRoute('read:audit', {
  method: 'get',
  path: '/audit-log/export',
  summary: 'The company’s audit log of a range of days, as JSON lines or CSV, streamed',
  request: { query: AuditExportQuery },
  responses: { 200: auditExportResponse },
});

const exported: Handler<typeof exportRoute> = async (c) => auditExport(c, c.var.company, c.req.valid('query'));

export const auditRoutes = createRouter().openapi(exportRoute, exported);
