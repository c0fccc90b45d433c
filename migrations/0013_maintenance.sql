-- Maintenance (issue 12; docs/api-reference.md, "Maintenance"): contractors, jobs on a home (and its active lease),
-- their calendar blocks, job charges booked to the owner's statement, and inspections.
--
-- External ids live in `external_ids` (record types `contractor`, `job`, `job_charge`, `inspection`).

-- Firms (or sole traders) the company gives work to. A stopped contractor keeps its history and takes no new work.
create table contractors (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  name text not null check (length(name) between 1 and 200),
  -- A sole trader is a person: their contact details are personal data (reads audited).
  kind text not null default 'firm' check (kind in ('firm', 'sole_trader')),
  trades text[] not null default '{}',
  contact_name text check (length(contact_name) between 1 and 200),
  email text check (length(email) between 3 and 320),
  phone text check (length(phone) between 3 and 40),
  notes text check (length(notes) <= 5000),
  status text not null default 'active' check (status in ('active', 'stopped')),
  stopped_at timestamptz,
  version bigint not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  check ((status = 'stopped') = (stopped_at is not null))
);
create index contractors_sync on contractors (company_id, updated_at, id);

-- Per-home maintenance settings: the home's owner (when no lease names one) and the owner's approval limit.
create table maintenance_homes (
  listing_id uuid primary key references listings (id) on delete cascade,
  company_id uuid not null references companies (id) on delete cascade,
  owner_id uuid references contacts (id) on delete set null,
  -- approval_needed above this estimate; null: the company's setting applies.
  approval_limit numeric(14, 2) check (approval_limit >= 0)
);

create table jobs (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  reference text not null unique,
  listing_id uuid not null references listings (id),
  -- The home's active lease when the job was added (none: the home was not let).
  lease_id uuid references leases (id),
  category text not null check (category in (
    'plumbing', 'electrical', 'air_conditioning', 'appliance', 'carpentry', 'painting', 'pest_control', 'cleaning',
    'locks', 'general'
  )),
  priority text not null default 'normal' check (priority in ('low', 'normal', 'high', 'urgent')),
  status text not null default 'open' check (status in ('open', 'scheduled', 'done', 'cancelled')),
  problem text not null check (length(problem) between 1 and 5000),
  work_done text check (length(work_done) <= 5000),
  -- Who does it: a contractor or a member, never both.
  contractor_id uuid references contractors (id),
  member_id text references members (id) on delete set null,
  scheduled_on date check (scheduled_on between '1900-01-01' and '2999-12-31'),
  window_start text check (window_start ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  window_end text check (window_end ~ '^([01][0-9]|2[0-3]):[0-5][0-9]$'),
  -- The schedule asked for the day to be blocked in the booking calendar (a block exists unless a stay covered it).
  block_wanted boolean not null default false,
  estimate numeric(14, 2) check (estimate >= 0),
  payer text not null default 'owner' check (payer in ('owner', 'renter', 'company')),
  approval text not null default 'none' check (approval in ('none', 'requested', 'approved', 'declined', 'waived')),
  approval_note text check (length(approval_note) <= 2000),
  approval_requested_at timestamptz,
  approval_answered_at timestamptz,
  photo_count integer not null default 0 check (photo_count between 0 and 1000),
  done_on date check (done_on between '1900-01-01' and '2999-12-31'),
  cancel_reason text check (length(cancel_reason) <= 2000),
  done_at timestamptz,
  cancelled_at timestamptz,
  version bigint not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  check (contractor_id is null or member_id is null),
  check ((window_start is null) = (window_end is null)),
  check (window_end is null or window_end > window_start),
  check (status <> 'scheduled' or scheduled_on is not null),
  check ((status = 'done') = (done_at is not null)),
  check ((status = 'cancelled') = (cancelled_at is not null))
);
create index jobs_sync on jobs (company_id, updated_at, id);
create index jobs_listing on jobs (listing_id);
create index jobs_lease on jobs (lease_id) where lease_id is not null;
create index jobs_contractor on jobs (contractor_id) where contractor_id is not null;

-- A job's block of the booking calendar: the same table availability, quotes and booking requests read. One per job.
alter table calendar_blocks add column job_id uuid references jobs (id) on delete cascade;
create unique index calendar_blocks_job on calendar_blocks (job_id) where job_id is not null;

-- What a job cost and who pays, booked to the owner's statement on booked_on. Never changes otherwise: a mistake is
-- cancelled (cancelled_on, counted in its own month) and recorded again; a renter's charge may be marked paid.
create table job_charges (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  job_id uuid not null references jobs (id),
  cost numeric(14, 2) not null check (cost > 0),
  payer text not null check (payer in ('owner', 'renter', 'company')),
  description text check (length(description) <= 2000),
  status text not null default 'booked' check (status in ('booked', 'paid', 'cancelled')),
  booked_on date not null check (booked_on between '1900-01-01' and '2999-12-31'),
  -- The home's owner on booked_on (the landlord of its lease then, else the home's owner): kept when the home changes hands.
  booked_owner_id uuid references contacts (id),
  paid_on date,
  cancelled_on date,
  version bigint not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  check ((status = 'cancelled') = (cancelled_on is not null)),
  check (paid_on is null or payer = 'renter'),
  check (status <> 'paid' or paid_on is not null),
  check (cancelled_on is null or cancelled_on >= booked_on),
  check (paid_on is null or paid_on >= booked_on)
);
create index job_charges_sync on job_charges (company_id, updated_at, id);
create index job_charges_job on job_charges (job_id);
-- The accounting export: a month of bookings, a month of cancellations, per owner.
create index job_charges_booked on job_charges (company_id, booked_on);
create index job_charges_cancelled on job_charges (company_id, cancelled_on) where cancelled_on is not null;
create index job_charges_owner on job_charges (booked_owner_id, booked_on) where booked_owner_id is not null;

