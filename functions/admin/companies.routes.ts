import { z } from '@hono/zod-openapi';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { json, jsonBody } from '../../schema/common/api';
import { CompanySchema, CreateCompanyInput, UpdateCompanyInput } from '../../schema/platform/admin';
import { addCompany, allCompanies, changeCompany, oneCompany, setCompanySpamCheck } from './companies';
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
  .openapi(spamCheck, putSpamCheck);
