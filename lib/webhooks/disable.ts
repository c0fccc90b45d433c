import { sql } from 'kysely';
import { auditCte } from '../audit';
import { stamp } from '../clock';
import type { Trx } from '../db/index';
import { recordEvent } from '../events';
import { maxAttempts, retrySchedule } from './schedule';

/**
 * Why the platform disables a subscription (its `disabled_reason`): `gone`, the endpoint answered 410 Gone; `failing`,
 * every attempt to it failed for about 3 days (a delivery used its {@link maxAttempts} attempts and nothing was
 * delivered to the subscription since that delivery was made).
 */
export type DisabledReason = 'gone' | 'failing';

const reasons: Record<DisabledReason, string> = {
  gone: 'the endpoint answered 410 Gone',
  failing: `every attempt failed for 3 days: a delivery used its ${maxAttempts} attempts and nothing was delivered since it was made`,
};

/** The longest a delivery can stay pending (every wait of the schedule with its 10 % jitter), with a day to spare. */
const longestDeliveryMs = retrySchedule.reduce((sum, wait) => sum + wait * 1.1, 0) + 24 * 60 * 60 * 1000;

/**
 * Disables an enabled subscription for `reason`, in the caller's transaction: its audit row (`system`) in the same
 * statement, then the event `webhook_endpoint.disabled` (a second statement, so its fan-out sees the subscription
 * disabled and goes to the company's other subscriptions only). `failing` disables only when nothing was delivered
 * to the subscription since `failingSince` (the failed delivery's making): any success since keeps it enabled.
 * Answers whether it disabled it.
 */
export async function disableSubscription(
  trx: Trx,
  subscription: { company_id: string; subscription_id: string },
  reason: DisabledReason,
  details: { delivery_id: string; failingSince?: Date },
): Promise<boolean> {
  const since = details.failingSince;
  // A delivery that succeeded after `since` was made at most one delivery's lifetime before it.
  const delivered = since
    ? sql`exists (
        select 1 from webhook_deliveries d
        where d.subscription_id = s.id and d.status = 'succeeded' and d.completed_at >= ${since}
          and d.created_at >= ${new Date(since.getTime() - longestDeliveryMs)}
      )`
    : sql`false`;
  const { rows } = await sql<{ id: string }>`
    with changed as (
      update webhook_subscriptions s set enabled = false, disabled_reason = ${reason}, updated_at = ${stamp}
      where s.id = ${subscription.subscription_id} and s.enabled and not ${delivered}
      returning s.id, s.company_id
    ),
    ${auditCte('audited', 'changed', {
      actor: 'system',
      action: 'webhook_subscription.disabled',
      subject: 'id',
      details: { reason: reasons[reason], delivery_id: details.delivery_id },
    })}
    select id from changed`.execute(trx);
  if (rows.length === 0) return false;
  await recordEvent(trx, {
    companyId: subscription.company_id,
    type: 'webhook_endpoint.disabled',
    causedBy: 'system',
    data: { endpoint_id: subscription.subscription_id },
  });
  return true;
}
