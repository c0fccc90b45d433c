-- Listings on the portals (issue 25): each listing's advertising permit, its agent and the portals it is sent to;
-- the company's secret feed token; the permit reminders scheduled work has recorded.
--
-- A permit is one number issued by one authority (`dld`: the Dubai Land Department's Trakheesi advertising permit;
-- `dtcm`: Dubai's holiday-home permit, issued by the Department of Economy and Tourism, formerly DTCM; `other`),
-- valid through `permit_expires_on` (a calendar day in the company's zone), with the authority's verification URL
-- (the Trakheesi QR code's link) where it gives one. `permit_expired` is set by scheduled work the day after, when it
-- records `listing.permit_expired` (or by the write that set an already past permit): an update of the listing, so
-- the catalogue's triggers mark its rendered forms stale and bump the catalogue version (ETags follow).

alter table listings
  add column permit_number text,
  add column permit_authority text check (permit_authority in ('dld', 'dtcm', 'other')),
  add column permit_expires_on date,
  add column permit_url text,
  add column permit_expired boolean not null default false,
  add column agent_id uuid references team_profiles (id) on delete set null,
  -- The portals the listing is kept out of (every portal takes it by default).
  add column portals_off text[] not null default '{}',
  add constraint listings_permit_whole check (
    (permit_number is null) = (permit_authority is null) and (permit_number is null) = (permit_expires_on is null)
    and (permit_number is not null or (permit_url is null and not permit_expired)));

create index listings_agent_id on listings (agent_id);
-- Another live listing of the company with the same permit and category (the portal check, the feeds).
create index listings_live_permits on listings (company_id, listing_type, permit_number)
  where status = 'published' and permit_number is not null;
-- The feeds read a company's published listings in id order, a batch at a time.
create index listings_published_by_id on listings (company_id, id) where status = 'published';
-- Scheduled work: live permits by expiry day.
create index listings_permit_expiry on listings (permit_expires_on)
  where status = 'published' and permit_number is not null and not permit_expired;

-- `listing.permit_expiring` is recorded once per listing, permit and expiry day: a renewed permit is reminded again.
-- Kept apart from the listing, so recording a reminder changes nothing the catalogue shows.
create table listing_permit_reminders (
  listing_id uuid not null references listings (id) on delete cascade,
  permit_number text not null,
  expires_on date not null,
  recorded_at timestamptz not null,
  primary key (listing_id, permit_number, expires_on)
);

-- The company's portal feed token: its SHA-256 (checked on every fetch, with the company row kept in memory) and
-- the token itself encrypted (lib/crypto-jwe.ts, under WEBHOOK_SECRET_KEY), so the admin can list the URLs again.
alter table companies
  add column portal_feed_token_hash bytea unique,
  add column portal_feed_token_jwe text;
