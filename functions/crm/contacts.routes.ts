import { createRouter } from '../../lib/app';
import { personSearch } from '../../lib/person-search';
import { changed, narrowed, readOne, syncList, syncResource, written } from '../../lib/resources';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, noQuery, problem } from '../../schema/common/api';
import {
  ContactInput,
  ContactListSchema,
  ContactPatchInput,
  ContactParams,
  ContactSchema,
  ContactsQuery,
} from '../../schema/crm/contacts';
import { addContact, changeContact } from './contacts';
import { presentContact, selectContacts } from './contacts.present';
import { crmRoute } from './scopes';

/** Every read of a contact returns personal data: all are audited. */
const contactResource = syncResource('contacts', {
  idType: 'uuid',
  noun: 'contact',
  external: 'contact',
  select: selectContacts,
  present: (_services, rows) => rows.map(presentContact),
  personal: (view) => view.reference,
});

const versioned = { table: 'contacts', column: 'reference', param: 'reference' } as const;

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
  versioned,
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
  versioned,
  summary: 'Change name or language, or keep your id (`{external: {source, id}}`)',
  request: { params: ContactParams, body: jsonBody(ContactPatchInput) },
  responses: {
    200: json(ContactSchema, 'The person'),
    409: problem('The person is erased, or the external id belongs to another person'),
  },
});

const listContacts: Handler<typeof listRoute> = async (c) => {
  const { q, ...query } = c.req.valid('query');
  const found = await personSearch(c.var.services.db, c.var.company, 'contacts', q);
  const resource = found ? narrowed(contactResource, selectContacts, (select) => select.where(found)) : contactResource;
  return c.json(await syncList(c, resource, query), 200);
};

const oneContact: Handler<typeof oneRoute> = async (c) =>
  c.json(await readOne(c, contactResource, 'reference', c.req.valid('param').reference), 200);

const postContact: Handler<typeof addRoute> = async (c) => {
  const { view, status } = await written(c, contactResource, (scope) => addContact(scope, c.req.valid('json')));
  return c.json(view, status);
};

const patchContact: Handler<typeof patchRoute> = async (c) =>
  c.json(
    await changed(c, contactResource, (scope) => changeContact(scope, c.req.valid('param').reference, c.req.valid('json'))),
    200,
  );

export const contacts = createRouter()
  .openapi(listRoute, listContacts)
  .openapi(oneRoute, oneContact)
  .openapi(addRoute, postContact)
  .openapi(patchRoute, patchContact);
