import { z } from '@hono/zod-openapi';
import { listOf, queryInteger } from '../common/api';
import { text } from '../common/text';
import {
  AttemptSchema,
  DeliveriesQuery,
  DeliverySchema,
  SubscriptionInput,
  SubscriptionSchema,
  SubscriptionUpdate,
} from '../platform/webhooks';

/**
 * Webhook endpoints of the public API (`/api/v1/webhook-endpoints`, server keys with `read:webhooks` or
 * `write:webhooks`): the same subscriptions the operator manages in the admin API, in the same table, shown alike.
 */

export const EndpointParams = z.object({ endpoint_id: text().min(1).max(100) });

export const EndpointInput = SubscriptionInput.openapi('WebhookEndpointInput');
export const EndpointUpdate = SubscriptionUpdate.openapi('WebhookEndpointUpdate');

export const endpointExample = {
  url: 'https://hooks.example.com/property-api',
  event_types: ['lead.created', 'booking.confirmed'],
  description: 'CRM sync',
};

export const EndpointSchema = SubscriptionSchema.omit({ id: true })
  .extend({ endpoint_id: z.string().openapi({ description: 'The endpoint’s id (a UUID).' }) })
  .openapi('WebhookEndpoint');
export const EndpointListSchema = listOf(EndpointSchema, 'WebhookEndpointList');

export const EndpointWithSecretSchema = EndpointSchema.extend({
  secret: z.string().openapi({ description: 'whsec_…: shown once; verify deliveries with it (Standard Webhooks).' }),
}).openapi('WebhookEndpointWithSecret');

export const RotatedEndpointSchema = EndpointWithSecretSchema.extend({
  previous_secret_expires_at: z
    .string()
    .openapi({ description: 'Until then every delivery carries two signatures: the new secret’s, then the previous one’s.' }),
}).openapi('WebhookEndpointRotated');

export const EndpointDeliverySchema = DeliverySchema.omit({ id: true, subscription_id: true })
  .extend({ delivery_id: z.string(), endpoint_id: z.string(), attempts: z.array(AttemptSchema.openapi('WebhookAttempt')) })
  .openapi('WebhookDelivery');
export const EndpointDeliveryListSchema = listOf(EndpointDeliverySchema, 'WebhookDeliveryList');

/** The page size when `page_size` is not given: 50 from API version 2026-11-30, 20 before (lib/versions.ts). */
export const deliveriesPageSize = { before: 20, since: 50 } as const;

/** An endpoint's deliveries: the admin's filters; the page size's default depends on the API version. */
export const EndpointDeliveriesQuery = DeliveriesQuery.extend({
  page_size: queryInteger(1, 100)
    .optional()
    .openapi({
      description: `Results per page, 1 to 100. Default ${deliveriesPageSize.since} (API version 2026-11-30 and later; ${deliveriesPageSize.before} at 2026-11-29).`,
      example: 50,
    }),
});
