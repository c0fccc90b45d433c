import { noQuery } from '../../schema/common/api';
import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import { notFound } from '../../lib/errors';
import { ProblemSchema } from '../../schema/common/api';
import {
  ContactInput,
  ContactListSchema,
  ContactPatchInput,
  ContactParams,
  ContactSchema,
  ContactsQuery,
} from '../../schema/crm/contacts';
import { jsonBody } from '../../schema/common/api';
import { matchOrCreateContact, updateContact } from '../../lib/people';
import { contactView, presentContacts, selectContacts } from './contacts.present';
import { externalSyncPage, transactionRetryingConflict } from '../../lib/external-ids';
import { crmRoute } from './route';
import { auditRead } from '../../lib/audit';
import { syncSort } from '../../lib/sync';

const sort = syncSort('contacts', 'uuid');
const contact = (description: string) => ({ description, content: { 'application/json': { schema: ContactSchema } } });
const conflict = (description: string) => ({ description, content: { 'application/problem+json': { schema: ProblemSchema } } });

const listRoute = crmRoute('read:contacts', {
  method: 'get',
  path: '/contacts',
  summary: 'People, in (updated_at, id) order for sync',
  request: { query: ContactsQuery },
  responses: { 200: { description: 'A page of people', content: { 'application/json': { schema: ContactListSchema } } } },
});
const oneRoute = crmRoute('read:contacts', {
  method: 'get',
  path: '/contacts/{reference}',
  record: { table: 'contacts', column: 'reference', param: 'reference' },
  summary: 'One person',
  request: { params: ContactParams, query: noQuery },
  responses: { 200: contact('The person') },
});
const addRoute = crmRoute('write:contacts', {
  method: 'post',
  path: '/contacts',
  summary: 'Add a person, or match one by external id, then email, then phone (fills empty fields, never overwrites)',
  request: {
    body: jsonBody(ContactInput, {
      name: 'Layla Haddad',
      email: 'layla.haddad@example.com',
      phone: '+971501234567',
      language: 'ar',
    }),
  },
  responses: {
    201: contact('A new person'),
    200: contact('The person matched (the first record), with its empty fields filled'),
    409: conflict('The external id belongs to another person'),
  },
});
const patchRoute = crmRoute('write:contacts', {
  method: 'patch',
  path: '/contacts/{reference}',
  record: { table: 'contacts', column: 'reference', param: 'reference' },
  summary: 'Change name or language, or keep your id (`{external: {source, id}}`)',
  request: { params: ContactParams, body: jsonBody(ContactPatchInput) },
  responses: {
    200: contact('The person'),
    409: conflict('The person is erased, or the external id belongs to another person'),
  },
});

export const contacts = createRouter()
  .openapi(listRoute, async (c) => {
    const query = c.req.valid('query');
    const db = c.var.services.db;
    const companyId = c.var.company.id;
    const page = await externalSyncPage(db, companyId, 'contact', selectContacts(db, companyId), sort, query);
    const results = await presentContacts(db, page.rows);
    await auditRead(
      c,
      results.map((r) => r.reference),
    );
    return c.json({ results, next_cursor: page.next_cursor }, 200);
  })
  .openapi(oneRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const db = c.var.services.db;
    const row = await selectContacts(db, c.var.company.id).where('contacts.reference', '=', reference).executeTakeFirst();
    if (!row) throw notFound(`The contact ${reference}`);
    const [view] = await presentContacts(db, [row]);
    await auditRead(c, [reference]);
    return c.json(view!, 200);
  })
  .openapi(addRoute, async (c) => {
    const input = c.req.valid('json');
    const { db } = c.var.services;
    const company = c.var.company;
    const result = await transactionRetryingConflict(db, (trx) =>
      matchOrCreateContact(trx, company, input, actorOf(c.var.caller)),
    );
    const view = await contactView(db, company.id, result.contact.id);
    await auditRead(c, [view.reference]);
    return c.json(view, result.created ? 201 : 200);
  })
  .openapi(patchRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const input = c.req.valid('json');
    const { db } = c.var.services;
    const company = c.var.company;
    const row = await transactionRetryingConflict(db, (trx) =>
      updateContact(trx, company, reference, input, actorOf(c.var.caller)),
    );
    const view = await contactView(db, company.id, row.id);
    await auditRead(c, [view.reference]);
    return c.json(view, 200);
  });