-- A charge's booked fields never change; it is cancelled or paid once; a cancelled charge is final. Each refusal names
-- its rule as the constraint (check_violation), so the API can answer 409 with it. One exception: erasing a person
-- empties the description of the charges on their leases' jobs (it may name them), and nothing else with it.
create function job_charge_booked() returns trigger language plpgsql as $$
declare
  erased job_charges;
begin
  erased := OLD;
  erased.description := null;
  -- Set by the touch and version triggers, which run after this one.
  erased.updated_at := NEW.updated_at;
  erased.version := NEW.version;
  if OLD.description is not null and NEW is not distinct from erased then
    return NEW;
  end if;
  if OLD.status = 'cancelled' then
    raise exception 'job charge % was cancelled and never changes', OLD.id
      using errcode = 'check_violation', constraint = 'job_charges_cancelled_final';
  end if;
  if (NEW.job_id, NEW.company_id, NEW.cost, NEW.payer, NEW.booked_on, NEW.booked_owner_id, NEW.description)
      is distinct from (OLD.job_id, OLD.company_id, OLD.cost, OLD.payer, OLD.booked_on, OLD.booked_owner_id, OLD.description) then
    raise exception 'job charge % was booked: its job, cost, payer, day and owner never change', OLD.id
      using errcode = 'check_violation', constraint = 'job_charges_booked_fixed';
  end if;
  if OLD.paid_on is not null and NEW.paid_on is distinct from OLD.paid_on then
    raise exception 'job charge % was paid on % and that never changes', OLD.id, OLD.paid_on
      using errcode = 'check_violation', constraint = 'job_charges_paid_fixed';
  end if;
  if NEW.status is distinct from OLD.status and not (
    (OLD.status = 'booked' and NEW.status in ('paid', 'cancelled')) or (OLD.status = 'paid' and NEW.status = 'cancelled')
  ) then
    raise exception 'job charge % cannot go from % to %', OLD.id, OLD.status, NEW.status
      using errcode = 'check_violation', constraint = 'job_charges_status_forward';
  end if;
  return NEW;
end;
$$;

-- Move-in, move-out and routine inspections of a home, with their areas. A lease's move-in and move-out exist once each.
create table inspections (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  reference text not null unique,
  listing_id uuid not null references listings (id),
  lease_id uuid references leases (id),
  kind text not null check (kind in ('move_in', 'move_out', 'routine')),
  planned_on date not null check (planned_on between '1900-01-01' and '2999-12-31'),
  inspector_id text references members (id) on delete set null,
  notes text check (length(notes) <= 5000),
  -- [{name, condition, notes}], in the order given.
  areas jsonb not null default '[]'::jsonb,
  version bigint not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  constraint inspections_lease_for_move check (kind = 'routine' or lease_id is not null)
);
create index inspections_sync on inspections (company_id, updated_at, id);
create unique index inspections_once_per_lease on inspections (lease_id, kind) where kind in ('move_in', 'move_out');

create trigger contractors_touch before update on contractors for each row execute function touch_updated_at();
create trigger contractors_version before update on contractors for each row execute function bump_version();
create trigger jobs_touch before update on jobs for each row execute function touch_updated_at();
create trigger jobs_version before update on jobs for each row execute function bump_version();
create trigger job_charges_touch before update on job_charges for each row execute function touch_updated_at();
create trigger job_charges_version before update on job_charges for each row execute function bump_version();
-- The booked-charge rule runs before the touch and version triggers (triggers fire in name order).
create trigger job_charges_a_booked before update on job_charges for each row execute function job_charge_booked();
create trigger inspections_touch before update on inspections for each row execute function touch_updated_at();
create trigger inspections_version before update on inspections for each row execute function bump_version();
