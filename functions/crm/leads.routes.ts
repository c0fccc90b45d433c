import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import { keyringOf } from '../../lib/crypto-jwe';
import { transactionRetryingConflict } from '../../lib/external-ids';
import { presentLeads, selectLeads } from '../../lib/leads';
import { readOne, readWritten, syncList, syncResource } from '../../lib/resources';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import { LeadSchema } from '../../schema/common/leads';
import { LeadListSchema, LeadParams, LeadPatchInput, LeadsQuery } from '../../schema/crm/leads';
import { updateLead } from './leads';
import { crmRoute } from './route';

const unavailable = problem('Stored details need an encryption key that is not configured (`encryption_unavailable`).');

/** Every read of a lead returns personal data: all are audited. Details are decrypted with the request's keyring. */
const resource = syncResource('leads', {
  idType: 'uuid',
  noun: 'lead',
  external: 'lead',
  select: selectLeads,
  present: (services, rows) => presentLeads(services.db, rows, keyringOf(services.config)),
  personal: (view) => view.reference,
});

const listRoute = crmRoute('read:leads', {
  method: 'get',
  path: '/leads',
  summary: 'Leads (enquiries), in (updated_at, id) order for sync',
  request: { query: LeadsQuery },
  responses: { 200: json(LeadListSchema, 'A page of leads'), 503: unavailable },
});
const oneRoute = crmRoute('read:leads', {
  method: 'get',
  path: '/leads/{reference}',
  record: { table: 'leads', column: 'reference', param: 'reference' },
  summary: 'One lead, with its decrypted details',
  request: { params: LeadParams, query: noQuery },
  responses: { 200: json(LeadSchema, 'The lead'), 503: unavailable },
});
const patchRoute = crmRoute('write:leads', {
  method: 'patch',
  path: '/leads/{reference}',
  record: { table: 'leads', column: 'reference', param: 'reference' },
  summary: 'Change status, assignee, department or next action, or keep your id (`{external: {source, id}}`)',
  request: { params: LeadParams, body: jsonBody(LeadPatchInput) },
  responses: {
    200: json(LeadSchema, 'The lead'),
    409: problem(
      'A status move the lead cannot make (`invalid_transition`, naming the allowed next statuses), an erased lead, or an external id held by another lead (`conflict`)',
    ),
    503: unavailable,
  },
});

export const leads = createRouter()
  .openapi(listRoute, async (c) => c.json(await syncList(c, resource, c.req.valid('query')), 200))
  .openapi(oneRoute, async (c) => c.json(await readOne(c, resource, 'reference', c.req.valid('param').reference), 200))
  .openapi(patchRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const input = c.req.valid('json');
    const company = c.var.company;
    const id = await transactionRetryingConflict(c.var.services.db, (trx) =>
      updateLead(trx, company, reference, input, actorOf(c.var.caller)),
    );
    return c.json(await readWritten(c, resource, id), 200);
  });
