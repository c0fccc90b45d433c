-- Leases and rent payments (issue 11; docs/api-reference.md, "Leases and rent payments").
--
-- A lease lets one home (a `lease` listing of the company) to a renter for a term; its schedule is a list of rent
-- payments. What an owner's statement already showed never changes: a payment's booked_on, fee_amount and bounced_on
-- are written once, a bounced payment is final, and statuses only move forward. The database refuses the rest, so no
-- write path (API, admin, scheduled work, a hand-written fix) can rewrite a month already reported.
--
-- External ids live in `external_ids` (record types `lease` and `rent_payment`, allowed since 0010).

create table leases (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  reference text not null unique,
  listing_id uuid not null references listings (id),
  renter_id uuid not null references contacts (id),
  landlord_id uuid not null references contacts (id),
  status text not null default 'draft' check (status in ('draft', 'active', 'ended')),
  -- The term, both days included: the lease's first and last day.
  starts_on date not null,
  ends_on date not null,
  rent_amount numeric(14, 2) not null check (rent_amount >= 0),
  rent_period text not null check (rent_period in ('month', 'year')),
  deposit_amount numeric(14, 2) not null default 0 check (deposit_amount >= 0),
  -- The local tenancy registration (e.g. an Ejari number).
  registration text check (length(registration) between 1 and 100),
  -- The notice period the contract states, in days (the company's default when the lease stated none).
  notice_days integer not null check (notice_days between 0 and 3650),
  renewal_terms text check (length(renewal_terms) <= 2000),
  -- The lease this one renews; a lease has at most one renewal (see leases_one_renewal).
  renews_id uuid references leases (id),
  -- The number of equal payments the schedule was split into; null when it was given as explicit rows.
  schedule_count integer check (schedule_count between 1 and 120),
  -- The company's management fee on each received payment: a percentage of it, or a fixed amount.
  fee_kind text check (fee_kind in ('percent', 'fixed')),
  fee_value numeric(14, 2) check (fee_value >= 0),
  handler_id text references members (id) on delete set null,
  notes text check (length(notes) <= 5000),
  -- The warnings standing on the lease, as last computed by a write: [{code, message}].
  warnings jsonb not null default '[]'::jsonb,
  activated_at timestamptz,
  -- Set by the end operation: the day the lease ended and what became of the deposit.
  ended_on date,
  deposit_outcome text check (deposit_outcome in ('returned', 'returned_with_deductions', 'kept')),
  deposit_deductions numeric(14, 2) check (deposit_deductions > 0),
  deposit_reason text check (length(deposit_reason) between 1 and 2000),
  version bigint not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  check (starts_on >= '1900-01-01' and ends_on <= '2999-12-31' and ends_on >= starts_on),
  check (renter_id <> landlord_id),
  check (renews_id <> id),
  check ((fee_kind is null) = (fee_value is null)),
  check (fee_kind is distinct from 'percent' or fee_value <= 100),
  check ((status = 'draft') = (activated_at is null)),
  check ((status = 'ended') = (ended_on is not null)),
  check ((status = 'ended') = (deposit_outcome is not null)),
  check ((deposit_outcome = 'returned_with_deductions') = (deposit_deductions is not null)),
  check ((deposit_outcome = 'returned_with_deductions') = (deposit_reason is not null)),
  check (deposit_deductions is null or deposit_deductions <= deposit_amount)
);
create index leases_sync on leases (company_id, updated_at, id);
create index leases_renter on leases (renter_id);
create index leases_landlord on leases (landlord_id);
-- One active lease per home: of concurrent activations of two drafts of one home, one commits, the others fail here.
create unique index leases_one_active on leases (listing_id) where status = 'active';
-- One renewal per lease: concurrent renewals give one draft.
create unique index leases_one_renewal on leases (renews_id) where renews_id is not null;

-- Notices given on a lease: when, by whom, what they say. Never changed once recorded.
create table lease_notices (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  lease_id uuid not null references leases (id) on delete cascade,
  given_on date not null check (given_on between '1900-01-01' and '2999-12-31'),
  given_by text not null check (given_by in ('renter', 'landlord', 'company')),
  intent text not null check (intent in ('vacate', 'renew', 'rent_change')),
  -- A vacate notice's day of leaving (null: the term's last day).
  vacate_on date check (vacate_on between '1900-01-01' and '2999-12-31'),
  proposed_rent numeric(14, 2) check (proposed_rent >= 0),
  text text check (length(text) <= 2000),
  recorded_at timestamptz not null default clock_timestamp(),
  check (intent = 'vacate' or vacate_on is null),
  check (intent <> 'vacate' or proposed_rent is null)
);
create index lease_notices_lease on lease_notices (lease_id, recorded_at);

