-- Calendars imported per holiday home (issue 24): a channel's iCalendar feed (Airbnb, Booking.com, a channel
-- manager), synced by scheduled work; each of its events is a calendar block with reason 'imported', keyed by
-- (import, UID), so a feed change moves or removes exactly its own blocks and nothing is imported twice.

create table calendar_imports (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  listing_id uuid not null references holiday_home_terms (listing_id) on delete cascade,
  channel text not null check (length(channel) between 1 and 60),
  -- The feed URL carries the channel's secret token: sealed (compact JWE, lib/crypto-jwe.ts sealSecret) with the
  -- import's id in its authenticated header.
  url_jwe text not null,
  interval_minutes integer not null default 10 check (interval_minutes between 5 and 1440),
  -- The last good answer's validators, for a conditional GET.
  etag text,
  last_modified text,
  last_synced_at timestamptz,
  last_changed_at timestamptz,
  last_error text,
  last_error_at timestamptz,
  -- Failed syncs in a row; calendar_import.failed is announced once when it reaches 3, until a sync succeeds.
  failures integer not null default 0,
  failure_announced boolean not null default false,
  event_count integer not null default 0,
  -- When the scheduler next syncs it (claimed by moving it forward, so concurrent runs do not take the same one).
  next_sync_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index calendar_imports_listing on calendar_imports (listing_id);
create index calendar_imports_company on calendar_imports (company_id);
create index calendar_imports_due on calendar_imports (next_sync_at);

alter table calendar_blocks drop constraint calendar_blocks_reason_check;
alter table calendar_blocks add constraint calendar_blocks_reason_check
  check (reason in ('owner', 'maintenance', 'imported', 'turnover'));
alter table calendar_blocks add column import_id uuid references calendar_imports (id) on delete cascade;
alter table calendar_blocks add column uid text;
alter table calendar_blocks add constraint calendar_blocks_imported
  check ((reason = 'imported') = (import_id is not null) and (import_id is null) = (uid is null));
-- One block per event of a feed: concurrent syncs of one import can never write an event twice. Not partial: other
-- blocks have no import (nulls are distinct), and the index also serves the foreign key's cascade.
create unique index calendar_blocks_import_uid on calendar_blocks (import_id, uid);
