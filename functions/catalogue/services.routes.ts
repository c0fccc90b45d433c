import { defineRoute } from '../../lib/access';
import { catalogueAccess } from './cache';
import { createRouter } from '../../lib/app';
import { localised } from '../../lib/localise';
import type { Handler } from '../../lib/routes';
import { listServices } from './services';
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

const listServicesHandler: Handler<typeof route> = async function listServicesHandler(c) {
  const rows = await listServices(c.var.services.db, c.var.company.id);
  return c.json({ results: rows.map((r) => ({ ...r, name: localised(r.name) })), next_cursor: null }, 200);
};

export const services = createRouter().openapi(route, listServicesHandler);
