import { sql } from 'kysely';
import type { DeliveryStatus } from '../../schema/platform/webhooks-db';
import { auditCte } from '../audit';
import type { Db } from '../db/index';
import { iso } from '../dates';
import { ApiError, notFound } from '../errors';
import { pageOf, paginate } from '../pagination';
import { presentDeliveries } from './present';
import { type Actor, findSubscription } from './subscriptions';

const deliverySort = {
  name: 'deliveries',
  columns: [
    { ref: 'created_at', direction: 'desc', type: 'timestamptz' },
    { ref: 'id', direction: 'desc', type: 'uuid' },
  ],
} as const;

export type DeliveriesQuery = {
  page_size: number;
  cursor?: string;
  status?: DeliveryStatus;
  /** Deliveries made at or after this instant (ISO 8601). */
  created_since?: string;
  /** Deliveries made before this instant (ISO 8601). */
  created_before?: string;
};

/**
 * A page of a subscription's deliveries, newest first (keyset on created_at, id), each with its attempts; narrowed
 * to one status and to when they were made (`created_since` inclusive, `created_before` exclusive) when asked.
 */
export async function deliveriesOfSubscription(db: Db, companyId: string, subscriptionId: string, query: DeliveriesQuery) {
  await findSubscription(db, companyId, subscriptionId);
  const { status, created_since: since, created_before: before } = query;
  const rows = await paginate(
    db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('subscription_id', '=', subscriptionId)
      .$if(status !== undefined, (qb) => qb.where('status', '=', status!))
      .$if(since !== undefined, (qb) => qb.where('created_at', '>=', new Date(since!)))
      .$if(before !== undefined, (qb) => qb.where('created_at', '<', new Date(before!))),
    deliverySort,
    query,
  ).execute();
  const page = pageOf(rows, deliverySort, query.page_size);
  const results = await presentDeliveries(
    db,
    page.rows.map((r) => r.id),
  );
  return { results, next_cursor: page.next_cursor };
}

/** At most this many failed deliveries are sent again per recovery; the answer's `more` says to call again. */
export const recoveryBatch = 500;
/**
 * Sends again every failed delivery of an enabled subscription made at or after `since` (at most
 * {@link recoveryBatch}, oldest first): each becomes a new pending delivery of the same event (same webhook-id), and
 * the failed one is marked `recovered_at`, so a second recovery sends nothing already sent again. Refused (`409`) while
 * the subscription is disabled (enable it first). `since` may be any instant: the batch bounds the work, and a call
 * again with the same `since` takes the next ones (those recovered are skipped). One statement, with one audit row
 * naming `since` and the count.
 */
export async function recoverDeliveries(
  db: Db,
  companyId: string,
  subscriptionId: string,
  since: Date,
  now: Date,
  actor: Actor,
): Promise<{ recovered: number; more: boolean }> {
  const { rows } = await sql<{ enabled: boolean; recovered: number; more: boolean }>`
    with subscription as (
      select id, company_id, enabled from webhook_subscriptions where company_id = ${companyId} and id = ${subscriptionId}
    ),
    chosen as (
      select d.id, d.created_at from webhook_deliveries d join subscription s on s.id = d.subscription_id
      where s.enabled and d.status = 'failed' and d.recovered_at is null and d.created_at >= ${since}
      order by d.created_at, d.id
      limit ${recoveryBatch + 1}
    ),
    marked as (
      update webhook_deliveries set recovered_at = ${now}
      where id in (select id from chosen order by created_at, id limit ${recoveryBatch}) and recovered_at is null
      returning company_id, event_id, subscription_id
    ),
    requeued as (
      insert into webhook_deliveries (company_id, event_id, subscription_id, next_attempt_at)
      select company_id, event_id, subscription_id, ${now} from marked
      returning id
    ),
    counted as (
      select s.company_id, s.id, (select count(*) from requeued)::int as recovered from subscription s where s.enabled
    ),
    ${auditCte('audited', 'counted', {
      actor,
      action: 'webhook_subscription.recovered',
      subject: 'id',
      details: { since: iso(since) },
      columns: ['recovered'],
    })}
    select s.enabled, (select recovered from counted) as recovered, (select count(*) from chosen) > ${recoveryBatch} as more
    from subscription s`.execute(db);
  const row = rows[0];
  if (!row) throw notFound(`The webhook subscription ${subscriptionId}`);
  if (!row.enabled) throw new ApiError('conflict', 'The subscription is disabled; enable it first, then recover.');
  return { recovered: row.recovered, more: row.more };
}
