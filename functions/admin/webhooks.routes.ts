import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import {
  DeliverySchema,
  RecoverAnswer,
  RecoverInput,
  SubscriptionInput,
  SubscriptionSchema,
  SubscriptionUpdate,
  SubscriptionWithSecretSchema,
  subscriptionIdParam,
} from '../../schema/platform/webhooks';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { iso } from '../../lib/dates';
import type { Handler } from '../../lib/routes';
import { json, jsonBody } from '../../schema/common/api';
import { recoverDeliveries } from '../../lib/webhooks/deliveries';
import { presentNewDelivery, presentSubscription } from '../../lib/webhooks/present';
import {
  deleteSubscription,
  findSubscription,
  rotateSubscriptionSecret,
  updateSubscription,
} from '../../lib/webhooks/subscriptions';
import { sendPing, subscribe, subscriptionsOf } from './webhooks';

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

const recover = adminRoute({
  method: 'post',
  path: `${base}/{subscription_id}/recover`,
  summary: 'Send again every failed delivery made since a time (500 at a time; a second call sends none twice)',
  request: { params, body: jsonBody(RecoverInput, { since: '2026-11-21T09:30:00Z' }) },
  responses: { 200: json(RecoverAnswer), 409: json(z.object({}), 'The subscription is disabled') },
});

const postSubscription: Handler<typeof create> = async (c) => {
  const { db, webhooks } = c.var.services;
  const { row, secret } = await subscribe(db, c.req.valid('param').company_id, c.req.valid('json'), webhooks);
  return c.json({ ...presentSubscription(row), secret }, 201);
};

const listSubscriptions: Handler<typeof list> = async (c) => {
  const rows = await subscriptionsOf(c.var.services.db, c.req.valid('param').company_id);
  return c.json({ results: rows.map(presentSubscription), next_cursor: null }, 200);
};

const getSubscription: Handler<typeof get> = async (c) => {
  const { company_id, subscription_id } = c.req.valid('param');
  return c.json(presentSubscription(await findSubscription(c.var.services.db, company_id, subscription_id)), 200);
};

const patchSubscription: Handler<typeof update> = async (c) => {
  const { company_id, subscription_id } = c.req.valid('param');
  const { db, webhooks } = c.var.services;
  const row = await updateSubscription(db, company_id, subscription_id, c.req.valid('json'), webhooks);
  return c.json(presentSubscription(row), 200);
};

const deleteSubscriptionHandler: Handler<typeof remove> = async (c) => {
  const { company_id, subscription_id } = c.req.valid('param');
  await deleteSubscription(c.var.services.db, company_id, subscription_id);
  return c.body(null, 204);
};

const rotateSecretHandler: Handler<typeof rotate> = async (c) => {
  const { company_id, subscription_id } = c.req.valid('param');
  const { db, webhooks, now } = c.var.services;
  const result = await rotateSubscriptionSecret(db, company_id, subscription_id, webhooks, now());
  const previous_secret_expires_at = iso(result.previousExpiresAt);
  return c.json({ ...presentSubscription(result.row), secret: result.secret, previous_secret_expires_at }, 200);
};

const pingHandler: Handler<typeof ping> = async (c) => {
  const { company_id, subscription_id } = c.req.valid('param');
  return c.json(presentNewDelivery(await sendPing(c.var.services.db, company_id, subscription_id, c.var.services.now())), 202);
};

const recoverHandler: Handler<typeof recover> = async (c) => {
  const { company_id, subscription_id } = c.req.valid('param');
  const { db, now } = c.var.services;
  const since = new Date(c.req.valid('json').since);
  return c.json(await recoverDeliveries(db, company_id, subscription_id, since, now(), 'admin'), 200);
};

export const webhookSubscriptions = createRouter()
  .openapi(create, postSubscription)
  .openapi(list, listSubscriptions)
  .openapi(get, getSubscription)
  .openapi(update, patchSubscription)
  .openapi(remove, deleteSubscriptionHandler)
  .openapi(rotate, rotateSecretHandler)
  .openapi(ping, pingHandler)
  .openapi(recover, recoverHandler);
