import { createRouter } from '../../lib/app';
import { actorOf } from '../../lib/audit';
import { transactionRetryingConflict } from '../../lib/external-ids';
import { matchOrCreateContact } from '../../lib/people';
import { readOne, readWritten, syncList, syncResource } from '../../lib/resources';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import {
  ContactInput,
  ContactListSchema,
  ContactPatchInput,
  ContactParams,
  ContactSchema,
  ContactsQuery,
} from '../../schema/crm/contacts';
import { updateContact } from './contacts';
import { presentContacts, selectContacts } from './contacts.present';
import { crmRoute } from './route';

/** Every read of a contact returns personal data: all are audited. */
const resource = syncResource('contacts', {
  idType: 'uuid',
  noun: 'contact',
  external: 'contact',
  select: selectContacts,
  present: (services, rows) => presentContacts(services.db, rows),
  personal: (view) => view.reference,
});

const listRoute = crmRoute('read:contacts', {
  method: 'get',
  path: '/contacts',
  summary: 'People, in (updated_at, id) order for sync',
  request: { query: ContactsQuery },
  responses: { 200: json(ContactListSchema, 'A page of people') },
});
const oneRoute = crmRoute('read:contacts', {
  method: 'get',
  path: '/contacts/{reference}',
  record: { table: 'contacts', column: 'reference', param: 'reference' },
  summary: 'One person',
  request: { params: ContactParams, query: noQuery },
  responses: { 200: json(ContactSchema, 'The person') },
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
    201: json(ContactSchema, 'A new person'),
    200: json(ContactSchema, 'The person matched (the first record), with its empty fields filled'),
    409: problem('The external id belongs to another person'),
  },
});
const patchRoute = crmRoute('write:contacts', {
  method: 'patch',
  path: '/contacts/{reference}',
  record: { table: 'contacts', column: 'reference', param: 'reference' },
  summary: 'Change name or language, or keep your id (`{external: {source, id}}`)',
  request: { params: ContactParams, body: jsonBody(ContactPatchInput) },
  responses: {
    200: json(ContactSchema, 'The person'),
    409: problem('The person is erased, or the external id belongs to another person'),
  },
});

export const contacts = createRouter()
  .openapi(listRoute, async (c) => c.json(await syncList(c, resource, c.req.valid('query')), 200))
  .openapi(oneRoute, async (c) => c.json(await readOne(c, resource, 'reference', c.req.valid('param').reference), 200))
  .openapi(addRoute, async (c) => {
    const input = c.req.valid('json');
    const company = c.var.company;
    const result = await transactionRetryingConflict(c.var.services.db, (trx) =>
      matchOrCreateContact(trx, company, input, actorOf(c.var.caller)),
    );
    return c.json(await readWritten(c, resource, result.contact.id), result.created ? 201 : 200);
  })
  .openapi(patchRoute, async (c) => {
    const { reference } = c.req.valid('param');
    const input = c.req.valid('json');
    const company = c.var.company;
    const row = await transactionRetryingConflict(c.var.services.db, (trx) =>
      updateContact(trx, company, reference, input, actorOf(c.var.caller)),
    );
    return c.json(await readWritten(c, resource, row.id), 200);
  });
