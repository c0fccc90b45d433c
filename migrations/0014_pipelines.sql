-- Sales pipelines: pipelines and their stages, deals, viewings (issue 13; docs/api-reference.md, "Pipelines, deals
-- and viewings").
--
-- A company orders its pipelines, and each pipeline orders its stages (kind open, won or lost). A deal sits on one
-- stage of its pipeline (a composite key makes the stage belong to that pipeline); a stage a deal sits on cannot be
-- deleted (the foreign key restricts). A deal's status is its stage's kind, so it never disagrees with it. A viewing
-- is on a deal; its feedback stays in this table and never goes into an event.
--
-- External ids live in `external_ids` (record types `deal` and `viewing`).

create table pipelines (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  key text not null check (key ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
  -- Localised like every name: {"en": …, "ar": …}.
  name jsonb not null,
  -- What its deals end in: a sale, or a lease (a won leasing deal without its lease warns `no_lease`).
  purpose text not null check (purpose in ('sales', 'leasing')),
  position integer not null check (position >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  unique (company_id, key)
);
create index pipelines_order on pipelines (company_id, position);

create table pipeline_stages (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  pipeline_id uuid not null references pipelines (id) on delete cascade,
  key text not null check (key ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
  name jsonb not null,
  kind text not null check (kind in ('open', 'won', 'lost')),
  probability integer not null check (probability between 0 and 100),
  position integer not null check (position >= 0),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  unique (pipeline_id, key),
  -- The target of deals' (stage_id, pipeline_id): a deal's stage is one of its pipeline's.
  unique (id, pipeline_id)
);
create index pipeline_stages_order on pipeline_stages (pipeline_id, position);

create table deals (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  reference text not null unique,
  pipeline_id uuid not null references pipelines (id),
  stage_id uuid not null,
  -- The person the deal is with (buyer or renter), the enquiry it came from, the home, and the home's owner.
  contact_id uuid not null references contacts (id),
  lead_id uuid references leads (id) on delete set null,
  listing_id uuid references listings (id) on delete set null,
  owner_id uuid references contacts (id) on delete set null,
  handler_id text references members (id) on delete set null,
  department_key text,
  title text check (length(title) between 1 and 300),
  value numeric(14, 2) check (value >= 0),
  commission numeric(14, 2) check (commission >= 0),
  -- The deal's own probability; null: its stage's.
  probability integer check (probability between 0 and 100),
  expected_close date check (expected_close between '1900-01-01' and '2999-12-31'),
  -- Set when a move closes the deal (a won or lost stage), cleared when one reopens it.
  closed_at timestamptz,
  close_reason text check (length(close_reason) between 1 and 2000),
  version bigint not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  foreign key (stage_id, pipeline_id) references pipeline_stages (id, pipeline_id) on delete restrict,
  foreign key (company_id, department_key) references departments (company_id, key) on delete set null (department_key),
  check (owner_id is distinct from contact_id)
);
create index deals_sync on deals (company_id, updated_at, id);
create index deals_stage on deals (stage_id);
create index deals_contact on deals (contact_id);

create table viewings (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  reference text not null unique,
  deal_id uuid not null references deals (id) on delete cascade,
  listing_id uuid not null references listings (id),
  starts_at timestamptz not null check (starts_at >= '1900-01-01T00:00:00Z' and starts_at < '3000-01-01T00:00:00Z'),
  -- The member who shows the home.
  shown_by text references members (id) on delete set null,
  status text not null default 'planned' check (status in ('planned', 'done', 'cancelled', 'missed')),
  -- How it went: staff's words. Shown to server keys with read:pipelines, never put in an event or a delivery.
  feedback text check (length(feedback) between 1 and 5000),
  done_at timestamptz,
  cancelled_at timestamptz,
  missed_at timestamptz,
  version bigint not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  check ((status = 'cancelled') = (cancelled_at is not null)),
  check ((status = 'done') = (done_at is not null))
);
create index viewings_sync on viewings (company_id, updated_at, id);
create index viewings_deal on viewings (deal_id, starts_at);
-- Scheduled work: planned viewings whose time has passed.
create index viewings_planned on viewings (starts_at) where status = 'planned';

create trigger pipelines_touch before update on pipelines for each row execute function touch_updated_at();
create trigger pipeline_stages_touch before update on pipeline_stages for each row execute function touch_updated_at();
create trigger deals_touch before update on deals for each row execute function touch_updated_at();
create trigger deals_version before update on deals for each row execute function bump_version();
create trigger viewings_touch before update on viewings for each row execute function touch_updated_at();
create trigger viewings_version before update on viewings for each row execute function bump_version();
