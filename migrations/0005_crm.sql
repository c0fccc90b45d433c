-- CRM: departments, members, contacts (people), leads (enquiries), activities (timeline) and tasks, plus
-- the clients' external ids. Sync lists read by (updated_at, id); every table of a sync list keeps
-- updated_at current with a trigger, so no write path can forget it.

-- An update that sets updated_at itself (an import keeping the source's time) is left alone.
create function touch_updated_at() returns trigger language plpgsql as $$
begin
  if NEW.updated_at is not distinct from OLD.updated_at then
    NEW.updated_at := clock_timestamp();
  end if;
  return NEW;
end;
$$;

create table departments (
  company_id uuid not null references companies (id) on delete cascade,
  key text not null check (key ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
  name jsonb not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  primary key (company_id, key)
);

create table members (
  id text primary key,
  company_id uuid not null references companies (id) on delete cascade,
  name text not null,
  email text,
  department_key text,
  active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  foreign key (company_id, department_key) references departments (company_id, key)
);
create index members_company on members (company_id, updated_at, id);

create table contacts (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  reference text not null unique,
  name text,
  email text,
  -- Lower-cased email, for matching; phone in E.164, for matching.
  email_key text,
  phone text,
  phone_key text,
  language text,
  roles text[] not null default '{}',
  erased boolean not null default false,
  erased_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp()
);
create index contacts_sync on contacts (company_id, updated_at, id);
-- One person per email and per phone within a company: matching is exact, concurrent adds give one row.
create unique index contacts_email on contacts (company_id, email_key) where email_key is not null;
create unique index contacts_phone on contacts (company_id, phone_key) where phone_key is not null;

create table leads (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  reference text not null unique,
  contact_id uuid references contacts (id) on delete set null,
  status text not null default 'new'
    check (status in ('new', 'contacted', 'qualified', 'viewing', 'negotiating', 'won', 'lost', 'spam')),
  assignee_id text references members (id) on delete set null,
  department_key text,
  next_action text,
  next_action_at timestamptz,
  first_answered_at timestamptz,
  escalated_at timestamptz,
  service text,
  form text,
  page text,
  listing_id uuid references listings (id) on delete set null,
  message text,
  language text,
  -- The visitor's details, encrypted (compact JWE, lib/crypto-jwe.ts); never stored in the clear.
  details_jwe text,
  consent_version text,
  consent_at timestamptz,
  consent_address text,
  caused_by text not null,
  erased boolean not null default false,
  erased_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  foreign key (company_id, department_key) references departments (company_id, key)
);
create index leads_sync on leads (company_id, updated_at, id);
create index leads_contact on leads (contact_id);
create index leads_unanswered on leads (company_id, created_at) where first_answered_at is null and escalated_at is null;

-- The ids clients keep for contacts and leads: unique per company, record kind and source.
create table external_ids (
  company_id uuid not null references companies (id) on delete cascade,
  record_type text not null check (record_type in ('contact', 'lead')),
  source text not null check (source ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  external_id text not null check (length(external_id) between 1 and 200),
  record_id uuid not null,
  created_at timestamptz not null default now(),
  primary key (company_id, record_type, source, external_id)
);
create index external_ids_record on external_ids (record_id);

create table activities (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  reference text not null unique,
  type text not null check (type in ('note', 'call', 'meeting', 'message', 'email')),
  source text not null check (source ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  external_id text not null check (length(external_id) between 1 and 200),
  lead_id uuid references leads (id) on delete set null,
  contact_id uuid references contacts (id) on delete set null,
  member_id text references members (id) on delete set null,
  body text,
  occurred_at timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  unique (company_id, source, external_id)
);
create index activities_sync on activities (company_id, updated_at, id);

create table tasks (
  id text primary key,
  company_id uuid not null references companies (id) on delete cascade,
  title text not null,
  due_on date,
  assignee_id text references members (id) on delete set null,
  done boolean not null default false,
  done_at timestamptz,
  source text not null check (source ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  external_id text not null check (length(external_id) between 1 and 200),
  lead_id uuid references leads (id) on delete set null,
  contact_id uuid references contacts (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  unique (company_id, source, external_id)
);
create index tasks_sync on tasks (company_id, updated_at, id);

create trigger departments_touch before update on departments for each row execute function touch_updated_at();
create trigger members_touch before update on members for each row execute function touch_updated_at();
create trigger contacts_touch before update on contacts for each row execute function touch_updated_at();
create trigger leads_touch before update on leads for each row execute function touch_updated_at();
create trigger activities_touch before update on activities for each row execute function touch_updated_at();
create trigger tasks_touch before update on tasks for each row execute function touch_updated_at();
