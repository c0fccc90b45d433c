import type { Db, Trx } from '../db/index';
import { outboundRunning } from '../outbound';
import { type AttemptResult, eventBody, post, signedHeaders } from './attempt';
import type { WebhookRuntime } from './types';
import { disableSubscription } from './disable';
import { delayBefore, maxAttempts } from './schedule';

/**
 * What became of a delivery: `succeeded`; `failed` for good (410, the last attempt, a disabled subscription or
 * a refused URL); `retry` (a failed attempt with attempts left: next_attempt_at is set); `busy` (another
 * attempt holds it, or it is not due); `missing` (no such delivery, e.g. its company was deleted).
 */
export type DeliverOutcome = 'succeeded' | 'failed' | 'retry' | 'busy' | 'missing';

/** An attempt holds its delivery for the timeout plus this margin; a crashed attempt is retried after it. */
const leaseMarginMs = 5_000;

/**
 * Makes one attempt of one delivery: the same code for the in-process dispatcher and the QStash callback.
 * The delivery is claimed first (a conditional update), so concurrent callers never attempt it twice at once;
 * every attempt is logged. `ignoreSchedule` is for QStash, which owns the timing of its retries. Nothing is claimed
 * while outbound work is paused: the outcome is then `busy`, and the delivery waits.
 */
export async function deliver(
  db: Db,
  runtime: WebhookRuntime,
  deliveryId: string,
  options: { ignoreSchedule?: boolean } = {},
): Promise<DeliverOutcome> {
  const now = runtime.now();
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ locked_until: new Date(now.getTime() + runtime.timeoutMs + leaseMarginMs) })
    .where('id', '=', deliveryId)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .$if(!options.ignoreSchedule, (qb) => qb.where('next_attempt_at', '<=', now))
    // Never while outbound work is paused (a copy of the database: lib/outbound.ts).
    .where(outboundRunning)
    .returning('id')
    .executeTakeFirst();
  if (!claimed) return outcomeOf(db, deliveryId);

  const job = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('events as e', 'e.id', 'd.event_id')
    .innerJoin('webhook_subscriptions as s', 's.id', 'd.subscription_id')
    .innerJoin('companies as c', 'c.id', 'd.company_id')
    .select(['d.company_id', 'd.subscription_id', 's.url', 's.enabled', 'c.environment'])
    .select(['e.id', 'e.type', 'e.created_at', 'e.caused_by', 'e.data'])
    .where('d.id', '=', deliveryId)
    .executeTakeFirst();
  if (!job) return 'missing';
  if (!job.enabled) return finish(db, runtime, deliveryId, job, null, 'the subscription is disabled');

  const secrets = await db
    .selectFrom('webhook_secrets')
    .select('ciphertext')
    .where('subscription_id', '=', job.subscription_id)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('created_at', 'desc')
    .execute();
  const plain = await Promise.all(secrets.map((s) => runtime.secrets.decrypt(s.ciphertext, job.subscription_id)));
  const body = eventBody(job);
  const headers = signedHeaders(plain, job.id, now, body, runtime.userAgent);
  // A URL the workspace's rules refuse now (its name resolves to a private address) fails the delivery for good.
  const result = await post(runtime, job.environment, job.url, { headers, body, timeoutMs: runtime.timeoutMs });
  return finish(db, runtime, deliveryId, job, result, result.refused ? result.error : null);
}

type Job = { company_id: string; subscription_id: string };

/** {@link settleAttempt} in a transaction of its own, at the runtime's clock. */
async function finish(
  db: Db,
  runtime: WebhookRuntime,
  deliveryId: string,
  job: Job,
  result: AttemptResult | null,
  stopReason: string | null,
): Promise<DeliverOutcome> {
  const now = runtime.now();
  return db.transaction().execute((trx) => settleAttempt(trx, now, deliveryId, job, result, stopReason));
}

/**
 * Logs the attempt (when one was made) and moves the delivery on, in the caller's transaction. Decision: every
 * failed attempt is retried on the schedule (3xx, 4xx, 429, 5xx, timeouts, network errors), as Stripe and
 * Svix do, except 410 Gone, which disables the subscription; a `stopReason` (disabled subscription, refused
 * URL) fails it for good. A delivery that fails its last attempt disables the subscription too when nothing was
 * delivered to it since that delivery was made (every attempt failed for 3 days: lib/webhooks/disable.ts).
 */
export async function settleAttempt(
  trx: Trx,
  now: Date,
  deliveryId: string,
  job: Job,
  result: AttemptResult | null,
  stopReason: string | null,
): Promise<DeliverOutcome> {
  const row = await trx
    .selectFrom('webhook_deliveries')
    .select(['attempt_count', 'status', 'created_at'])
    .where('id', '=', deliveryId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) return 'missing';
  const attempt = row.attempt_count + (result ? 1 : 0);
  if (result) {
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: deliveryId,
        attempt,
        at: now,
        status_code: result.statusCode,
        duration_ms: result.durationMs,
        error: result.error,
      })
      .execute();
  }
  // Completed meanwhile by another caller (its lease had expired): keep its outcome.
  if (row.status !== 'pending') return row.status;
  const code = result?.statusCode ?? null;
  const succeeded = code !== null && code >= 200 && code < 300;
  const gone = code === 410;
  const retry = !succeeded && !gone && stopReason === null && attempt < maxAttempts;
  const status = succeeded ? 'succeeded' : retry ? 'pending' : 'failed';
  await trx
    .updateTable('webhook_deliveries')
    .set({
      status,
      attempt_count: attempt,
      locked_until: null,
      next_attempt_at: retry ? new Date(now.getTime() + delayBefore(deliveryId, attempt + 1)) : null,
      completed_at: retry ? null : now,
      last_status_code: code,
      last_error: stopReason ?? result?.error ?? (succeeded ? null : `HTTP ${code}`),
    })
    .where('id', '=', deliveryId)
    .execute();
  if (gone) await disableSubscription(trx, job, 'gone', { delivery_id: deliveryId });
  // The last attempt failed: disabled when nothing was delivered to the subscription since this delivery was made.
  else if (status === 'failed' && stopReason === null && !succeeded) {
    await disableSubscription(trx, job, 'failing', { delivery_id: deliveryId, failingSince: row.created_at });
  }
  return retry ? 'retry' : succeeded ? 'succeeded' : 'failed';
}

async function outcomeOf(db: Db, deliveryId: string): Promise<DeliverOutcome> {
  const row = await db.selectFrom('webhook_deliveries').select('status').where('id', '=', deliveryId).executeTakeFirst();
  if (!row) return 'missing';
  return row.status === 'pending' ? 'busy' : row.status;
}
