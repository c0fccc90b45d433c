import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import {
  DeliverySchema,
  SubscriptionInput,
  SubscriptionSchema,
  SubscriptionUpdate,
  SubscriptionWithSecretSchema,
  subscriptionIdParam,
} from '../../schema/platform/webhooks';
import { findCompany } from '../../lib/admin-route';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { jsonBody } from '../../schema/common/api';
import { json } from '../../schema/common/api';
import {
  createSubscription,
  deleteSubscription,
  findSubscription,
  rotateSubscriptionSecret,
  sendPing,
  updateSubscription,
} from './webhooks';
import { presentDeliveries, presentSubscription } from './webhooks.present';
import { iso } from '../../lib/dates';

const base = '/companies/{company_id}/webhook-subscriptions';
const params = companyParam.extend({ subscription_id: subscriptionIdParam });

const create = adminRoute({
  method: 'post',
  path: base,
  summary: 'Subscribe a URL to events (the signing secret is shown once)',
  request: { params: companyParam, body: jsonBody(SubscriptionInput) },
  responses: { 201: json(SubscriptionWithSecretSchema, 'Created') },
});
const list = adminRoute({
  method: 'get',
  path: base,
  summary: 'The company’s webhook subscriptions',
  request: { params: companyParam },
  responses: { 200: json(z.object({ results: z.array(SubscriptionSchema), next_cursor: z.null() })) },
});
const get = adminRoute({
  method: 'get',
  path: `${base}/{subscription_id}`,
  summary: 'One webhook subscription',
  request: { params },
  responses: { 200: json(SubscriptionSchema) },
});
const update = adminRoute({
  method: 'patch',
  path: `${base}/{subscription_id}`,
  summary: 'Change the URL, the event types, the description, or enable/disable',
  request: { params, body: jsonBody(SubscriptionUpdate) },
  responses: { 200: json(SubscriptionSchema) },
});
const remove = adminRoute({
  method: 'delete',
  path: `${base}/{subscription_id}`,
  summary: 'Delete a subscription, its secrets and its delivery log',
  request: { params },
  responses: { 204: { description: 'Deleted' } },
});
const rotate = adminRoute({
  method: 'post',
  path: `${base}/{subscription_id}/rotate-secret`,
  summary: 'Issue a new signing secret; deliveries carry both signatures for 24 hours',
  request: { params },
  responses: { 200: json(SubscriptionWithSecretSchema.extend({ previous_secret_expires_at: z.string() })) },
});
const ping = adminRoute({
  method: 'post',
  path: `${base}/{subscription_id}/ping`,
  summary: 'Send a test `ping` event to this subscription (delivered like any event)',
  request: { params },
  responses: { 202: json(DeliverySchema, 'Queued'), 409: json(z.object({}), 'The subscription is disabled') },
});

export const webhookSubscriptions = createRouter()
  .openapi(create, async (c) => {
    const { company_id } = c.req.valid('param');
    const { db, webhooks } = c.var.services;
    const input = c.req.valid('json');
    const { row, secret } = await db
      .transaction()
      .execute(async (trx) => createSubscription(trx, await findCompany(trx, company_id), input, webhooks));
    return c.json({ ...presentSubscription(row), secret }, 201);
  })
  .openapi(list, async (c) => {
    const { company_id } = c.req.valid('param');
    const db = c.var.services.db;
    await findCompany(db, company_id);
    const rows = await db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('company_id', '=', company_id)
      .orderBy('created_at')
      .execute();
    return c.json({ results: rows.map(presentSubscription), next_cursor: null }, 200);
  })
  .openapi(get, async (c) => {
    const { company_id, subscription_id } = c.req.valid('param');
    return c.json(presentSubscription(await findSubscription(c.var.services.db, company_id, subscription_id)), 200);
  })
  .openapi(update, async (c) => {
    const { company_id, subscription_id } = c.req.valid('param');
    const { db, webhooks } = c.var.services;
    const input = c.req.valid('json');
    const row = await db
      .transaction()
      .execute(async (trx) => updateSubscription(trx, await findCompany(trx, company_id), subscription_id, input, webhooks));
    return c.json(presentSubscription(row), 200);
  })
  .openapi(remove, async (c) => {
    const { company_id, subscription_id } = c.req.valid('param');
    await c.var.services.db.transaction().execute((trx) => deleteSubscription(trx, company_id, subscription_id));
    return c.body(null, 204);
  })
  .openapi(rotate, async (c) => {
    const { company_id, subscription_id } = c.req.valid('param');
    const { db, webhooks } = c.var.services;
    const result = await db.transaction().execute((trx) => rotateSubscriptionSecret(trx, company_id, subscription_id, webhooks));
    const previous_secret_expires_at = iso(result.previousExpiresAt);
    return c.json({ ...presentSubscription(result.row), secret: result.secret, previous_secret_expires_at }, 200);
  })
  .openapi(ping, async (c) => {
    const { company_id, subscription_id } = c.req.valid('param');
    const db = c.var.services.db;
    const { deliveryId } = await db.transaction().execute((trx) => sendPing(trx, company_id, subscription_id));
    const [delivery] = await presentDeliveries(db, [deliveryId]);
    return c.json(delivery!, 202);
  });