create table rent_payments (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  lease_id uuid not null references leases (id) on delete cascade,
  status text not null default 'due' check (status in ('due', 'received', 'bounced', 'cancelled')),
  due_on date not null check (due_on between '1900-01-01' and '2999-12-31'),
  amount numeric(14, 2) not null check (amount >= 0),
  -- A post-dated cheque: one payment per cheque, its number and bank together.
  cheque_number text check (length(cheque_number) between 1 and 50),
  cheque_bank text check (length(cheque_bank) between 1 and 100),
  notes text check (length(notes) <= 2000),
  -- The bounced payment this one replaces.
  replaces_id uuid references rent_payments (id),
  -- Set on receipt: the day it counted for the owner's statement (company time zone) and the company's fee then.
  booked_on date,
  fee_amount numeric(14, 2) check (fee_amount >= 0),
  -- Set when a received payment bounces: the day the reversal counted.
  bounced_on date,
  received_at timestamptz,
  bounced_at timestamptz,
  cancelled_at timestamptz,
  -- When scheduled work announced rent_payment.overdue (once per payment).
  overdue_at timestamptz,
  version bigint not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default clock_timestamp(),
  check ((cheque_number is null) = (cheque_bank is null)),
  check (replaces_id <> id),
  check ((booked_on is null) = (fee_amount is null)),
  check ((booked_on is null) = (received_at is null)),
  check ((status = 'bounced') = (bounced_at is not null)),
  check ((status = 'cancelled') = (cancelled_at is not null)),
  check (status <> 'received' or booked_on is not null),
  check (status not in ('due', 'cancelled') or (booked_on is null and bounced_on is null)),
  -- A reversal only follows a receipt, on its day or later; a receipt that bounced always has its reversal day.
  check (bounced_on is null or (booked_on is not null and bounced_on >= booked_on and status = 'bounced')),
  check (status <> 'bounced' or booked_on is null or bounced_on is not null)
);
create index rent_payments_sync on rent_payments (company_id, updated_at, id);
create index rent_payments_lease on rent_payments (lease_id, due_on);
create index rent_payments_replaces on rent_payments (replaces_id) where replaces_id is not null;
-- The accounting export: a month of receipts, a month of reversals.
create index rent_payments_booked on rent_payments (company_id, booked_on) where booked_on is not null;
create index rent_payments_bounced on rent_payments (company_id, bounced_on) where bounced_on is not null;
-- Scheduled work: payments still due not yet announced as overdue.
create index rent_payments_unannounced on rent_payments (due_on) where status = 'due' and overdue_at is null;

-- What an owner's statement showed never changes. Statuses move only forward (due -> received | bounced | cancelled,
-- received -> bounced); booked_on and fee_amount are written once; a bounced payment takes no change at all (so its
-- bounced_on, which only a bounced payment has, is written once too). Each refusal names its rule as the constraint
-- (check_violation), so the API can answer 409 with it.
create function rent_payment_settled() returns trigger language plpgsql as $$
begin
  if OLD.status = 'bounced' then
    raise exception 'rent payment % bounced and never changes', OLD.id
      using errcode = 'check_violation', constraint = 'rent_payments_bounced_final';
  end if;
  if NEW.status is distinct from OLD.status and not (
    (OLD.status = 'due' and NEW.status in ('received', 'bounced', 'cancelled'))
    or (OLD.status = 'received' and NEW.status = 'bounced')
  ) then
    raise exception 'rent payment % cannot go from % to %', OLD.id, OLD.status, NEW.status
      using errcode = 'check_violation', constraint = 'rent_payments_status_forward';
  end if;
  if OLD.booked_on is not null and NEW.booked_on is distinct from OLD.booked_on then
    raise exception 'rent payment % was booked on % and that never changes', OLD.id, OLD.booked_on
      using errcode = 'check_violation', constraint = 'rent_payments_booked_on_fixed';
  end if;
  if OLD.fee_amount is not null and NEW.fee_amount is distinct from OLD.fee_amount then
    raise exception 'rent payment % has its fee and that never changes', OLD.id
      using errcode = 'check_violation', constraint = 'rent_payments_fee_amount_fixed';
  end if;
  -- A received payment's own fields are what the owner was shown: only its bounce may follow.
  if OLD.status = 'received' and (NEW.amount, NEW.due_on, NEW.lease_id, NEW.company_id)
      is distinct from (OLD.amount, OLD.due_on, OLD.lease_id, OLD.company_id) then
    raise exception 'rent payment % was received: its amount, due date and lease never change', OLD.id
      using errcode = 'check_violation', constraint = 'rent_payments_received_fixed';
  end if;
  return NEW;
end;
$$;

create trigger leases_touch before update on leases for each row execute function touch_updated_at();
create trigger leases_version before update on leases for each row execute function bump_version();
create trigger rent_payments_touch before update on rent_payments for each row execute function touch_updated_at();
create trigger rent_payments_version before update on rent_payments for each row execute function bump_version();
-- The settled-payment rule runs before the touch and version triggers (triggers fire in name order).
create trigger rent_payments_a_settled before update on rent_payments for each row execute function rent_payment_settled();
