import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { actorOf } from '../../lib/audit';
import { createRouter } from '../../lib/app';
import { iso } from '../../lib/dates';
import type { AppEnv } from '../../lib/env';
import { notFound } from '../../lib/errors';
import type { Handler } from '../../lib/routes';
import { deliveriesOfSubscription, recoverDeliveries } from '../../lib/webhooks/deliveries';
import {
  createSubscription,
  deleteSubscription,
  findSubscription,
  rotateSubscriptionSecret,
  subscriptionsOfCompany,
  updateSubscription,
} from '../../lib/webhooks/subscriptions';
import { isUuid, json, jsonBody, noQuery } from '../../schema/common/api';
import {
  EndpointDeliveriesQuery,
  EndpointDeliveryListSchema,
  EndpointInput,
  EndpointListSchema,
  EndpointParams,
  EndpointSchema,
  EndpointUpdate,
  EndpointWithSecretSchema,
  RotatedEndpointSchema,
  deliveriesPageSize,
  endpointExample,
} from '../../schema/webhooks/endpoints';
import { RecoverAnswer, RecoverInput } from '../../schema/platform/webhooks';
import { servedSince } from '../../lib/versions';
import { presentEndpoint, presentEndpointDelivery } from './endpoints.present';
import { webhooksRoute } from './scopes';

const one = '/webhook-endpoints/{endpoint_id}';

const listRoute = webhooksRoute('read:webhooks', {
  method: 'get',
  path: '/webhook-endpoints',
  summary: 'The company’s webhook endpoints (every one, the operator’s too), oldest first, in one page',
  request: { query: noQuery },
  responses: { 200: json(EndpointListSchema, 'Every endpoint') },
});
const createRoute = webhooksRoute('write:webhooks', {
  method: 'post',
  path: '/webhook-endpoints',
  summary: 'Subscribe a URL to events (the signing secret is shown once)',
  request: { body: jsonBody(EndpointInput, endpointExample) },
  responses: { 201: json(EndpointWithSecretSchema, 'The endpoint with its signing secret') },
});
const getRoute = webhooksRoute('read:webhooks', {
  method: 'get',
  path: one,
  summary: 'One webhook endpoint (why the platform disabled it, if it did)',
  request: { params: EndpointParams, query: noQuery },
  responses: { 200: json(EndpointSchema, 'The endpoint') },
});
const patchRoute = webhooksRoute('write:webhooks', {
  method: 'patch',
  path: one,
  summary: 'Change the URL, the event types, the description, or enable/disable',
  request: { params: EndpointParams, body: jsonBody(EndpointUpdate, { description: 'CRM sync (production)' }) },
  responses: { 200: json(EndpointSchema, 'The endpoint') },
});
const deleteRoute = webhooksRoute('write:webhooks', {
  method: 'delete',
  path: one,
  summary: 'Delete an endpoint, its secrets and its delivery log',
  request: { params: EndpointParams },
  responses: { 204: { description: 'Deleted' } },
});
const rotateRoute = webhooksRoute('write:webhooks', {
  method: 'post',
  path: `${one}/rotate-secret`,
  summary: 'Issue a new signing secret; deliveries carry both signatures for 24 hours',
  request: { params: EndpointParams },
  responses: { 200: json(RotatedEndpointSchema, 'The endpoint with its new secret') },
});
const deliveriesRoute = webhooksRoute('read:webhooks', {
  method: 'get',
  path: `${one}/deliveries`,
  summary: 'The endpoint’s deliveries, newest first, with their attempts (by status and when they were made)',
  request: { params: EndpointParams, query: EndpointDeliveriesQuery },
  responses: { 200: json(EndpointDeliveryListSchema, 'A page of deliveries') },
});
const recoverRoute = webhooksRoute('write:webhooks', {
  method: 'post',
  path: `${one}/recover`,
  summary: 'Send again every failed delivery made since a time (500 at a time; a second call sends none twice)',
  request: { params: EndpointParams, body: jsonBody(RecoverInput, { since: '2026-11-21T09:30:00Z' }) },
  responses: { 200: json(RecoverAnswer, 'How many were sent again'), 409: json(z.object({}), 'The endpoint is disabled') },
});

