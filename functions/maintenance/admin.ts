import { z } from '@hono/zod-openapi';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, problem } from '../../schema/common/api';
import { HomeMaintenanceInput, HomeMaintenanceSchema } from '../../schema/maintenance/homes';
import { homeSettings, putHomeSettings } from './homes';

const params = companyParam.extend({ slug: z.string().min(1).max(200) });

const getSettings = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/listings/{slug}/maintenance',
  summary: 'A home’s maintenance settings: its owner and the owner’s approval limit',
  request: { params },
  responses: { 200: json(HomeMaintenanceSchema), 404: problem('Unknown company') },
});
const putSettings = adminRoute({
  method: 'put',
  path: '/companies/{company_id}/listings/{slug}/maintenance',
  summary: 'Set a home’s owner and the owner’s approval limit (fields not sent are kept)',
  request: { params, body: jsonBody(HomeMaintenanceInput, { approval_limit: '2000.00' }) },
  responses: { 200: json(HomeMaintenanceSchema), 404: problem('Unknown company') },
});

const getHomeSettings: Handler<typeof getSettings> = async (c) => {
  const { company_id, slug } = c.req.valid('param');
  return c.json(await homeSettings(c.var.services.db, company_id, slug), 200);
};

const putSettingsOfHome: Handler<typeof putSettings> = async (c) => {
  const { company_id, slug } = c.req.valid('param');
  return c.json(await putHomeSettings(c.var.services.db, company_id, slug, c.req.valid('json')), 200);
};

/** The per-home maintenance settings (admin API only; the group's own Worker never bundles them). */
export const maintenanceAdmin = createRouter().openapi(getSettings, getHomeSettings).openapi(putSettings, putSettingsOfHome);
