import type { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import type { Company, SubscriptionRow } from '../../schema/platform/db';
import type { SubscriptionInput, SubscriptionUpdate } from '../../schema/platform/webhooks';
import { auditCte } from '../audit';
import { stamp } from '../clock';
import type { Db, Executor } from '../db/index';
import { iso } from '../dates';
import { ApiError, notFound } from '../errors';
import type { CausedBy } from '../events';
import { rotationGraceMs } from '../keys';
import { type Environment, urlProblem } from '../outbound/guard';
import { newSigningSecret } from './secrets';
import type { WebhookRuntime } from './types';

/**
 * A company's webhook subscriptions, one table for both doors: the operator's (admin API `…/webhook-subscriptions`,
 * the command line) and an integration's own, made with a server key (`/api/v1/webhook-endpoints`). Each function
 * takes who acts (`admin` or `api:<key prefix>`), written to the audit row of its one statement.
 */
export type Actor = CausedBy;

/** The subscription of the company, or 404 (another company's is never found). */
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

/** The company's subscriptions, oldest first. */
export function subscriptionsOfCompany(db: Executor, companyId: string): Promise<SubscriptionRow[]> {
  return db
    .selectFrom('webhook_subscriptions')
    .selectAll()
    .where('company_id', '=', companyId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
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

const audited = (actor: Actor, action: string, details?: Record<string, unknown>) =>
  auditCte('audited', 'changed', { actor, action, subject: 'id', details });

/**
 * A subscription of the company and its first signing secret, with its audit row, in one statement. `keyId`: the
 * server key that made it (null for the operator).
 */
export async function createSubscription(
  db: Executor,
  company: Pick<Company, 'id' | 'environment'>,
  input: z.infer<typeof SubscriptionInput>,
  runtime: WebhookRuntime,
  by: { actor: Actor; keyId: string | null } = { actor: 'admin', keyId: null },
): Promise<{ row: SubscriptionRow; secret: string }> {
  await assertDeliverable(input.url, company.environment, runtime);
  const id = crypto.randomUUID();
  const { secret, ciphertext } = await newSecret(runtime, id);
  const insert = db
    .insertInto('webhook_subscriptions')
    .values({ id, company_id: company.id, created_by_key_id: by.keyId, ...input })
    .returningAll();
  const { rows } = await sql<SubscriptionRow>`
    with changed as (${insert}),
    secret as (insert into webhook_secrets (subscription_id, ciphertext) select id, ${ciphertext}::bytea from changed),
    ${audited(by.actor, 'webhook_subscription.created', { url: input.url, event_types: input.event_types })}
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
  actor: Actor = 'admin',
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
    with changed as (${update}), ${audited(actor, 'webhook_subscription.updated', input)} select * from changed`.execute(db);
  if (!rows[0]) throw notFound(`The webhook subscription ${id}`);
  return rows[0];
}

/** Deleting a subscription deletes its secrets and its delivery log with it; one statement with its audit row. */
export async function deleteSubscription(db: Db, companyId: string, id: string, actor: Actor = 'admin'): Promise<void> {
  const remove = db.deleteFrom('webhook_subscriptions').where('company_id', '=', companyId).where('id', '=', id).returningAll();
  const { rows } = await sql`
    with changed as (${remove}), ${audited(actor, 'webhook_subscription.deleted')} select id from changed`.execute(db);
  if (rows.length === 0) throw notFound(`The webhook subscription ${id}`);
}

/**
 * A new secret; deliveries are signed with both (two signatures) until the previous one expires 24 hours after `now`.
 * One statement with its audit row.
 */
export async function rotateSubscriptionSecret(
  db: Db,
  companyId: string,
  id: string,
  runtime: WebhookRuntime,
  now: Date,
  actor: Actor = 'admin',
) {
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
    ${audited(actor, 'webhook_subscription.secret_rotated', details)}
    select * from changed`.execute(db);
  if (!rows[0]) throw notFound(`The webhook subscription ${id}`);
  return { row: rows[0], secret, previousExpiresAt };
}
