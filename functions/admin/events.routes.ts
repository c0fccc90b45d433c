import { z } from '@hono/zod-openapi';
import { adminRoute, companyParam, findCompany } from '../../lib/admin-route';
import { createRouter } from '../../lib/app';
import { keyringOf } from '../../lib/crypto-jwe';
import { eventFeed } from '../../lib/event-feed';
import type { Handler } from '../../lib/routes';
import { json, jsonBody, pageQuery } from '../../schema/common/api';
import { deliveriesOfSubscription } from '../../lib/webhooks/deliveries';
import { EventFeedQuery, EventFeedSchema } from '../../schema/platform/events-api';
import {
  AdminEventSchema,
  DeliveriesQuery,
  DeliverySchema,
  ReplayInput,
  eventIdParam,
  subscriptionIdParam,
} from '../../schema/platform/webhooks';
import { TriggerInput, TriggeredSchema } from '../../schema/platform/events-api';
import { deliveriesOfEvent, eventsPage, replayed, triggered } from './events';

const eventParams = companyParam.extend({ event_id: eventIdParam });
const deliveryList = z.object({ results: z.array(DeliverySchema), next_cursor: z.string().nullable() });

const listEvents = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/events',
  summary: 'The company’s events, newest first',
  request: { params: companyParam, query: z.strictObject({ ...pageQuery, type: z.string().max(100).optional() }) },
  responses: { 200: json(z.object({ results: z.array(AdminEventSchema), next_cursor: z.string().nullable() })) },
});
const feed = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/events/feed',
  summary: 'The company’s events in the order they were committed, after a cursor or an event (what `events listen` follows)',
  request: { params: companyParam, query: EventFeedQuery },
  responses: { 200: json(EventFeedSchema) },
});
const eventDeliveries = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/events/{event_id}/deliveries',
  summary: 'Every delivery of an event (one per subscription, plus replays), with their attempts',
  request: { params: eventParams },
  responses: { 200: json(deliveryList) },
});
const replay = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/events/{event_id}/replay',
  summary: 'Deliver an event again to one subscription (same webhook-id)',
  request: { params: eventParams, body: jsonBody(ReplayInput) },
  responses: { 202: json(DeliverySchema, 'Queued'), 409: json(z.object({}), 'Disabled, or does not take this type') },
});
const subscriptionDeliveries = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/webhook-subscriptions/{subscription_id}/deliveries',
  summary: 'A subscription’s deliveries, newest first, with their attempts (by status and when they were made)',
  request: { params: companyParam.extend({ subscription_id: subscriptionIdParam }), query: DeliveriesQuery },
  responses: { 200: json(deliveryList) },
});

const trigger = adminRoute({
  method: 'post',
  path: '/companies/{company_id}/events/trigger',
  summary: 'Make a test event happen: the records whose real operations emit it (a development company only)',
  request: { params: companyParam, body: jsonBody(TriggerInput) },
  responses: {
    201: json(TriggeredSchema, 'Made: every event the fixture recorded, each marked with its `trigger_id`'),
    403: json(z.object({}), 'The company is a production company'),
    409: json(z.object({}), 'No fixture makes this type here (the answer says why)'),
  },
});

const listEventsHandler: Handler<typeof listEvents> = async (c) =>
  c.json(await eventsPage(c.var.services.db, c.req.valid('param').company_id, c.req.valid('query')), 200);

const feedHandler: Handler<typeof feed> = async (c) => {
  const { db, now } = c.var.services;
  const company = await findCompany(db, c.req.valid('param').company_id);
  return c.json(await eventFeed(db, company.id, c.req.valid('query'), now()), 200);
};

const eventDeliveriesHandler: Handler<typeof eventDeliveries> = async (c) => {
  const { company_id, event_id } = c.req.valid('param');
  return c.json({ results: await deliveriesOfEvent(c.var.services.db, company_id, event_id), next_cursor: null }, 200);
};

const replayHandler: Handler<typeof replay> = async (c) => {
  const { company_id, event_id } = c.req.valid('param');
  const { db, now } = c.var.services;
  return c.json(await replayed(db, company_id, event_id, c.req.valid('json').subscription_id, now()), 202);
};

const triggerHandler: Handler<typeof trigger> = async (c) => {
  const { db, now, config, webhooks } = c.var.services;
  const { company_id } = c.req.valid('param');
  return c.json(await triggered(db, company_id, c.req.valid('json').type, now(), keyringOf(config), webhooks), 201);
};

const subscriptionDeliveriesHandler: Handler<typeof subscriptionDeliveries> = async (c) => {
  const { company_id, subscription_id } = c.req.valid('param');
  return c.json(await deliveriesOfSubscription(c.var.services.db, company_id, subscription_id, c.req.valid('query')), 200);
};

export const events = createRouter()
  .openapi(listEvents, listEventsHandler)
  .openapi(feed, feedHandler)
  .openapi(trigger, triggerHandler)
  .openapi(eventDeliveries, eventDeliveriesHandler)
  .openapi(replay, replayHandler)
  .openapi(subscriptionDeliveries, subscriptionDeliveriesHandler);
