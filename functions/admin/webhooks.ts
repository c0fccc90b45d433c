import type { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import { auditCte } from '../../lib/audit';
import { findCompany } from '../../lib/admin-route';
import type { Db } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { newEventId } from '../../lib/events';
import { createSubscription, subscriptionsOfCompany } from '../../lib/webhooks/subscriptions';
import type { WebhookRuntime } from '../../lib/webhooks/types';
import type { DeliveryRow, SubscriptionRow } from '../../schema/platform/db';
import { pingEvent } from '../../schema/platform/events';
import type { SubscriptionInput } from '../../schema/platform/webhooks';

function requireEnabled(subscription: { enabled: boolean }): void {
  if (!subscription.enabled) throw new ApiError('conflict', 'The subscription is disabled; enable it first.');
}

/** A new delivery as a write statement returns it, with its event's type. */
type NewDelivery = DeliveryRow & { event_type: string };

/**
 * Sends an event again to one subscription: a new delivery with the same webhook-id (the event id), so a subscriber
 * that already has it can ignore it. Only to an enabled subscription that takes the event's type (409), in one
 * statement with its audit row.
 */
export async function replayEvent(
  db: Db,
  companyId: string,
  eventId: string,
  subscriptionId: string,
  now: Date,
): Promise<NewDelivery> {
  const { rows } = await sql<{
    event_type: string | null;
    enabled: boolean | null;
    takes: boolean | null;
    delivery: NewDelivery | null;
  }>`
    with event as (select id, type from events where company_id = ${companyId} and id = ${eventId}),
    subscription as (select * from webhook_subscriptions where company_id = ${companyId} and id = ${subscriptionId}),
    takes as (
      select subscription.enabled, ('*' = any(subscription.event_types) or event.type = any(subscription.event_types)
        or event.type = ${pingEvent.type}) as takes
      from event, subscription
    ),
    changed as (
      insert into webhook_deliveries (company_id, event_id, subscription_id, next_attempt_at)
      select ${companyId}, ${eventId}, ${subscriptionId}, ${now} from takes where enabled and takes
      returning *
    ),
    audit_source as (select company_id, event_id as id from changed),
    ${auditCte('audited', 'audit_source', { actor: 'admin', action: 'event.replayed', subject: 'id', details: { subscription_id: subscriptionId } })}
    select (select type from event) as event_type, takes.enabled, takes.takes,
      (select to_jsonb(changed) || jsonb_build_object('event_type', (select type from event)) from changed) as delivery
    from (select 1) as one left join takes on true`.execute(db);
  const row = rows[0]!;
  if (row.event_type === null) throw notFound(`The event ${eventId}`);
  if (row.enabled === null) throw notFound(`The webhook subscription ${subscriptionId}`);
  requireEnabled({ enabled: row.enabled });
  if (!row.delivery) throw new ApiError('conflict', `The subscription does not take ${row.event_type} events.`);
  return row.delivery;
}

/** A `ping` event (recorded like any event) delivered to this subscription only, whatever types it takes: one statement. */
export async function sendPing(db: Db, companyId: string, subscriptionId: string, now: Date): Promise<NewDelivery> {
  const eventId = newEventId();
  const data = JSON.stringify({ subscription_id: subscriptionId });
  const { rows } = await sql<{ enabled: boolean; delivery: NewDelivery | null }>`
    with subscription as (select id, enabled from webhook_subscriptions where company_id = ${companyId} and id = ${subscriptionId}),
    event as (
      insert into events (id, company_id, type, caused_by, data)
      select ${eventId}, ${companyId}, ${pingEvent.type}, 'admin', ${data}::jsonb from subscription where enabled
      returning id
    ),
    changed as (
      insert into webhook_deliveries (company_id, event_id, subscription_id, next_attempt_at)
      select ${companyId}, id, ${subscriptionId}, ${now} from event
      returning *
    )
    select subscription.enabled,
      (select to_jsonb(changed) || jsonb_build_object('event_type', ${pingEvent.type}::text) from changed) as delivery
    from subscription`.execute(db);
  const row = rows[0];
  if (!row) throw notFound(`The webhook subscription ${subscriptionId}`);
  requireEnabled(row);
  return row.delivery!;
}

/** The company's subscriptions, oldest first (404 when there is no such company). */
export async function subscriptionsOf(db: Db, companyId: string): Promise<SubscriptionRow[]> {
  await findCompany(db, companyId);
  return subscriptionsOfCompany(db, companyId);
}

/** POST: the company's environment read (its URL rules), then the subscription in one statement. */
export async function subscribe(db: Db, companyId: string, input: z.infer<typeof SubscriptionInput>, runtime: WebhookRuntime) {
  return createSubscription(db, await findCompany(db, companyId), input, runtime);
}
