import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import { writeAudit } from '../../lib/audit';
import { keyringOf } from '../../lib/crypto-jwe';
import { setSpamCheckSecret } from '../../lib/spam-check';
import { CompanySchema, CreateCompanyInput, UpdateCompanyInput } from '../../schema/platform/admin';
import { createCompany, presentCompany, updateCompany } from './companies';
import { findCompany } from '../../lib/admin-route';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { jsonBody } from '../../schema/common/api';
import { text } from '../../schema/common/text';
import { json } from '../../schema/common/api';

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

export const companies = createRouter()
  .openapi(create, async (c) => {
    const input = c.req.valid('json');
    const db = c.var.services.db;
    const company = await db.transaction().execute((trx) => createCompany(trx, input, c.var.services.webhooks));
    return c.json(await presentCompany(db, company), 201);
  })
  .openapi(list, async (c) => {
    const db = c.var.services.db;
    const rows = await db.selectFrom('companies').selectAll().orderBy('created_at').execute();
    return c.json({ results: await Promise.all(rows.map((r) => presentCompany(db, r))), next_cursor: null }, 200);
  })
  .openapi(get, async (c) => {
    const db = c.var.services.db;
    return c.json(await presentCompany(db, await findCompany(db, c.req.valid('param').company_id)), 200);
  })
  .openapi(update, async (c) => {
    const db = c.var.services.db;
    const { company_id } = c.req.valid('param');
    const input = c.req.valid('json');
    const company = await db.transaction().execute((trx) => updateCompany(trx, company_id, input, c.var.services.webhooks));
    return c.json(await presentCompany(db, company), 200);
  })
  .openapi(spamCheck, async (c) => {
    const { db, config } = c.var.services;
    const { company_id } = c.req.valid('param');
    const { secret } = c.req.valid('json');
    await db.transaction().execute(async (trx) => {
      await findCompany(trx, company_id);
      await setSpamCheckSecret(trx, company_id, secret, keyringOf(config));
      await writeAudit(trx, {
        companyId: company_id,
        actor: 'admin',
        action: secret === null ? 'spam_check.removed' : 'spam_check.set',
        subject: company_id,
      });
    });
    return c.json({ configured: secret !== null }, 200);
  });
