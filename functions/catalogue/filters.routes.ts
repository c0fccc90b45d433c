import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { FilterGroupSchema, allOf } from '../../schema/catalogue/listings';
import { json, noQuery } from '../../schema/common/api';
import { catalogueAccess } from './cache';
import { filterGroups } from './filters';
import type { Handler } from '../../lib/routes';

const route = defineRoute({
  method: 'get',
  path: '/filters',
  summary: 'Filter options with counts, one group per enabled listing type',
  ...catalogueAccess(),
  request: { query: noQuery },
  responses: {
    200: json(allOf(FilterGroupSchema, 'FilterList'), 'Filter groups'),
  },
});

const listFiltersHandler: Handler<typeof route> = async function listFiltersHandler(c) {
  return c.json({ results: await filterGroups(c.var.services.db, c.var.company), next_cursor: null }, 200);
};

export const filters = createRouter().openapi(route, listFiltersHandler);
