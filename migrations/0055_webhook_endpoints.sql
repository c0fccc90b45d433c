-- Webhook endpoints through the API (issue 38): the key that made a subscription, and the recovery of failed deliveries.
--
-- A subscription made with a server key (POST /api/v1/webhook-endpoints) records that key; null when the operator
-- made it (admin API, command line), or once the key is deleted.
alter table webhook_subscriptions add column created_by_key_id uuid references api_keys (id) on delete set null;
create index webhook_subscriptions_created_by_key_id_fk on webhook_subscriptions (created_by_key_id);

-- When a failed delivery was sent again by a recovery (POST …/recover): a new delivery of the same event to the same
-- subscription is made then, and a later recovery skips this one (a second call re-sends nothing twice).
alter table webhook_deliveries add column recovered_at timestamptz;

-- What a recovery reads: a subscription's failed deliveries not yet recovered, oldest first.
create index webhook_deliveries_recoverable on webhook_deliveries (subscription_id, created_at, id)
  where status = 'failed' and recovered_at is null;
