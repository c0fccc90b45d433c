import { noQuery } from '../../schema/common/api';
import type { Context } from 'hono';
import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import { keyringOf } from '../../lib/crypto-jwe';
import type { AppEnv } from '../../lib/env';
import { notFound } from '../../lib/errors';
import { ProblemSchema } from '../../schema/common/api';
import { LeadListSchema, LeadParams, LeadPatchInput, LeadSchema, LeadsQuery } from '../../schema/crm/leads';
import { jsonBody } from '../../schema/common/api';
import { externalSyncPage, transactionRetryingConflict } from '../../lib/external-ids';
import { leadView, presentLeads, selectLeads } from '../../lib/leads';
import { updateLead } from './leads';
import { crmRoute } from './route';
import { auditRead } from '../../lib/audit';
import { syncSort } from '../../lib/sync';

const sort = syncSort('leads', 'uuid');
const lead = (description: string) => ({ description, content: { 'application/json': { schema: LeadSchema } } });
const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ProblemSchema } } });
const unavailable = problem('Stored details need an encryption key that is not configured (`encryption_unavailable`).');

const keyringOfRequest = (c: Context<AppEnv>) => keyringOf(c.var.services.config);

const listRoute = crmRoute('read:leads', {
  method: 'get',
  path: '/leads',
  summary: 'Leads (enquiries), in (updated_at, id) order for sync',
  request: { query: LeadsQuery },
  responses: {
    200: { description: 'A page of leads', content: { 'application/json': { schema: LeadListSchema } } },
    503: unavailable,
  },
});
const oneRoute = crmRoute('read:leads', {
  method: 'get',
  path: '/leads/{reference}',
  record: { table: 'leads', column: 'reference', param: 'reference' },
  summary: 'One lead, with its decrypted details',
  request: { params: LeadParams, query: noQuery },
  responses: { 200: lead('The lead'), 503: unavailable },
});
const patchRoute = crmRoute('write:leads', {
  method: 'patch',
  path: '/leads/{reference}',
  record: { table: 'leads', column: 'reference', param: 'reference' },
  summary: 'Change status, assignee, department or next action, or keep your id (`{external: {source, id}}`)',
  request: { params: LeadParams, body: jsonBody(LeadPatchInput) },
  responses: {
    200: lead('The lead'),
    409: problem(
      'A status move the lead cannot make (`invalid_transition`, naming the allowed next statuses), an erased lead, or an external id held by another lead (`conflict`)',
    ),
    503: unavailable,
  },
});

export const leads = createRouter()
  .openapi(listRoute, async (c) => {
    const query = c.req.valid('query');
    const db = c.var.services.db;
    const companyId = c.var.company.id;
    const page = await externalSyncPage(db, companyId, 'lead', selectLeads(db, companyId), sort, query);
    const results = await presentLeads(db, page.rows, keyringOfRequest(c));
    await auditRead(
      c,
      results.map((r) => r.reference),
    );
    return c.json({ results, next_cursor: page.next_cursor }, 200);
  })
  .openapi(oneRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const db = c.var.services.db;
    const row = await selectLeads(db, c.var.company.id).where('leads.reference', '=', reference).executeTakeFirst();
    if (!row) throw notFound(`The lead ${reference}`);
    const [view] = await presentLeads(db, [row], keyringOfRequest(c));
    await auditRead(c, [reference]);
    return c.json(view!, 200);
  })
  .openapi(patchRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const input = c.req.valid('json');
    const { db } = c.var.services;
    const company = c.var.company;
    const id = await transactionRetryingConflict(db, (trx) => updateLead(trx, company, reference, input, actorOf(c.var.caller)));
    const view = await leadView(db, company.id, id, keyringOfRequest(c));
    await auditRead(c, [view.reference]);
    return c.json(view, 200);
  });
