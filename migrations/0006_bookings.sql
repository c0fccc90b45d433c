-- Visitor forms and holiday-home bookings: the spam-check secret, a home's booking terms and seasons,
-- owner and maintenance blocks, and booking requests whose dates can never overlap.

-- btree_gist lets an exclusion constraint compare the listing (=) beside the dates (&&).
create extension if not exists btree_gist;

-- The company's Cloudflare Turnstile secret, encrypted (compact JWE, lib/crypto-jwe.ts): it must be sent
-- to siteverify, so it cannot be a hash.
alter table companies add column spam_check_secret_jwe text;

-- What a holiday home takes and what it costs. Every holiday-home listing has one row (the catalogue
-- import writes it, with defaults when the import gives none). The base nightly price is the listing's
-- price (price_period = 'night').
create table holiday_home_terms (
  listing_id uuid primary key references listings (id) on delete cascade,
  company_id uuid not null references companies (id) on delete cascade,
  min_nights integer not null default 1 check (min_nights >= 1),
  max_nights integer not null default 90 check (max_nights >= min_nights),
  -- 0 = Monday … 6 = Sunday.
  closed_arrival_days smallint[] not null default '{}' check (closed_arrival_days <@ '{0,1,2,3,4,5,6}'),
  advance_days integer not null default 365 check (advance_days between 1 and 1000),
  notice_hours integer not null default 24 check (notice_hours between 0 and 8760),
  available_from date,
  available_to date,
  check_in_time time not null default '15:00',
  check_out_time time not null default '11:00',
  -- Nights (by the weekday of the night's date) priced at weekend_price when it is set.
  weekend_nights smallint[] not null default '{4,5}' check (weekend_nights <@ '{0,1,2,3,4,5,6}'),
  weekend_price numeric(14, 2) check (weekend_price >= 0),
  cleaning_fee numeric(14, 2) not null default 0 check (cleaning_fee >= 0),
  -- A tourism fee per bedroom per night (a studio counts as one bedroom), for at most tourism_fee_max_nights.
  tourism_fee_per_bedroom_night numeric(14, 2) not null default 0 check (tourism_fee_per_bedroom_night >= 0),
  tourism_fee_max_nights integer not null default 30 check (tourism_fee_max_nights >= 0),
  deposit numeric(14, 2) not null default 0 check (deposit >= 0),
  -- After staff confirm, the guest pays within this many hours.
  payment_window_hours integer not null default 48 check (payment_window_hours between 1 and 2160),
  -- Bumped by the triggers below on every change to what availability and quotes answer: cached answers
  -- are keyed by it, so none outlives a booking change.
  calendar_version bigint not null default 0,
  check (available_to is null or available_from is null or available_to > available_from)
);
create index holiday_home_terms_company on holiday_home_terms (company_id);

-- Every holiday home has its terms row, whichever path wrote the listing (import, admin, a later group).
create function ensure_holiday_home_terms() returns trigger language plpgsql as $$
begin
  if new.listing_type = 'holiday_home' then
    insert into holiday_home_terms (listing_id, company_id) values (new.id, new.company_id)
    on conflict (listing_id) do nothing;
  end if;
  return null;
end;
$$;
create trigger listings_holiday_home_terms after insert or update of listing_type on listings
  for each row execute function ensure_holiday_home_terms();
insert into holiday_home_terms (listing_id, company_id)
  select id, company_id from listings where listing_type = 'holiday_home';

-- Seasonal prices: nights in [starts_on, ends_on) cost nightly_price (weekend_price on weekend nights).
create table holiday_home_seasons (
  id uuid primary key default gen_random_uuid(),
  listing_id uuid not null references holiday_home_terms (listing_id) on delete cascade,
  name text not null default '',
  starts_on date not null,
  ends_on date not null,
  nightly_price numeric(14, 2) not null check (nightly_price >= 0),
  weekend_price numeric(14, 2) check (weekend_price >= 0),
  check (ends_on > starts_on),
  exclude using gist (listing_id with =, daterange(starts_on, ends_on) with &&)
);

-- Dates the owner or maintenance keep for themselves: [starts_on, ends_on).
create table calendar_blocks (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  listing_id uuid not null references listings (id) on delete cascade,
  reason text not null check (reason in ('owner', 'maintenance')),
  starts_on date not null,
  ends_on date not null,
  note text not null default '',
  created_at timestamptz not null default now(),
  check (ends_on > starts_on)
);
create index calendar_blocks_listing on calendar_blocks (listing_id, starts_on);

-- A booking request. Nothing is charged: the dates are held while staff confirm, then the guest pays
-- within the home's payment window. Two bookings of a home that is not cancelled never share a night.
create table bookings (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  reference text not null unique,
  listing_id uuid not null references listings (id) on delete restrict,
  contact_id uuid references contacts (id) on delete set null,
  status text not null check (status in ('held', 'confirmed', 'paid', 'cancelled')),
  check_in date not null,
  check_out date not null,
  guests integer not null check (guests >= 1),
  language text,
  message text,
  -- The quote the guest saw when asking (nights, fees, deposit, total), in the company's currency.
  quote jsonb not null,
  currency text not null,
  total numeric(14, 2) not null,
  deposit numeric(14, 2) not null,
  -- The stay page's address carries a token; only its SHA-256 is kept.
  stay_token_hash bytea not null unique,
  consent_version text not null,
  consent_at timestamptz not null,
  consent_address text,
  hold_expires_at timestamptz not null,
  confirmed_at timestamptz,
  payment_due_at timestamptz,
  paid_at timestamptz,
  cancelled_at timestamptz,
  cancel_reason text check (cancel_reason in ('staff', 'hold_expired', 'payment_overdue')),
  caused_by text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  check (check_out > check_in),
  check ((status = 'cancelled') = (cancelled_at is not null)),
  constraint bookings_no_overlap exclude using gist (listing_id with =, daterange(check_in, check_out) with &&)
    where (status <> 'cancelled')
);
create index bookings_company on bookings (company_id, created_at desc, id desc);
create index bookings_listing on bookings (listing_id, check_in) where status <> 'cancelled';
create index bookings_held_due on bookings (hold_expires_at) where status = 'held';
create index bookings_payment_due on bookings (payment_due_at) where status = 'confirmed';
create index bookings_contact on bookings (contact_id);

create function bump_calendar_version() returns trigger language plpgsql as $$
begin
  update holiday_home_terms set calendar_version = calendar_version + 1
  where listing_id = (case when tg_op = 'DELETE' then old.listing_id else new.listing_id end);
  if tg_op = 'UPDATE' and new.listing_id <> old.listing_id then
    update holiday_home_terms set calendar_version = calendar_version + 1 where listing_id = old.listing_id;
  end if;
  return null;
end;
$$;
create trigger bookings_calendar after insert or update or delete on bookings
  for each row execute function bump_calendar_version();
create trigger calendar_blocks_calendar after insert or update or delete on calendar_blocks
  for each row execute function bump_calendar_version();
create trigger seasons_calendar after insert or update or delete on holiday_home_seasons
  for each row execute function bump_calendar_version();

create function bump_own_calendar_version() returns trigger language plpgsql as $$
begin
  new.calendar_version := old.calendar_version + 1;
  return new;
end;
$$;
create trigger terms_calendar before update on holiday_home_terms
  for each row when (old is distinct from new) execute function bump_own_calendar_version();
