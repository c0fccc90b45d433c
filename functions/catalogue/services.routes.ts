import { defineRoute } from '../../lib/access';
import { catalogueAccess } from './cache';
import { createRouter } from '../../lib/app';
import { localised } from '../../lib/localise';
import { ServiceSchema, allOf } from '../../schema/catalogue/listings';
import { json, noQuery } from '../../schema/common/api';

const route = defineRoute({
  method: 'get',
  path: '/services',
  summary: 'The services the company offers',
  ...catalogueAccess({ kind: 'public', scopes: ['read:listings', 'write:leads'] }),
  request: { query: noQuery },
  responses: {
    200: json(allOf(ServiceSchema, 'ServiceList'), 'Services'),
  },
});

export const services = createRouter().openapi(route, async (c) => {
  const rows = await c.var.services.db
    .selectFrom('services')
    .select(['key', 'name', 'kind'])
    .where('company_id', '=', c.var.company.id)
    .orderBy('position')
    .orderBy('key')
    .execute();
  return c.json({ results: rows.map((r) => ({ ...r, name: localised(r.name) })), next_cursor: null }, 200);
});
