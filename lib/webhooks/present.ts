import type { DeliveryRow, SubscriptionRow } from '../../schema/platform/db';
import type { Executor } from '../db/index';
import { iso } from '../dates';

/** A subscription as both APIs show it (the admin's subscription, the integration's endpoint): never its secret. */
export function presentSubscription(row: SubscriptionRow) {
  return {
    id: row.id,
    url: row.url,
    event_types: row.event_types,
    description: row.description,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    created_by_key_id: row.created_by_key_id,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

type AttemptRow = { attempt: number; at: Date | string; status_code: number | null; duration_ms: number; error: string | null };

/** A delivery as shown, with its attempts (timestamps as the driver or a statement's JSON gives them). */
function presentDelivery(d: DeliveryRow & { event_type: string }, attempts: AttemptRow[]) {
  return {
    id: d.id,
    event_id: d.event_id,
    event_type: d.event_type,
    subscription_id: d.subscription_id,
    status: d.status,
    attempt_count: d.attempt_count,
    next_attempt_at: iso(d.next_attempt_at),
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    created_at: iso(d.created_at),
    completed_at: iso(d.completed_at),
    recovered_at: iso(d.recovered_at),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      at: iso(a.at),
      status_code: a.status_code,
      duration_ms: a.duration_ms,
      error: a.error,
    })),
  };
}

/** A delivery just written (a ping, a replay): no attempt yet. */
export const presentNewDelivery = (d: DeliveryRow & { event_type: string }) => presentDelivery(d, []);

/** Deliveries with their attempts, in two queries whatever their number. */
export async function presentDeliveries(db: Executor, ids: string[]) {
  if (ids.length === 0) return [];
  const [rows, attempts] = await Promise.all([
    db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .selectAll('d')
      .select('e.type as event_type')
      .where('d.id', 'in', ids)
      .execute(),
    db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', ids).orderBy('attempt').execute(),
  ]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => {
    const d = byId.get(id);
    return d
      ? [
          presentDelivery(
            d,
            attempts.filter((a) => a.delivery_id === id),
          ),
        ]
      : [];
  });
}
