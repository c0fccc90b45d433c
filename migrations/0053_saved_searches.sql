-- Saved searches (issue 36; docs/api-reference.md, "Saved searches"): a visitor keeps a listing search with their
-- email (a publishable key's form, lead type `saved_search`). It waits for the visitor's confirmation (a link the CRM
-- sends), then scheduled work records each listing that starts matching it once (`saved_search_matches`, whose key is
-- the once) and announces it with `saved_search.matched`. The visitor stops it with the same link. The search is kept
-- as the query string of GET /listings it was made from (`search`), filters only.
create table saved_searches (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  contact_id uuid not null references contacts (id),
  search text not null,
  language text,
  status text not null default 'pending' check (status in ('pending', 'active', 'stopped')),
  stop_reason text check (stop_reason in ('visitor', 'staff', 'erased')),
  -- The link's token (32 random characters): its hash finds the search, its sealed copy (lib/crypto-jwe.ts sealSecret,
  -- bound to the id) gives the links back to a server key that reads the search to send them.
  token_hash bytea not null unique,
  token_jwe text not null,
  consent_version text not null,
  consent_at timestamptz not null,
  consent_address text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  confirmed_at timestamptz,
  stopped_at timestamptz,
  -- The last time scheduled work compared it with the catalogue; null: never (its first check records what already
  -- matched without announcing it).
  checked_at timestamptz,
  check ((status = 'stopped') = (stopped_at is not null)),
  check ((status = 'stopped') = (stop_reason is not null))
);
create index saved_searches_company_created on saved_searches (company_id, created_at desc, id desc);
create index saved_searches_contact on saved_searches (contact_id);
create index saved_searches_due on saved_searches (checked_at nulls first, id) where status = 'active';

create table saved_search_matches (
  saved_search_id uuid not null references saved_searches (id) on delete cascade,
  listing_id uuid not null references listings (id) on delete cascade,
  company_id uuid not null references companies (id) on delete cascade,
  matched_at timestamptz not null,
  -- false: it matched when the search was first checked (the visitor had seen it), so no event was sent.
  announced boolean not null,
  primary key (saved_search_id, listing_id)
);
create index saved_search_matches_listing on saved_search_matches (listing_id);
create index saved_search_matches_company on saved_search_matches (company_id);
