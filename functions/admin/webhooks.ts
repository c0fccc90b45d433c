import type { z } from '@hono/zod-openapi';
import { writeAudit } from '../../lib/audit';
import { findCompany } from '../../lib/admin-route';
import type { Db, Executor, Trx } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { newEventId } from '../../lib/events';
import { rotationGraceMs } from '../../lib/keys';
import type { WebhookRuntime } from '../../lib/webhooks/types';
import { newSigningSecret } from '../../lib/webhooks/secrets';
import { type Environment, urlProblem } from '../../lib/webhooks/urls';
import type { Company, SubscriptionRow } from '../../schema/platform/db';
import { pingEvent } from '../../schema/platform/events';
import type { SubscriptionInput, SubscriptionUpdate } from '../../schema/platform/webhooks';
import { iso } from '../../lib/dates';
import { presentDeliveries } from './webhooks.present';

export async function findSubscription(db: Executor, companyId: string, id: string): Promise<SubscriptionRow> {
  const row = await db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound(`The webhook subscription ${id}`);
  return row;
}

/** The workspace's URL rules (lib/webhooks/urls.ts), as a 400 naming the field. */
export async function assertDeliverable(
  url: string,
  environment: Environment,
  runtime: Pick<WebhookRuntime, 'resolveHost'>,
  path = 'url',
): Promise<void> {
  const problem = await urlProblem(url, environment, runtime.resolveHost);
  if (problem) {
    throw new ApiError('invalid_request', `The URL cannot receive this workspace's webhooks: ${problem}`, {
      errors: [{ path, code: 'url_not_allowed', message: problem }],
    });
  }
}

async function addSecret(trx: Trx, runtime: WebhookRuntime, subscriptionId: string): Promise<string> {
  const secret = newSigningSecret();
  const ciphertext = await runtime.secrets.encrypt(secret, subscriptionId);
  await trx.insertInto('webhook_secrets').values({ subscription_id: subscriptionId, ciphertext }).execute();
  return secret;
}

export async function createSubscription(
  trx: Trx,
  company: Company,
  input: z.infer<typeof SubscriptionInput>,
  runtime: WebhookRuntime,
): Promise<{ row: SubscriptionRow; secret: string }> {
  await assertDeliverable(input.url, company.environment, runtime);
  const row = await trx
    .insertInto('webhook_subscriptions')
    .values({ company_id: company.id, ...input })
    .returningAll()
    .executeTakeFirstOrThrow();
  const secret = await addSecret(trx, runtime, row.id);
  const details = { url: row.url, event_types: row.event_types };
  await writeAudit(trx, {
    companyId: company.id,
    actor: 'admin',
    action: 'webhook_subscription.created',
    subject: row.id,
    details,
  });
  return { row, secret };
}

