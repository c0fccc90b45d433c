import { z } from '@hono/zod-openapi';
import { createRouter } from '../../lib/app';
import { notFound } from '../../lib/errors';
import { pageOf, paginate } from '../../lib/pagination';
import { pageQuery } from '../../schema/common/api';
import { AdminEventSchema, DeliverySchema, ReplayInput, eventIdParam, subscriptionIdParam } from '../../schema/platform/webhooks';
import { findCompany } from '../../lib/admin-route';
import { adminRoute, companyParam } from '../../lib/admin-route';
import { jsonBody } from '../../schema/common/api';
import { json } from '../../schema/common/api';
import { findSubscription, replayEvent } from './webhooks';
import { presentDeliveries } from './webhooks.present';
import { iso } from '../../lib/dates';

const eventParams = companyParam.extend({ event_id: eventIdParam });
const eventSort = {
  name: 'events',
  columns: [
    { ref: 'created_at', direction: 'desc', type: 'timestamptz' },
    { ref: 'id', direction: 'desc', type: 'text' },
  ],
} as const;
const deliverySort = {
  name: 'deliveries',
  columns: [
    { ref: 'created_at', direction: 'desc', type: 'timestamptz' },
    { ref: 'id', direction: 'desc', type: 'uuid' },
  ],
} as const;
const deliveryList = z.object({ results: z.array(DeliverySchema), next_cursor: z.string().nullable() });

const listEvents = adminRoute({
  method: 'get',
  path: '/companies/{company_id}/events',
  summary: 'The company’s events, newest first',
  request: { params: companyParam, query: z.strictObject({ ...pageQuery, type: z.string().max(100).optional() }) },
  responses: { 200: json(z.object({ results: z.array(AdminEventSchema), next_cursor: z.string().nullable() })) },
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
  summary: 'A subscription’s deliveries, newest first, with their attempts',
  request: {
    params: companyParam.extend({ subscription_id: subscriptionIdParam }),
    query: z.strictObject({ ...pageQuery, status: z.enum(['pending', 'succeeded', 'failed']).optional() }),
  },
  responses: { 200: json(deliveryList) },
});

export const events = createRouter()
  .openapi(listEvents, async (c) => {
    const { company_id } = c.req.valid('param');
    const query = c.req.valid('query');
    const db = c.var.services.db;
    await findCompany(db, company_id);
    const rows = await paginate(
      db
        .selectFrom('events')
        .selectAll()
        .where('company_id', '=', company_id)
        .$if(query.type !== undefined, (qb) => qb.where('type', '=', query.type as string)),
      eventSort,
      query,
    ).execute();
    const page = pageOf(rows, eventSort, query.page_size);
    const results = page.rows.map((e) => ({
      id: e.id,
      type: e.type,
      created_at: iso(e.created_at),
      caused_by: e.caused_by,
      data: e.data,
      published_at: iso(e.published_at),
    }));
    return c.json({ results, next_cursor: page.next_cursor }, 200);
  })
  .openapi(eventDeliveries, async (c) => {
    const { company_id, event_id } = c.req.valid('param');
    const db = c.var.services.db;
    const rows = await db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('company_id', '=', company_id)
      .where('event_id', '=', event_id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    if (rows.length === 0) {
      const event = db.selectFrom('events').select('id').where('company_id', '=', company_id).where('id', '=', event_id);
      if (!(await event.executeTakeFirst())) throw notFound(`The event ${event_id}`);
    }
    return c.json(
      {
        results: await presentDeliveries(
          db,
          rows.map((r) => r.id),
        ),
        next_cursor: null,
      },
      200,
    );
  })
  .openapi(replay, async (c) => {
    const { company_id, event_id } = c.req.valid('param');
    const { subscription_id } = c.req.valid('json');
    const db = c.var.services.db;
    const deliveryId = await db.transaction().execute((trx) => replayEvent(trx, company_id, event_id, subscription_id));
    const [delivery] = await presentDeliveries(db, [deliveryId]);
    return c.json(delivery!, 202);
  })
  .openapi(subscriptionDeliveries, async (c) => {
    const { company_id, subscription_id } = c.req.valid('param');
    const query = c.req.valid('query');
    const db = c.var.services.db;
    await findSubscription(db, company_id, subscription_id);
    const rows = await paginate(
      db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('subscription_id', '=', subscription_id)
        .$if(query.status !== undefined, (qb) => qb.where('status', '=', query.status!)),
      deliverySort,
      query,
    ).execute();
    const page = pageOf(rows, deliverySort, query.page_size);
    const results = await presentDeliveries(
      db,
      page.rows.map((r) => r.id),
    );
    return c.json({ results, next_cursor: page.next_cursor }, 200);
  });
