import { z } from '@hono/zod-openapi';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import { iso } from '../../lib/dates';
import type { Handler } from '../../lib/routes';
import { json, jsonBody } from '../../schema/common/api';
import { CreateKeyInput, KeySchema, KeyWithSecretSchema, UpdateKeyInput } from '../../schema/platform/admin';
import { addKey, keysOf, pinCompanyKeyVersion, revokeCompanyKey, rotateCompanyKey } from './keys';
import { presentKey } from './keys.present';

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
const update = adminRoute({
  method: 'patch',
  path: '/companies/{company_id}/keys/{prefix}',
  summary: 'Pin the key to another API version (its requests that name none are served at it)',
  request: { params: keyParams, body: jsonBody(UpdateKeyInput, { api_version: '2026-11-30' }) },
  responses: { 200: json(KeySchema) },
});

const postKey: Handler<typeof create> = async (c) => {
  const { key, secret } = await addKey(c.var.services.db, c.req.valid('param').company_id, c.req.valid('json'));
  return c.json({ ...presentKey(key), secret }, 201);
};

const listKeys: Handler<typeof list> = async (c) =>
  c.json({ results: (await keysOf(c.var.services.db, c.req.valid('param').company_id)).map(presentKey), next_cursor: null }, 200);

const rotateKeyHandler: Handler<typeof rotate> = async (c) => {
  const { company_id, prefix } = c.req.valid('param');
  const { key, secret, previousExpiresAt } = await rotateCompanyKey(c.var.services.db, company_id, prefix, c.var.services.now());
  return c.json({ ...presentKey(key), secret, previous_secret_expires_at: iso(previousExpiresAt) }, 200);
};

const revokeKeyHandler: Handler<typeof revoke> = async (c) => {
  const { company_id, prefix } = c.req.valid('param');
  return c.json(presentKey(await revokeCompanyKey(c.var.services.db, company_id, prefix, c.var.services.now())), 200);
};

const updateKey: Handler<typeof update> = async (c) => {
  const { company_id, prefix } = c.req.valid('param');
  const { api_version } = c.req.valid('json');
  return c.json(presentKey(await pinCompanyKeyVersion(c.var.services.db, company_id, prefix, api_version)), 200);
};

export const keys = createRouter()
  .openapi(create, postKey)
  .openapi(list, listKeys)
  .openapi(rotate, rotateKeyHandler)
  .openapi(revoke, revokeKeyHandler)
  .openapi(update, updateKey);
