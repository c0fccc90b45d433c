-- Platform: companies, their hosts, keys, audit log and the events outbox.

create table companies (
  id uuid primary key default gen_random_uuid(),
  name text not null,
  environment text not null check (environment in ('production', 'development')),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  time_zone text not null,
  settings jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- A company answers on one or more hosts (lower-case, without port).
create table company_hosts (
  host text primary key check (host = lower(host) and host !~ ':'),
  company_id uuid not null references companies (id) on delete cascade
);
create index company_hosts_company on company_hosts (company_id);

create table api_keys (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  kind text not null check (kind in ('server', 'publishable')),
  -- Public part of the key ("sk_" or "pk_" + 10 characters): stable across rotations, shown in the
  -- admin, in the audit log and in events' caused_by.
  prefix text not null unique,
  name text not null default '',
  scopes text[] not null default '{}',
  origins text[] not null default '{}',
  lead_types text[] not null default '{}',
  created_at timestamptz not null default now(),
  revoked_at timestamptz,
  last_used_at timestamptz
);
create index api_keys_company on api_keys (company_id, created_at);

-- Secrets are stored only as SHA-256 hashes. A rotation adds a secret and gives the previous one an
-- expiry 24 hours ahead; a key has at most one secret without expiry.
create table api_key_secrets (
  id uuid primary key default gen_random_uuid(),
  key_id uuid not null references api_keys (id) on delete cascade,
  secret_hash bytea not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz
);
create index api_key_secrets_key on api_key_secrets (key_id);

create table audit_log (
  id bigint generated always as identity primary key,
  company_id uuid references companies (id) on delete cascade,
  at timestamptz not null default now(),
  actor text not null,
  action text not null,
  subject text,
  details jsonb not null default '{}'::jsonb
);
create index audit_log_company on audit_log (company_id, at);

create table events (
  id text primary key,
  company_id uuid not null references companies (id) on delete cascade,
  type text not null,
  caused_by text not null,
  data jsonb not null,
  created_at timestamptz not null default now(),
  published_at timestamptz
);
create index events_company on events (company_id, created_at);
create index events_unpublished on events (created_at) where published_at is null;

-- Platform operators' admin tokens (hashed).
create table admin_tokens (
  id uuid primary key default gen_random_uuid(),
  token_hash bytea not null unique,
  created_at timestamptz not null default now()
);
