import { adminRoute } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { json, jsonBody } from '../../schema/common/api';
import {
  CloseTaxRateInput,
  CreateTaxRateInput,
  TaxRateListSchema,
  TaxRateParams,
  TaxRateSchema,
} from '../../schema/platform/tax-rates';
import { addTaxRate, allTaxRates, closeTaxRate, removeTaxRate } from './tax-rates';

/** The dated tax rates (functions/admin/tax-rates.ts; docs/api-reference.md, "Tax"). */
const list = adminRoute({
  method: 'get',
  path: '/tax-rates',
  operationId: 'listTaxRates',
  summary: 'Every tax rate with its days',
  responses: { 200: json(TaxRateListSchema) },
});

const create = adminRoute({
  method: 'post',
  path: '/tax-rates',
  operationId: 'createTaxRate',
  summary: 'Add a rate from a day not yet reached (no day already used changes its rate)',
  request: { body: jsonBody(CreateTaxRateInput) },
  responses: { 201: json(TaxRateSchema, 'Created') },
});

const close = adminRoute({
  method: 'patch',
  path: '/tax-rates/{rate_id}',
  operationId: 'closeTaxRate',
  summary: 'Close an open rate: its last day, today in UTC+14 or later',
  request: { params: TaxRateParams, body: jsonBody(CloseTaxRateInput) },
  responses: { 200: json(TaxRateSchema) },
});

const remove = adminRoute({
  method: 'delete',
  path: '/tax-rates/{rate_id}',
  operationId: 'deleteTaxRate',
  summary: 'Delete a rate that has not started anywhere yet (added by mistake)',
  request: { params: TaxRateParams },
  responses: { 204: { description: 'Deleted' } },
});

const listRates: Handler<typeof list> = async (c) => c.json(await allTaxRates(c.var.services.db), 200);

const postRate: Handler<typeof create> = async (c) =>
  c.json(await addTaxRate(c.var.services.db, c.req.valid('json'), c.var.services.now()), 201);

const patchRate: Handler<typeof close> = async (c) =>
  c.json(await closeTaxRate(c.var.services.db, c.req.valid('param').rate_id, c.req.valid('json'), c.var.services.now()), 200);

const deleteRate: Handler<typeof remove> = async (c) => {
  await removeTaxRate(c.var.services.db, c.req.valid('param').rate_id, c.var.services.now());
  return c.body(null, 204);
};

export const taxRates = createRouter()
  .openapi(list, listRates)
  .openapi(create, postRate)
  .openapi(close, patchRate)
  .openapi(remove, deleteRate);
