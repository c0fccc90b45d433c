import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { AreaSchema, allOf } from '../../schema/catalogue/listings';
import { json, noQuery } from '../../schema/common/api';
import { catalogueAccess } from './cache';
import { listAreas } from './areas';
import type { Handler } from '../../lib/routes';

const route = defineRoute({
  method: 'get',
  path: '/areas',
  summary: 'Cities, areas and projects with counts of published listings per type',
  ...catalogueAccess(),
  request: { query: noQuery },
  responses: { 200: json(allOf(AreaSchema, 'AreaList'), 'Every area') },
});

const listAreasHandler: Handler<typeof route> = async function listAreasHandler(c) {
  return c.json({ results: await listAreas(c.var.services.db, c.var.company), next_cursor: null }, 200);
};

export const areas = createRouter().openapi(route, listAreasHandler);
