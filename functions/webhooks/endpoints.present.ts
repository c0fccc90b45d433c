import { type presentDeliveries, presentSubscription } from '../../lib/webhooks/present';
import type { SubscriptionRow } from '../../schema/platform/db';

/**
 * The public API names a record's id by its kind, as its path does (`task_id`, `payment_id`): an endpoint is the
 * admin's subscription with `endpoint_id` for `id`, a delivery has `delivery_id` and `endpoint_id`.
 */
export function presentEndpoint(row: SubscriptionRow) {
  const { id, ...rest } = presentSubscription(row);
  return { endpoint_id: id, ...rest };
}

type Delivery = Awaited<ReturnType<typeof presentDeliveries>>[number];

export function presentEndpointDelivery({ id, subscription_id, ...rest }: Delivery) {
  return { delivery_id: id, endpoint_id: subscription_id, ...rest };
}
