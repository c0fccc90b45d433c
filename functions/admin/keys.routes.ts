import { z } from '@hono/zod-openapi';
import type { ApiKeyRow } from '../../schema/platform/db';
import { createRouter } from '../../lib/app';
import type { Executor } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { isLocalOrigin } from '../../lib/tenancy';
import { createKey, revokeKey, rotateKey } from '../../lib/keys';
import { CreateKeyInput, KeySchema, KeyWithSecretSchema } from '../../schema/platform/admin';
import { findCompany } from '../../lib/admin-route';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { jsonBody } from '../../schema/common/api';
import { json } from '../../schema/common/api';
import { iso } from '../../lib/dates';

const present = (key: ApiKeyRow) => ({
  prefix: key.prefix,
  kind: key.kind,
  name: key.name,
  scopes: key.scopes,
  origins: key.origins,
  lead_types: key.lead_types,
  created_at: iso(key.created_at),
  revoked_at: iso(key.revoked_at),
  last_used_at: iso(key.last_used_at),
});

async function findKey(db: Executor, companyId: string, prefix: string): Promise<ApiKeyRow> {
  const key = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('prefix', '=', prefix)
    .executeTakeFirst();
  if (!key) throw notFound(`The key ${prefix}`);
  return key;
}

const keyParams = companyParam.extend({ prefix: z.string().regex(/^(sk|pk)_[A-Za-z0-9]{10}$/) });

const create = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/keys',
  summary: 'Create a server or publishable key (the secret is shown once)',
  request: { params: companyParam, body: jsonBody(CreateKeyInput) },
  responses: { 201: json(KeyWithSecretSchema, 'Created') },
});
const list = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/keys',
  summary: 'The company’s keys, with when each was last used',
  request: { params: companyParam },
  responses: { 200: json(z.object({ results: z.array(KeySchema), next_cursor: z.null() })) },
});
const rotate = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/keys/{prefix}/rotate',
  summary: 'Issue a new secret; the old one keeps working for 24 hours',
  request: { params: keyParams },
  responses: {
    200: json(KeyWithSecretSchema.extend({ previous_secret_expires_at: z.string() })),
    409: json(z.object({}), 'The key is revoked'),
  },
});
const revoke = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/keys/{prefix}/revoke',
  summary: 'Revoke a key at once',
  request: { params: keyParams },
  responses: { 200: json(KeySchema) },
});

export const keys = createRouter()
  .openapi(create, async (c) => {
    const { company_id } = c.req.valid('param');
    const input = c.req.valid('json');
    const result = await c.var.services.db.transaction().execute(async (trx) => {
      const company = await findCompany(trx, company_id);
      const local = input.origins.filter(isLocalOrigin);
      if (company.environment !== 'development' && local.length > 0) {
        throw new ApiError(
          'invalid_request',
          'Origins on this machine or in a private network are accepted only on development workspaces.',
          {
            errors: local.map((o) => ({
              path: 'origins',
              code: 'local_origin',
              message: `${o} is on this machine or in a private network.`,
            })),
          },
        );
      }
      return createKey(trx, company_id, { ...input, leadTypes: input.lead_types }, 'admin');
    });
    return c.json({ ...present(result.key), secret: result.secret }, 201);
  })
  .openapi(list, async (c) => {
    const { company_id } = c.req.valid('param');
    const db = c.var.services.db;
    await findCompany(db, company_id);
    const rows = await db.selectFrom('api_keys').selectAll().where('company_id', '=', company_id).orderBy('created_at').execute();
    return c.json({ results: rows.map(present), next_cursor: null }, 200);
  })
  .openapi(rotate, async (c) => {
    const { company_id, prefix } = c.req.valid('param');
    const { key, result } = await c.var.services.db.transaction().execute(async (trx) => {
      const key = await findKey(trx, company_id, prefix);
      return { key, result: await rotateKey(trx, key, 'admin') };
    });
    return c.json({ ...present(key), secret: result.secret, previous_secret_expires_at: iso(result.previousExpiresAt) }, 200);
  })
  .openapi(revoke, async (c) => {
    const { company_id, prefix } = c.req.valid('param');
    const key = await c.var.services.db
      .transaction()
      .execute(async (trx) => revokeKey(trx, await findKey(trx, company_id, prefix), 'admin'));
    return c.json(present(key), 200);
  });
