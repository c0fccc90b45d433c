import { z } from '@hono/zod-openapi';
import { instant, pageQuery } from '../common/api';
import { text } from '../common/text';
import { eventTypes } from './events';

/** Admin API shapes for webhook subscriptions, events and deliveries. */

const parsed = (text: string) => {
  try {
    return new URL(text);
  } catch {
    return null;
  }
};

/** Any http(s) URL without credentials; the workspace's rules (https, no private hosts) are checked after. */
export const hookUrl = text()
  .max(2048)
  .url()
  .refine((u) => /^https?:$/.test(parsed(u)?.protocol ?? ''), 'An http or https URL.')
  .refine((u) => !parsed(u)?.username && !parsed(u)?.password, 'No user name or password in the URL.');

const eventTypeOrAll = z.enum(['*', ...eventTypes] as [string, ...string[]]);
const eventTypeList = z
  .array(eventTypeOrAll)
  .min(1)
  .max(50)
  .refine((types) => !types.includes('*') || types.length === 1, '"*" (every type) stands alone.')
  .openapi({ description: 'Event types of the spec to send, or ["*"] for every type.' });

export const SubscriptionInput = z.strictObject({
  url: hookUrl,
  event_types: eventTypeList.default(['*']),
  description: text().max(500).default(''),
  enabled: z.boolean().default(true),
});

export const SubscriptionUpdate = z.strictObject({
  url: hookUrl.optional(),
  event_types: eventTypeList.optional(),
  description: text().max(500).optional(),
  enabled: z.boolean().optional(),
});

/** Why the platform disabled a subscription (null while enabled, or when someone disabled it by hand). */
export const disabledReason =
  'Why the platform disabled it: `gone` (the endpoint answered 410 Gone) or `failing` (every attempt failed for 3 days: a delivery used its 10 attempts and nothing was delivered since it was made); the event `webhook_endpoint.disabled` says so. Null while enabled or when disabled by hand; enabling clears it.';

export const SubscriptionSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    event_types: z.array(z.string()),
    description: z.string(),
    enabled: z.boolean(),
    disabled_reason: z.string().nullable().openapi({ description: disabledReason }),
    created_by_key_id: z
      .string()
      .nullable()
      .openapi({ description: 'The server key that made it (POST /api/v1/webhook-endpoints); null when the operator did.' }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi('AdminWebhookSubscription');

export const SubscriptionWithSecretSchema = SubscriptionSchema.extend({
  secret: z.string().openapi({ description: 'whsec_…: shown once; verify deliveries with it (Standard Webhooks).' }),
}).openapi('AdminWebhookSubscriptionWithSecret');

export const AttemptSchema = z
  .object({
    attempt: z.number().int(),
    at: z.string(),
    status_code: z.number().int().nullable(),
    duration_ms: z.number().int(),
    error: z.string().nullable(),
  })
  .openapi('AdminWebhookAttempt');

export const DeliverySchema = z
  .object({
    id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    subscription_id: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempt_count: z.number().int(),
    next_attempt_at: z.string().nullable(),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    recovered_at: z
      .string()
      .nullable()
      .openapi({ description: 'When a recovery sent this failed delivery again (as a new delivery of the same event).' }),
    attempts: z.array(AttemptSchema),
  })
  .openapi('AdminWebhookDelivery');

export const AdminEventSchema = z
  .object({
    id: z.string(),
    type: z.string(),
    created_at: z.string(),
    caused_by: z.string(),
    data: z.record(z.string(), z.unknown()),
    published_at: z.string().nullable(),
  })
  .openapi('AdminEvent');

export const ReplayInput = z.strictObject({ subscription_id: text().uuid() });
export const subscriptionIdParam = text().uuid();
export const eventIdParam = text().regex(/^evt_[A-Za-z0-9]{24}$/, 'An event id (evt_…).');

/** A subscription's deliveries: by status and by when they were made, newest first, in keyset pages. */
export const DeliveriesQuery = z.strictObject({
  ...pageQuery,
  status: z.enum(['pending', 'succeeded', 'failed']).optional(),
  created_since: instant.optional().openapi({ description: 'Only deliveries made at or after this instant.' }),
  created_before: instant.optional().openapi({ description: 'Only deliveries made before this instant.' }),
});

export const RecoverInput = z.strictObject({
  since: instant.openapi({
    description: 'Send again every failed delivery made at or after this instant.',
    example: '2026-11-21T09:30:00Z',
  }),
});

export const RecoverAnswer = z
  .object({
    recovered: z.number().int().openapi({ description: 'Failed deliveries sent again now, each as a new pending delivery.' }),
    more: z
      .boolean()
      .openapi({ description: 'True when more than 500 were waiting: call again with the same `since` for the next ones.' }),
  })
  .openapi('WebhookRecovery');
