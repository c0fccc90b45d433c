import { createRouter } from '../../lib/app';
import { eventFeed, eventList } from '../../lib/event-feed';
import type { Handler } from '../../lib/routes';
import { json } from '../../schema/common/api';
import { EventFeedQuery, EventFeedSchema, EventListQuery, EventListSchema } from '../../schema/platform/events-api';
import { eventsRoute } from './scopes';

const listRoute = eventsRoute('read:events', {
  method: 'get',
  path: '/events',
  summary: 'The company’s events of the last 30 days, newest first, as their deliveries carry them',
  request: { query: EventListQuery },
  responses: { 200: json(EventListSchema, 'A page of events') },
});

const feedRoute = eventsRoute('read:events', {
  method: 'get',
  path: '/events/feed',
  summary: 'The company’s events in the order they were committed, after a cursor or an event: what `events listen` follows',
  request: { query: EventFeedQuery },
  responses: { 200: json(EventFeedSchema, 'The events ready after the place, and the place to follow from') },
});

const list: Handler<typeof listRoute> = async (c) =>
  c.json(await eventList(c.var.services.db, c.var.company.id, c.req.valid('query'), c.var.services.now()), 200);

const feed: Handler<typeof feedRoute> = async (c) =>
  c.json(await eventFeed(c.var.services.db, c.var.company.id, c.req.valid('query'), c.var.services.now()), 200);

export const eventRoutes = createRouter().openapi(listRoute, list).openapi(feedRoute, feed);
