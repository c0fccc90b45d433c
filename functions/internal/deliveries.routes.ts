import { z } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import type { Handler } from '../../lib/routes';
import { ApiError } from '../../lib/errors';
import { deliver } from '../../lib/webhooks/deliver';
import { json } from '../../schema/common/api';

const DeliveryResult = z.object({
  delivery_id: z.string(),
  status: z.enum(['succeeded', 'failed', 'missing']),
});

/**
 * QStash's callback, one per (event, subscription): signs freshly and posts to the subscriber with the same
 * code as the in-process dispatcher. The answer steers QStash: 200 when the delivery is done (succeeded, failed
 * for good, or gone), 502 when the subscriber failed and QStash should retry, 409 while another attempt holds it.
 */
const route = defineRoute({
  method: 'post',
  path: '/deliveries/{delivery_id}',
  access: { kind: 'qstash' },
  summary: 'Attempt one webhook delivery (called by QStash)',
  request: { params: z.object({ delivery_id: z.string().uuid() }) },
  responses: {
    200: json(DeliveryResult, 'Done'),
    409: { description: 'Another attempt is in progress' },
    502: { description: 'The subscriber failed; QStash retries' },
  },
});

const attemptDelivery: Handler<typeof route> = async function attemptDelivery(c) {
  const { delivery_id } = c.req.valid('param');
  const { db, webhooks } = c.var.services;
  const outcome = await deliver(db, webhooks, delivery_id, { ignoreSchedule: true });
  if (outcome === 'retry') throw new ApiError('delivery_failed', 'The subscriber did not accept the delivery; retry later.');
  if (outcome === 'busy') throw new ApiError('conflict', 'Another attempt of this delivery is in progress.');
  return c.json({ delivery_id, status: outcome }, 200);
};

export const deliveries = createRouter().openapi(route, attemptDelivery);
