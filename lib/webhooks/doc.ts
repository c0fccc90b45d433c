import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from '@hono/zod-openapi';

type OpenAPIRegistry = OpenAPIHono['openAPIRegistry'];
import { EventSchema, envelopeOf, eventCatalogue, pingEvent } from '../../schema/platform/events';

const deliveryHeaders = z.object({
  'webhook-id': z
    .string()
    .openapi({ description: 'The event id (evt_…): the same on every retry and replay; deduplicate with it.' }),
  'webhook-timestamp': z.string().openapi({ description: 'Unix seconds when this attempt was signed.' }),
  'webhook-signature': z.string().openapi({
    description: 'Space-separated `v1,<base64 HMAC-SHA256>` signatures (Standard Webhooks); two during a secret rotation.',
  }),
});

/**
 * The OpenAPI document's `webhooks`: one entry per kind of event, named as in the spec, with its envelope and
 * `data`. What a subscriber answers decides retries, so the responses are documented too.
 */
export function registerEventWebhooks(registry: OpenAPIRegistry): void {
  registry.register('Event', EventSchema);
  const entries: Array<[string, (typeof eventCatalogue)[keyof typeof eventCatalogue]]> = [
    ...Object.entries(eventCatalogue),
    [pingEvent.type, pingEvent],
  ];
  for (const [type, { data, when }] of entries) {
    registry.registerWebhook({
      method: 'post',
      path: type,
      summary: type,
      description: `${when} Signed with the subscription's secret (Standard Webhooks); see docs/api-reference.md#events.`,
      tags: ['Events'],
      // Sent by the platform to the subscriber's endpoint: no key; the signature proves where it comes from.
      operationId: `${type.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase())}Event`,
      security: [],
      request: {
        headers: deliveryHeaders,
        body: { required: true, content: { 'application/json': { schema: envelopeOf(type, data) } } },
      },
      responses: {
        200: { description: 'Any 2xx: delivered.' },
        410: { description: 'Gone: the subscription is disabled and nothing more is sent.' },
        default: { description: 'Any other answer, a timeout (15 s) or a redirect: retried on the schedule.' },
      },
    });
  }
}