/** The path's endpoint id: anything but a UUID names no endpoint (404, like another company's). */
function endpointId(id: string): string {
  if (!isUuid(id)) throw notFound(`The webhook endpoint ${id}`);
  return id;
}

/** Who acts, for the audit log: `api:<key prefix>`. */
const actor = (c: Context<AppEnv>) => actorOf(c.var.caller);

const listEndpoints: Handler<typeof listRoute> = async (c) => {
  const rows = await subscriptionsOfCompany(c.var.services.db, c.var.company.id);
  return c.json({ results: rows.map(presentEndpoint), next_cursor: null }, 200);
};

const postEndpoint: Handler<typeof createRoute> = async (c) => {
  const { db, webhooks } = c.var.services;
  const keyId = c.var.caller.kind === 'server' ? c.var.caller.key.id : null;
  const by = { actor: actor(c), keyId };
  const { row, secret } = await createSubscription(db, c.var.company, c.req.valid('json'), webhooks, by);
  return c.json({ ...presentEndpoint(row), secret }, 201);
};

const getEndpoint: Handler<typeof getRoute> = async (c) => {
  const id = endpointId(c.req.valid('param').endpoint_id);
  return c.json(presentEndpoint(await findSubscription(c.var.services.db, c.var.company.id, id)), 200);
};

const patchEndpoint: Handler<typeof patchRoute> = async (c) => {
  const id = endpointId(c.req.valid('param').endpoint_id);
  const { db, webhooks } = c.var.services;
  const row = await updateSubscription(db, c.var.company.id, id, c.req.valid('json'), webhooks, actor(c));
  return c.json(presentEndpoint(row), 200);
};

const deleteEndpoint: Handler<typeof deleteRoute> = async (c) => {
  const id = endpointId(c.req.valid('param').endpoint_id);
  await deleteSubscription(c.var.services.db, c.var.company.id, id, actor(c));
  return c.body(null, 204);
};

const rotateSecret: Handler<typeof rotateRoute> = async (c) => {
  const id = endpointId(c.req.valid('param').endpoint_id);
  const { db, webhooks, now } = c.var.services;
  const result = await rotateSubscriptionSecret(db, c.var.company.id, id, webhooks, now(), actor(c));
  const previous_secret_expires_at = iso(result.previousExpiresAt) as string;
  return c.json({ ...presentEndpoint(result.row), secret: result.secret, previous_secret_expires_at }, 200);
};

const listDeliveries: Handler<typeof deliveriesRoute> = async (c) => {
  const id = endpointId(c.req.valid('param').endpoint_id);
  const query = c.req.valid('query');
  // API version 2026-11-30 answers 50 a page by default; a request served at an earlier version still gets 20.
  const byDefault = servedSince(c, 'endpoint_deliveries_page_size_50') ? deliveriesPageSize.since : deliveriesPageSize.before;
  const page = await deliveriesOfSubscription(c.var.services.db, c.var.company.id, id, {
    ...query,
    page_size: query.page_size ?? byDefault,
  });
  return c.json({ results: page.results.map(presentEndpointDelivery), next_cursor: page.next_cursor }, 200);
};

const recover: Handler<typeof recoverRoute> = async (c) => {
  const id = endpointId(c.req.valid('param').endpoint_id);
  const { db, now } = c.var.services;
  const since = new Date(c.req.valid('json').since);
  return c.json(await recoverDeliveries(db, c.var.company.id, id, since, now(), actor(c)), 200);
};

export const endpoints = createRouter()
  .openapi(listRoute, listEndpoints)
  .openapi(createRoute, postEndpoint)
  .openapi(getRoute, getEndpoint)
  .openapi(patchRoute, patchEndpoint)
  .openapi(deleteRoute, deleteEndpoint)
  .openapi(rotateRoute, rotateSecret)
  .openapi(deliveriesRoute, listDeliveries)
  .openapi(recoverRoute, recover);
