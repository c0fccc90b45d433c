import type { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import { auditCte } from '../../lib/audit';
import { findCompany } from '../../lib/admin-route';
import type { Db, Executor } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { newEventId } from '../../lib/events';
import { rotationGraceMs } from '../../lib/keys';
import type { WebhookRuntime } from '../../lib/webhooks/types';
import { newSigningSecret } from '../../lib/webhooks/secrets';
import { type Environment, urlProblem } from '../../lib/outbound/guard';
import type { Company, DeliveryRow, SubscriptionRow } from '../../schema/platform/db';
import { pingEvent } from '../../schema/platform/events';
import type { SubscriptionInput, SubscriptionUpdate } from '../../schema/platform/webhooks';
import { iso } from '../../lib/dates';
import { stamp } from '../../lib/clock';

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

/** The workspace's URL rules (lib/outbound/guard.ts), as a 400 naming the field. */
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

/** A new signing secret of the subscription, sealed with its id (lib/webhooks/secrets.ts). */
async function newSecret(runtime: WebhookRuntime, subscriptionId: string) {
  const secret = newSigningSecret();
  return { secret, ciphertext: await runtime.secrets.encrypt(secret, subscriptionId) };
}

const audited = (action: string, details?: Record<string, unknown>) =>
  auditCte('audited', 'changed', { actor: 'admin', action, subject: 'id', details });

/** A subscription of the company and its first signing secret, with its audit row, in one statement. */
export async function createSubscription(
  db: Executor,
  company: Company,
  input: z.infer<typeof SubscriptionInput>,
  runtime: WebhookRuntime,
): Promise<{ row: SubscriptionRow; secret: string }> {
  await assertDeliverable(input.url, company.environment, runtime);
  const id = crypto.randomUUID();
  const { secret, ciphertext } = await newSecret(runtime, id);
  const insert = db
    .insertInto('webhook_subscriptions')
    .values({ id, company_id: company.id, ...input })
    .returningAll();
  const { rows } = await sql<SubscriptionRow>`
    with changed as (${insert}),
    secret as (insert into webhook_secrets (subscription_id, ciphertext) select id, ${ciphertext}::bytea from changed),
    ${audited('webhook_subscription.created', { url: input.url, event_types: input.event_types })}
    select * from changed`.execute(db);
  return { row: rows[0]!, secret };
}

/**
 * A change of the subscription with its audit row, in one statement (a new URL is checked against the workspace's
 * rules first, which reads the subscription with its company's environment).
 */
export async function updateSubscription(
  db: Db,
  companyId: string,
  id: string,
  input: z.infer<typeof SubscriptionUpdate>,
  runtime: WebhookRuntime,
): Promise<SubscriptionRow> {
  if (input.url !== undefined) {
    const current = await db
      .selectFrom('webhook_subscriptions as s')
      .innerJoin('companies as c', 'c.id', 's.company_id')
      .select('c.environment')
      .where('s.company_id', '=', companyId)
      .where('s.id', '=', id)
      .executeTakeFirst();
    if (!current) throw notFound(`The webhook subscription ${id}`);
    await assertDeliverable(input.url, current.environment, runtime);
  }
  const update = db
    .updateTable('webhook_subscriptions')
    // Enabling or disabling by hand clears the reason the platform disabled it for.
    .set({ ...input, ...(input.enabled === undefined ? {} : { disabled_reason: null }), updated_at: stamp })
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    .returningAll();
  const { rows } = await sql<SubscriptionRow>`
    with changed as (${update}), ${audited('webhook_subscription.updated', input)} select * from changed`.execute(db);
  if (!rows[0]) throw notFound(`The webhook subscription ${id}`);
  return rows[0];
}

/** Deleting a subscription deletes its secrets and its delivery log with it; one statement with its audit row. */
export async function deleteSubscription(db: Db, companyId: string, id: string): Promise<void> {
  const remove = db.deleteFrom('webhook_subscriptions').where('company_id', '=', companyId).where('id', '=', id).returningAll();
  const { rows } = await sql`
    with changed as (${remove}), ${audited('webhook_subscription.deleted')} select id from changed`.execute(db);
  if (rows.length === 0) throw notFound(`The webhook subscription ${id}`);
}

/**
 * A new secret; deliveries are signed with both (two signatures) until the previous one expires 24 hours after `now`.
 * One statement with its audit row.
 */
export async function rotateSubscriptionSecret(db: Db, companyId: string, id: string, runtime: WebhookRuntime, now: Date) {
  const previousExpiresAt = new Date(now.getTime() + rotationGraceMs);
  const { secret, ciphertext } = await newSecret(runtime, id);
  const details = { previous_secret_expires_at: iso(previousExpiresAt) };
  const { rows } = await sql<SubscriptionRow>`
    with changed as (select * from webhook_subscriptions where company_id = ${companyId} and id = ${id}),
    expiring as (
      update webhook_secrets set expires_at = ${previousExpiresAt}
      where subscription_id = (select id from changed) and (expires_at is null or expires_at > ${previousExpiresAt})
    ),
    secret as (insert into webhook_secrets (subscription_id, ciphertext) select id, ${ciphertext}::bytea from changed),
    ${audited('webhook_subscription.secret_rotated', details)}
    select * from changed`.execute(db);
  if (!rows[0]) throw notFound(`The webhook subscription ${id}`);
  return { row: rows[0], secret, previousExpiresAt };
}

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
  return db.selectFrom('webhook_subscriptions').selectAll().where('company_id', '=', companyId).orderBy('created_at').execute();
}

/** POST: the company's environment read (its URL rules), then the subscription in one statement. */
export async function subscribe(db: Db, companyId: string, input: z.infer<typeof SubscriptionInput>, runtime: WebhookRuntime) {
  return createSubscription(db, await findCompany(db, companyId), input, runtime);
}