export async function updateSubscription(
  trx: Trx,
  company: Company,
  id: string,
  input: z.infer<typeof SubscriptionUpdate>,
  runtime: WebhookRuntime,
  now: Date,
): Promise<SubscriptionRow> {
  await findSubscription(trx, company.id, id);
  if (input.url !== undefined) await assertDeliverable(input.url, company.environment, runtime);
  const row = await trx
    .updateTable('webhook_subscriptions')
    // Enabling or disabling by hand clears the reason the platform disabled it for.
    .set({ ...input, ...(input.enabled === undefined ? {} : { disabled_reason: null }), updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await writeAudit(trx, {
    companyId: company.id,
    actor: 'admin',
    action: 'webhook_subscription.updated',
    subject: id,
    details: input,
  });
  return row;
}

/** Deleting a subscription deletes its secrets and its delivery log with it. */
export async function deleteSubscription(trx: Trx, companyId: string, id: string): Promise<void> {
  await findSubscription(trx, companyId, id);
  await trx.deleteFrom('webhook_subscriptions').where('id', '=', id).execute();
  await writeAudit(trx, { companyId, actor: 'admin', action: 'webhook_subscription.deleted', subject: id });
}

/** A new secret; deliveries are signed with both (two signatures) until the previous one expires in 24 hours. */
export async function rotateSubscriptionSecret(trx: Trx, companyId: string, id: string, runtime: WebhookRuntime, now: Date) {
  const row = await findSubscription(trx, companyId, id);
  const previousExpiresAt = new Date(now.getTime() + rotationGraceMs);
  await trx
    .updateTable('webhook_secrets')
    .set({ expires_at: previousExpiresAt })
    .where('subscription_id', '=', id)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', previousExpiresAt)]))
    .execute();
  const secret = await addSecret(trx, runtime, id);
  const details = { previous_secret_expires_at: iso(previousExpiresAt) };
  await writeAudit(trx, { companyId, actor: 'admin', action: 'webhook_subscription.secret_rotated', subject: id, details });
  return { row, secret, previousExpiresAt };
}

async function newDelivery(trx: Trx, companyId: string, eventId: string, subscriptionId: string, now: Date): Promise<string> {
  const { id } = await trx
    .insertInto('webhook_deliveries')
    .values({ company_id: companyId, event_id: eventId, subscription_id: subscriptionId, next_attempt_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

function requireEnabled(subscription: SubscriptionRow): void {
  if (!subscription.enabled) throw new ApiError('conflict', 'The subscription is disabled; enable it first.');
}

/**
 * Sends an event again to one subscription: a new delivery with the same webhook-id (the event id), so a
 * subscriber that already has it can ignore it. Only to an enabled subscription that takes the event's type.
 */
export async function replayEvent(
  trx: Trx,
  companyId: string,
  eventId: string,
  subscriptionId: string,
  now: Date,
): Promise<string> {
  const event = await trx
    .selectFrom('events')
    .select(['id', 'type'])
    .where('company_id', '=', companyId)
    .where('id', '=', eventId)
    .executeTakeFirst();
  if (!event) throw notFound(`The event ${eventId}`);
  const subscription = await findSubscription(trx, companyId, subscriptionId);
  requireEnabled(subscription);
  const takes = subscription.event_types.includes('*') || subscription.event_types.includes(event.type);
  if (!takes && event.type !== pingEvent.type) {
    throw new ApiError('conflict', `The subscription does not take ${event.type} events.`);
  }
  const deliveryId = await newDelivery(trx, companyId, eventId, subscriptionId, now);
  await writeAudit(trx, {
    companyId,
    actor: 'admin',
    action: 'event.replayed',
    subject: eventId,
    details: { subscription_id: subscriptionId },
  });
  return deliveryId;
}

/** A `ping` event (recorded like any event) delivered to this subscription only, whatever types it takes. */
export async function sendPing(
  trx: Trx,
  companyId: string,
  subscriptionId: string,
  now: Date,
): Promise<{ eventId: string; deliveryId: string }> {
  requireEnabled(await findSubscription(trx, companyId, subscriptionId));
  const eventId = newEventId();
  await trx
    .insertInto('events')
    .values({
      id: eventId,
      company_id: companyId,
      type: pingEvent.type,
      caused_by: 'admin',
      data: JSON.stringify({ subscription_id: subscriptionId }),
    })
    .execute();
  return { eventId, deliveryId: await newDelivery(trx, companyId, eventId, subscriptionId, now) };
}

/** The company's subscriptions, oldest first (404 when there is no such company). */
export async function subscriptionsOf(db: Db, companyId: string): Promise<SubscriptionRow[]> {
  await findCompany(db, companyId);
  return db.selectFrom('webhook_subscriptions').selectAll().where('company_id', '=', companyId).orderBy('created_at').execute();
}

/** POST: a subscription of the company and its first signing secret, in one transaction. */
export function subscribe(db: Db, companyId: string, input: z.infer<typeof SubscriptionInput>, runtime: WebhookRuntime) {
  return db.transaction().execute(async (trx) => createSubscription(trx, await findCompany(trx, companyId), input, runtime));
}

/** PATCH, in one transaction. */
export function changeSubscription(
  db: Db,
  companyId: string,
  id: string,
  input: z.infer<typeof SubscriptionUpdate>,
  runtime: WebhookRuntime,
  now: Date,
) {
  return db
    .transaction()
    .execute(async (trx) => updateSubscription(trx, await findCompany(trx, companyId), id, input, runtime, now));
}

/** DELETE, in one transaction. */
export function unsubscribe(db: Db, companyId: string, id: string) {
  return db.transaction().execute((trx) => deleteSubscription(trx, companyId, id));
}

/** A new signing secret, in one transaction. */
export function rotateSecret(db: Db, companyId: string, id: string, runtime: WebhookRuntime, now: Date) {
  return db.transaction().execute((trx) => rotateSubscriptionSecret(trx, companyId, id, runtime, now));
}

/** A `ping` to the subscription, its delivery as shown. */
export async function pinged(db: Db, companyId: string, id: string, now: Date) {
  const { deliveryId } = await db.transaction().execute((trx) => sendPing(trx, companyId, id, now));
  const [delivery] = await presentDeliveries(db, [deliveryId]);
  return delivery!;
}
