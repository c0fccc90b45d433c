-- Daily rates and restrictions of holiday homes, and the pricing tools' push (issue 37; docs/api-reference.md,
-- "Daily rates"). One row per home and night that has a rule of its own: its price (null: the base, weekend or
-- seasonal price), its minimum and maximum stay (for stays arriving that day; null: the terms'), closed to arrival,
-- closed to departure, closed (no stay may use the night). A night without a row follows the terms and seasons.
-- `source` says who set it (`admin`, `api:<key prefix>`, `inbound:<tool>`); `source_id` is the pricing tool's own id of
-- the push that set it (its `webhook-id`).
create table holiday_home_rates (
  listing_id uuid not null references holiday_home_terms (listing_id) on delete cascade,
  night date not null,
  price numeric(14, 2) check (price >= 0),
  min_nights integer check (min_nights between 1 and 365),
  max_nights integer check (max_nights between 1 and 365),
  closed_to_arrival boolean not null default false,
  closed_to_departure boolean not null default false,
  closed boolean not null default false,
  source text not null,
  source_id text,
  primary key (listing_id, night),
  check (min_nights is null or max_nights is null or min_nights <= max_nights)
);

-- A change of a home's rates moves its rules_version (and through the terms row's own trigger its calendar_version):
-- quotes, holds, cached availability and feeds keyed by those versions see it. Once per statement and home, not per
-- night: a push of 730 nights updates the terms row once.
create function bump_rates_rules_version() returns trigger language plpgsql as $$
begin
  update holiday_home_terms set rules_version = rules_version + 1
  where listing_id in (select listing_id from changed_rows);
  return null;
end;
$$;
create trigger rates_rules_insert after insert on holiday_home_rates
  referencing new table as changed_rows for each statement execute function bump_rates_rules_version();
create trigger rates_rules_update after update on holiday_home_rates
  referencing new table as changed_rows for each statement execute function bump_rates_rules_version();
create trigger rates_rules_delete after delete on holiday_home_rates
  referencing old table as changed_rows for each statement execute function bump_rates_rules_version();

-- A company's pricing tool (PriceLabs or a peer): the Standard Webhooks secret both sides sign with, sealed with the
-- details keys as the e-invoicing secret is, never shown again.
create table pricing_tools (
  company_id uuid primary key references companies (id) on delete cascade,
  tool text not null,
  secret_jwe text not null,
  created_at timestamptz not null default now()
);

-- The pushes recorded, by the tool's own id (`webhook-id`): a retry of one is answered without a second write.
create table rate_pushes (
  company_id uuid not null references companies (id) on delete cascade,
  push_id text not null,
  listing_id uuid not null references listings (id) on delete cascade,
  starts_on date not null,
  ends_on date not null,
  received_at timestamptz not null,
  primary key (company_id, push_id)
);
create index rate_pushes_listing on rate_pushes (listing_id);
