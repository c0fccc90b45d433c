-- Owner statements (issue 27; docs/api-reference.md, "Owner statements and the accounting journal").
--
-- An owner's statement of a month is the lines of `owner_statement_lines` whose day falls in it. The lines are
-- written by the database itself, in the statement that books what they show, so no write path (API, admin,
-- scheduled work, seed, a hand-written fix) books a receipt, a bounce or a charge without its lines:
--
-- * a rent payment's receipt (`booked_on` set): `rent_received` (+amount) and, when the fee is above zero, `fee`
--   (-fee_amount), both on booked_on;
-- * a bounce after a receipt (`bounced_on` set): `rent_reversed` (-amount) and `fee_reversed` (+fee_amount) on
--   bounced_on, to the owner and in the currency of the receipt they reverse;
-- * a job charge booked to the owner (payer `owner`, `booked_owner_id` set): `job_charge` (-cost) on booked_on;
-- * its cancellation (`cancelled_on` set): `job_charge_cancelled` (+cost) on cancelled_on.
--
-- Amounts are signed as they change what the company owes the owner. Each line keeps what it showed when it was
-- booked: the owner (a draft lease's landlord may still change), the home's slug, the lease and the currency (the
-- company's currency then). Those days are always "today" when written (the routes never take them), so a month
-- that is over gets no new line, and no line ever changes: `owner_statement_lines_fixed` refuses any update. Lines
-- go only with their company (delete cascade).

create table owner_statement_lines (
  id bigint generated always as identity primary key,
  company_id uuid not null references companies (id) on delete cascade,
  owner_id uuid not null references contacts (id),
  kind text not null check (kind in ('rent_received', 'fee', 'rent_reversed', 'fee_reversed', 'job_charge', 'job_charge_cancelled')),
  day date not null,
  amount numeric(14, 2) not null,
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  -- Copies of what the payment's lease or the charge's job named when the line was booked (no foreign keys: the
  -- payment or charge below holds the line to its records).
  lease_id uuid,
  listing_id uuid not null,
  home text not null,
  payment_id uuid references rent_payments (id),
  charge_id uuid references job_charges (id),
  recorded_at timestamptz not null default now(),
  check ((payment_id is null) <> (charge_id is null)),
  check ((kind in ('rent_received', 'fee', 'rent_reversed', 'fee_reversed')) = (payment_id is not null)),
  check (case when kind in ('rent_received', 'fee_reversed', 'job_charge_cancelled') then amount >= 0 else amount <= 0 end)
);
-- One line of each kind per payment or charge: a receipt is booked once, reversed once.
create unique index owner_statement_lines_payment on owner_statement_lines (payment_id, kind) where payment_id is not null;
create unique index owner_statement_lines_charge on owner_statement_lines (charge_id, kind) where charge_id is not null;
create index owner_statement_lines_payment_fk on owner_statement_lines (payment_id);
create index owner_statement_lines_charge_fk on owner_statement_lines (charge_id);
-- An owner's month (owner ids are unique across companies; the company is checked beside it) and a company's month.
create index owner_statement_lines_owner on owner_statement_lines (owner_id, day, id);
create index owner_statement_lines_company on owner_statement_lines (company_id, day, id);

-- The months and owners that have a statement (a line), and when `owner_statement.ready` announced each.
create table owner_statements (
  company_id uuid not null references companies (id) on delete cascade,
  owner_id uuid not null references contacts (id),
  -- The month's first day.
  month date not null check (extract(day from month) = 1),
  announced_at timestamptz,
  primary key (owner_id, month)
);
create index owner_statements_company on owner_statements (company_id, month, owner_id);
create index owner_statements_unannounced on owner_statements (company_id, month) where announced_at is null;

-- The printable page's links: an unguessable token (only its hash is kept) for one owner, month and language, until
-- it expires.
create table owner_statement_links (
  id uuid primary key default gen_random_uuid(),
  company_id uuid not null references companies (id) on delete cascade,
  owner_id uuid not null,
  month date not null check (extract(day from month) = 1),
  language text not null check (language in ('en', 'ar')),
  token_hash bytea not null unique,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index owner_statement_links_company on owner_statement_links (company_id, expires_at);

create function owner_statement_lines_fixed() returns trigger language plpgsql as $$
begin
  raise exception 'owner statement line % never changes', OLD.id
    using errcode = 'check_violation', constraint = 'owner_statement_lines_fixed';
end;
$$;
create trigger owner_statement_lines_fixed before update on owner_statement_lines
  for each row execute function owner_statement_lines_fixed();

-- One line, and its owner's month in owner_statements.
create function owner_statement_line(
  p_company uuid, p_owner uuid, p_kind text, p_day date, p_amount numeric, p_currency text, p_lease uuid,
  p_listing uuid, p_home text, p_payment uuid, p_charge uuid
) returns void language plpgsql as $$
begin
  insert into owner_statement_lines (company_id, owner_id, kind, day, amount, currency, lease_id, listing_id, home,
    payment_id, charge_id)
  values (p_company, p_owner, p_kind, p_day, p_amount, p_currency, p_lease, p_listing, p_home, p_payment, p_charge);
  insert into owner_statements (company_id, owner_id, month)
  values (p_company, p_owner, date_trunc('month', p_day)::date)
  on conflict do nothing;
end;
$$;

-- The lines that reverse those of `p_kinds` of a payment or charge, on `p_day`, with the opposite sign.
create function owner_statement_reverse(p_payment uuid, p_charge uuid, p_kinds text[], p_reversals text[], p_day date)
returns void language plpgsql as $$
declare
  line owner_statement_lines;
begin
  for line in
    select * from owner_statement_lines
    where (payment_id = p_payment or charge_id = p_charge) and kind = any (p_kinds) order by id
  loop
    perform owner_statement_line(line.company_id, line.owner_id, p_reversals[array_position(p_kinds, line.kind)], p_day,
      -line.amount, line.currency, line.lease_id, line.listing_id, line.home, line.payment_id, line.charge_id);
  end loop;
end;
$$;

create function owner_statement_payment() returns trigger language plpgsql as $$
declare
  lease record;
begin
  if NEW.booked_on is not null and (TG_OP = 'INSERT' or OLD.booked_on is null) then
    select l.landlord_id, l.listing_id, li.slug_en, c.currency into lease
    from leases l join listings li on li.id = l.listing_id join companies c on c.id = l.company_id
    where l.id = NEW.lease_id;
    perform owner_statement_line(NEW.company_id, lease.landlord_id, 'rent_received', NEW.booked_on, NEW.amount,
      lease.currency, NEW.lease_id, lease.listing_id, lease.slug_en, NEW.id, null);
    if NEW.fee_amount > 0 then
      perform owner_statement_line(NEW.company_id, lease.landlord_id, 'fee', NEW.booked_on, -NEW.fee_amount,
        lease.currency, NEW.lease_id, lease.listing_id, lease.slug_en, NEW.id, null);
    end if;
  end if;
  if NEW.bounced_on is not null and (TG_OP = 'INSERT' or OLD.bounced_on is null) then
    perform owner_statement_reverse(NEW.id, null, array['rent_received', 'fee'], array['rent_reversed', 'fee_reversed'],
      NEW.bounced_on);
  end if;
  return null;
end;
$$;
create trigger rent_payments_owner_statement after insert or update of booked_on, bounced_on on rent_payments
  for each row execute function owner_statement_payment();

create function owner_statement_charge() returns trigger language plpgsql as $$
declare
  job record;
begin
  if TG_OP = 'INSERT' and NEW.payer = 'owner' and NEW.booked_owner_id is not null then
    select j.lease_id, j.listing_id, li.slug_en, c.currency into job
    from jobs j join listings li on li.id = j.listing_id join companies c on c.id = j.company_id
    where j.id = NEW.job_id;
    perform owner_statement_line(NEW.company_id, NEW.booked_owner_id, 'job_charge', NEW.booked_on, -NEW.cost,
      job.currency, job.lease_id, job.listing_id, job.slug_en, null, NEW.id);
  end if;
  if NEW.cancelled_on is not null and (TG_OP = 'INSERT' or OLD.cancelled_on is null) then
    perform owner_statement_reverse(null, NEW.id, array['job_charge'], array['job_charge_cancelled'], NEW.cancelled_on);
  end if;
  return null;
end;
$$;
create trigger job_charges_owner_statement after insert or update of cancelled_on on job_charges
  for each row execute function owner_statement_charge();

-- The lines of what was booked before this migration, in the order it was booked (receipts and charges, then
-- reversals and cancellations, each by day), as the triggers above would have written them.
do $$
declare
  r record;
begin
  for r in
    select p.company_id, l.landlord_id, p.booked_on, p.amount, p.fee_amount, c.currency, p.lease_id, l.listing_id,
      li.slug_en, p.id
    from rent_payments p
    join leases l on l.id = p.lease_id
    join listings li on li.id = l.listing_id
    join companies c on c.id = p.company_id
    where p.booked_on is not null
    order by p.booked_on, p.received_at, p.id
  loop
    perform owner_statement_line(r.company_id, r.landlord_id, 'rent_received', r.booked_on, r.amount, r.currency,
      r.lease_id, r.listing_id, r.slug_en, r.id, null);
    if r.fee_amount > 0 then
      perform owner_statement_line(r.company_id, r.landlord_id, 'fee', r.booked_on, -r.fee_amount, r.currency,
        r.lease_id, r.listing_id, r.slug_en, r.id, null);
    end if;
  end loop;
  for r in
    select ch.company_id, ch.booked_owner_id, ch.booked_on, ch.cost, c.currency, j.lease_id, j.listing_id, li.slug_en,
      ch.id
    from job_charges ch
    join jobs j on j.id = ch.job_id
    join listings li on li.id = j.listing_id
    join companies c on c.id = ch.company_id
    where ch.payer = 'owner' and ch.booked_owner_id is not null
    order by ch.booked_on, ch.created_at, ch.id
  loop
    perform owner_statement_line(r.company_id, r.booked_owner_id, 'job_charge', r.booked_on, -r.cost, r.currency,
      r.lease_id, r.listing_id, r.slug_en, null, r.id);
  end loop;
  for r in select p.id, p.bounced_on from rent_payments p where p.bounced_on is not null order by p.bounced_on, p.bounced_at, p.id
  loop
    perform owner_statement_reverse(r.id, null, array['rent_received', 'fee'], array['rent_reversed', 'fee_reversed'],
      r.bounced_on);
  end loop;
  for r in
    select ch.id, ch.cancelled_on from job_charges ch where ch.cancelled_on is not null
    order by ch.cancelled_on, ch.updated_at, ch.id
  loop
    perform owner_statement_reverse(null, r.id, array['job_charge'], array['job_charge_cancelled'], r.cancelled_on);
  end loop;
end;
$$;

-- Months that closed before this migration are not announced now (they were settled without the event): those
-- before the month of "today less the company's grace days" (statement_grace_days, default 5).
update owner_statements s set announced_at = now()
from companies c
where c.id = s.company_id
  and s.month < date_trunc('month', (now() at time zone c.time_zone)::date
    - coalesce((c.settings ->> 'statement_grace_days')::int, 5))::date;
