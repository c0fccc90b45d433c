import { adminRoute } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import { outboundStatus, resumeOutbound } from '../../lib/outbound';
import type { Handler } from '../../lib/routes';
import { json } from '../../schema/common/api';
import { OutboundResumedSchema, OutboundStatusSchema } from '../../schema/platform/outbound';

/**
 * Outbound work of the whole database (lib/outbound.ts): a copy (restored, made from a backup, exported) starts with
 * it paused; the operator reads the pause and resumes it (`npm run admin -- outbound status | resume`).
 */
const statusRoute = adminRoute({
  method: 'get',
  path: '/outbound',
  summary: 'Whether outbound work (webhooks, calendar imports, rebuild hooks) runs or is paused on this copy',
  responses: { 200: json(OutboundStatusSchema) },
});
const resumeRoute = adminRoute({
  method: 'post',
  path: '/outbound/resume',
  summary: 'Resume outbound work paused on a copy of the database (nothing changes when it runs)',
  responses: { 200: json(OutboundResumedSchema) },
});

const showStatus: Handler<typeof statusRoute> = async (c) => c.json(await outboundStatus(c.var.services.db), 200);
const resume: Handler<typeof resumeRoute> = async (c) => c.json(await resumeOutbound(c.var.services.db), 200);

export const outbound = createRouter().openapi(statusRoute, showStatus).openapi(resumeRoute, resume);
