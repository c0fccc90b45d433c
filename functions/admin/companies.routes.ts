import { z } from '@hono/zod-openapi';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { json, jsonBody } from '../../schema/common/api';
import {
  CompanySchema,
  CreateCompanyInput,
  EinvoicingInput,
  EinvoicingSchema,
  UpdateCompanyInput,
} from '../../schema/platform/admin';
import { addCompany, allCompanies, changeCompany, oneCompany, setCompanyEinvoicing, setCompanySpamCheck } from './companies';
import { text } from '../../schema/common/text';

const create = adminRoute({
  method: 'post',
  path: '/companies',
  summary: 'Create a company with its hosts and settings',
  request: { body: jsonBody(CreateCompanyInput) },
  responses: { 201: json(CompanySchema, 'Created') },
});

const list = adminRoute({
  method: 'get',
  path: '/companies',
  summary: 'Every company',
  responses: { 200: json(z.object({ results: z.array(CompanySchema), next_cursor: z.null() })) },
});

const get = adminRoute({
  method: 'get',
  path: '/companies/{company_id}',
  summary: 'One company',
  request: { params: companyParam },
  responses: { 200: json(CompanySchema) },
});

const update = adminRoute({
  method: 'patch',
  path: '/companies/{company_id}',
  summary: 'Rename, change hosts, or change settings (merged)',
  request: { params: companyParam, body: jsonBody(UpdateCompanyInput) },
  responses: { 200: json(CompanySchema) },
});

const spamCheck = adminRoute({
  method: 'put',
  path: '/companies/{company_id}/spam-check',
  summary: "Set (or remove, with null) the company's Cloudflare Turnstile secret",
  description:
    'Stored encrypted with the details keys (DETAILS_KEYS) and never shown again. The change is audited without the secret.',
  request: {
    params: companyParam,
    body: jsonBody(z.strictObject({ secret: text().min(1).max(500).nullable() })),
  },
  responses: { 200: json(z.object({ configured: z.boolean() }).openapi('AdminSpamCheck')) },
});

const putEinvoicingRoute = adminRoute({
  method: 'put',
  path: '/companies/{company_id}/einvoicing',
  summary: "Set the company's Accredited Service Provider (e-invoice hand-off endpoint and shared secret)",
  description:
    'Issued tax invoices and credit notes are POSTed there as PINT AE XML, signed with the secret (Standard Webhooks), by scheduled work; the provider answers at POST /api/v1/inbound/einvoice signed with the same secret. The URL follows the webhooks’ rules (400 at `url`); the secret is stored encrypted with the details keys and never shown again. Audited without the secret.',
  request: { params: companyParam, body: jsonBody(EinvoicingInput) },
  responses: { 200: json(EinvoicingSchema) },
});

const deleteEinvoicingRoute = adminRoute({
  method: 'delete',
  path: '/companies/{company_id}/einvoicing',
  summary: "Remove the company's Accredited Service Provider",
  description: 'Nothing is handed off until one is set again (documents stay pending); its answers are refused (401).',
  request: { params: companyParam },
  responses: { 200: json(EinvoicingSchema) },
});

const putEinvoicing: Handler<typeof putEinvoicingRoute> = async (c) => {
  const { db, config, webhooks } = c.var.services;
  return c.json(await setCompanyEinvoicing(db, config, webhooks, c.req.valid('param').company_id, c.req.valid('json')), 200);
};

const deleteEinvoicing: Handler<typeof deleteEinvoicingRoute> = async (c) => {
  const { db, config, webhooks } = c.var.services;
  return c.json(await setCompanyEinvoicing(db, config, webhooks, c.req.valid('param').company_id, null), 200);
};

const postCompany: Handler<typeof create> = async (c) =>
  c.json(await addCompany(c.var.services.db, c.req.valid('json'), c.var.services.webhooks), 201);

const listCompanies: Handler<typeof list> = async (c) =>
  c.json({ results: await allCompanies(c.var.services.db), next_cursor: null }, 200);

const getCompany: Handler<typeof get> = async (c) =>
  c.json(await oneCompany(c.var.services.db, c.req.valid('param').company_id), 200);

const patchCompany: Handler<typeof update> = async (c) => {
  const { db, webhooks, now } = c.var.services;
  return c.json(await changeCompany(db, c.req.valid('param').company_id, c.req.valid('json'), now(), webhooks), 200);
};

const putSpamCheck: Handler<typeof spamCheck> = async (c) => {
  const { secret } = c.req.valid('json');
  await setCompanySpamCheck(c.var.services.db, c.var.services.config, c.req.valid('param').company_id, secret);
  return c.json({ configured: secret !== null }, 200);
};

export const companies = createRouter()
  .openapi(create, postCompany)
  .openapi(list, listCompanies)
  .openapi(get, getCompany)
  .openapi(update, patchCompany)
  .openapi(spamCheck, putSpamCheck)
  .openapi(putEinvoicingRoute, putEinvoicing)
  .openapi(deleteEinvoicingRoute, deleteEinvoicing);
