import { createRouter } from '../../lib/app';
import { keyringOf } from '../../lib/crypto-jwe';
import { presentLeads, selectLeads } from '../../lib/lead-reads';
import { personSearch } from '../../lib/person-search';
import { changed, narrowed, readOne, syncList, syncResource } from '../../lib/resources';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import { LeadSchema } from '../../schema/common/lead-shape';
import { LeadListSchema, LeadParams, LeadPatchInput, LeadsQuery } from '../../schema/crm/leads';
import { changeLead } from './lead-changes';
import { crmRoute } from './scopes';

const unavailable = problem('Stored details need an encryption key that is not configured (`encryption_unavailable`).');

/** Every read of a lead returns personal data: all are audited. Details are decrypted with the request's keyring. */
const leadResource = syncResource('leads', {
  idType: 'uuid',
  noun: 'lead',
  external: 'lead',
  select: selectLeads,
  present: (services, rows) => presentLeads(rows, keyringOf(services.config)),
  personal: (view) => view.reference,
});

const versioned = { table: 'leads', column: 'reference', param: 'reference' } as const;

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
  versioned,
  summary: 'One lead, with its decrypted details',
  request: { params: LeadParams, query: noQuery },
  responses: { 200: json(LeadSchema, 'The lead'), 503: unavailable },
});
const patchRoute = crmRoute('write:leads', {
  method: 'patch',
  path: '/leads/{reference}',
  versioned,
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

const listLeads: Handler<typeof listRoute> = async (c) => {
  const { q, ...query } = c.req.valid('query');
  const found = await personSearch(c.var.services.db, c.var.company, 'person', q);
  const resource = found ? narrowed(leadResource, selectLeads, (select) => select.where(found)) : leadResource;
  return c.json(await syncList(c, resource, query), 200);
};

const oneLead: Handler<typeof oneRoute> = async (c) =>
  c.json(await readOne(c, leadResource, 'reference', c.req.valid('param').reference), 200);

const patchLead: Handler<typeof patchRoute> = async (c) =>
  c.json(await changed(c, leadResource, (scope) => changeLead(scope, c.req.valid('param').reference, c.req.valid('json'))), 200);

export const leads = createRouter().openapi(listRoute, listLeads).openapi(oneRoute, oneLead).openapi(patchRoute, patchLead);
