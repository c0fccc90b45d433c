-- Safe retries and lost updates (issue 9).
--
-- Idempotency-Key: the first answer to a POST or PATCH is kept per company, caller (the key, or "anonymous"), route
-- (method and path) and key for 24 hours, and replayed for the same key and body. A row without `status_code` is a
-- request still in flight. The answer's body is encrypted like lead details (it may hold personal data).
create table idempotency_keys (
  company_id uuid not null references companies (id) on delete cascade,
  caller text not null,
  route text not null,
  key text not null,
  request_hash text not null,
  status_code integer,
  content_type text,
  etag text,
  body text,
  -- When the request that holds the key started: an in-flight row older than the lock timeout is abandoned.
  locked_at timestamptz not null default clock_timestamp(),
  created_at timestamptz not null default clock_timestamp(),
  primary key (company_id, caller, route, key)
);
create index idempotency_keys_expiry on idempotency_keys (created_at);

-- If-Match: every record a client can change has a version, bumped by any update whatever the write path, and
-- given out as its ETag. A write sent with a stale version is refused (412) under the row's lock.
create function bump_version() returns trigger language plpgsql as $$
begin
  NEW.version := OLD.version + 1;
  return NEW;
end $$;

alter table contacts add column version bigint not null default 1;
alter table leads add column version bigint not null default 1;
alter table tasks add column version bigint not null default 1;
create trigger contacts_version before update on contacts for each row execute function bump_version();
create trigger leads_version before update on leads for each row execute function bump_version();
create trigger tasks_version before update on tasks for each row execute function bump_version();
