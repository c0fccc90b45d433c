import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import { keyringOf } from '../../lib/crypto-jwe';
import { ProblemSchema } from '../../schema/common';
import { LeadInput, LeadSchema } from '../../schema/crm-leads';
import { jsonBody } from '../admin/route';
import { transactionRetryingConflict } from '../crm/external';
import { createLead } from '../crm/leads-domain';
import { leadView } from '../crm/leads-read';
import { auditRead } from '../crm/route';

/**
 * POST /leads with a server key (`write:leads`): a company's own server posting an enquiry. No origin, spam
 * check or hidden field; consent is required all the same. The browser path (publishable key) comes later.
 */
const postRoute = defineRoute({
  method: 'post',
  path: '/leads',
  tags: ['Forms'],
  summary: 'Send an enquiry (lead) from a server',
  access: { kind: 'server', scopes: ['write:leads'] },
  request: { body: jsonBody(LeadInput) },
  responses: {
    201: { description: 'The lead, with its `reference`', content: { 'application/json': { schema: LeadSchema } } },
    503: {
      description: 'Details were sent but no encryption key is configured (`encryption_unavailable`); nothing was recorded.',
      content: { 'application/problem+json': { schema: ProblemSchema } },
    },
  },
});

export const leadForms = createRouter().openapi(postRoute, async (c) => {
  const input = c.req.valid('json');
  const { db, config } = c.var.services;
  const company = c.var.company;
  const keyring = keyringOf(config);
  const lead = await transactionRetryingConflict(db, (trx) =>
    createLead(trx, company, { ...input, keyring, consentAddress: null }, actorOf(c.var.caller)),
  );
  const view = await leadView(db, company.id, lead.id, keyring);
  await auditRead(c, [view.reference]);
  return c.json(view, 201);
});
