-- Webhooks: subscriptions with their signing secrets, one delivery per (event, subscription) with every
-- attempt logged, and the static-site rebuild hook's coalesced jobs.

create table webhook_subscriptions (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  url text not null,
  -- The event types sent to it; '{*}' is every type.
  event_types text[] not null default '{*}' check (cardinality(event_types) > 0),
  description text not null default '',
  enabled boolean not null default true,
  -- Why the platform disabled it ('gone': the endpoint answered 410); null while enabled or when an operator did.
  disabled_reason text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_subscriptions_company on webhook_subscriptions (company_id, created_at);

-- Signing needs the secret itself, so it cannot be stored as a hash: each whsec_ secret is encrypted with
-- AES-256-GCM under the WEBHOOK_SECRET_KEY configuration secret (12-byte IV, then ciphertext and tag; the
-- subscription id is the additional data, so a ciphertext cannot be moved to another subscription).
-- A rotation gives the previous secret an expiry 24 hours ahead; a subscription has one secret without expiry.
create table webhook_secrets (
  id uuid primary key default gen_random_uuid(),
  subscription_id uuid not null references webhook_subscriptions (id) on delete cascade,
  ciphertext bytea not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz
);
create index webhook_secrets_subscription on webhook_secrets (subscription_id);

create table webhook_deliveries (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  event_id text not null references events (id) on delete cascade,
  subscription_id uuid not null references webhook_subscriptions (id) on delete cascade,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  attempt_count integer not null default 0,
  -- When the next attempt is due; set exactly while pending. The retry state survives restarts.
  next_attempt_at timestamptz,
  -- An attempt in progress holds the delivery until then (a crashed attempt is retried once it passes).
  locked_until timestamptz,
  -- When it was handed to QStash (null: not yet, or delivered in process).
  published_at timestamptz,
  last_status_code integer,
  last_error text,
  created_at timestamptz not null default now(),
  completed_at timestamptz,
  check ((status = 'pending') = (next_attempt_at is not null))
);
create index webhook_deliveries_due on webhook_deliveries (next_attempt_at) where status = 'pending';
create index webhook_deliveries_unpublished on webhook_deliveries (created_at)
  where status = 'pending' and published_at is null;
create index webhook_deliveries_event on webhook_deliveries (event_id);
create index webhook_deliveries_subscription on webhook_deliveries (subscription_id, created_at desc, id desc);

create table webhook_attempts (
  id bigint generated always as identity primary key,
  delivery_id uuid not null references webhook_deliveries (id) on delete cascade,
  attempt integer not null,
  at timestamptz not null,
  status_code integer,
  duration_ms integer not null,
  error text,
  unique (delivery_id, attempt)
);

-- One pending static-site rebuild per company: every change to a published listing (publishing, withdrawing,
-- editing, importing) merges into it, and the scheduler sends one POST once the first request is older than
-- the coalescing delay. A change made while the POST is in flight raises request_count, so the job stays
-- for another build.
create table rebuild_jobs (
  company_id uuid primary key references companies (id) on delete cascade,
  first_requested_at timestamptz not null default now(),
  last_requested_at timestamptz not null default now(),
  request_count integer not null default 1,
  attempt_count integer not null default 0,
  next_attempt_at timestamptz,
  locked_until timestamptz,
  last_error text
);

-- Statement-level triggers (one insert per statement, however many rows an import touches), so no write path
-- can forget to ask for a build. Only companies with a rebuild_hook_url get jobs.
create function request_rebuild() returns trigger language plpgsql as $$
begin
  if TG_OP = 'INSERT' then
    insert into rebuild_jobs (company_id)
      select distinct r.company_id from new_rows r join companies c on c.id = r.company_id
      where r.status = 'published' and c.settings ->> 'rebuild_hook_url' is not null
      on conflict (company_id) do update
        set last_requested_at = now(), request_count = rebuild_jobs.request_count + 1;
  elsif TG_OP = 'UPDATE' then
    insert into rebuild_jobs (company_id)
      select distinct r.company_id
      from (select company_id, status from new_rows union all select company_id, status from old_rows) r
      join companies c on c.id = r.company_id
      where r.status = 'published' and c.settings ->> 'rebuild_hook_url' is not null
      on conflict (company_id) do update
        set last_requested_at = now(), request_count = rebuild_jobs.request_count + 1;
  else
    insert into rebuild_jobs (company_id)
      select distinct r.company_id from old_rows r join companies c on c.id = r.company_id
      where r.status = 'published' and c.settings ->> 'rebuild_hook_url' is not null
      on conflict (company_id) do update
        set last_requested_at = now(), request_count = rebuild_jobs.request_count + 1;
  end if;
  return null;
end;
$$;

create trigger listings_rebuild_insert after insert on listings
  referencing new table as new_rows for each statement execute function request_rebuild();
create trigger listings_rebuild_update after update on listings
  referencing old table as old_rows new table as new_rows for each statement execute function request_rebuild();
create trigger listings_rebuild_delete after delete on listings
  referencing old table as old_rows for each statement execute function request_rebuild();
