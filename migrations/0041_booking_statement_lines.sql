-- A holiday home's bookings on its owner's statement (issue 34, "statements show the owner the receipt";
-- docs/api-reference.md, "Owner statements and the accounting journal").
--
-- As the rent's lines (migration 0023), the database writes these in the statement that books what they show:
--
-- * a booking's payment (a deposit or a balance paid from the stay page) booked by its settlement (`payments.booked_on`
--   set, migration 0039): `booking_received` (+ the payment's base: what the guest paid less the card fee passed on
--   and the provider's rounding, `amount - card_fee - rounding`, which is what the journal's `booking_payment` entry
--   holds in booking receipts; the card fee pays the provider's fee, which the company bears) on booked_on, to the
--   home's owner then;
-- * a refund of it the provider accepted (`payment_refunds.booked_on` set with `succeeded`, migration 0040):
--   `booking_refunded` (- the part of the refund that returns base: least(refund, base); a refund of the whole charged
--   amount returns the card fee and rounding too, from payment fees) on that day, to the owner, home and currency of
--   the line it reverses.
--
-- The home's owner is decided as a job charge's (`booked_owner_id`, functions/maintenance/charges.ts addCharge): the
-- landlord of the home's active lease, else the owner its maintenance settings name (`maintenance_homes.owner_id`);
-- `home_owner` below is that rule. A home with neither gets no line: what its guests paid stays in booking receipts
-- (the journal), on no owner's statement; a refund of a payment that got no line gets none either. Both days are
-- "today" in the company's time zone when written (the settlement's, the refund's), so a payment or refund never lands
-- in a month that is over: a late webhook after a month closed books on the day it settles, as a late rent receipt
-- does. The lines never change (owner_statement_lines_fixed).

alter table owner_statement_lines add column booking_id uuid references bookings (id);
alter table owner_statement_lines add column refund_id text references payment_refunds (id);
create index owner_statement_lines_booking on owner_statement_lines (booking_id);
-- One line per refund (a refund is booked once); one `booking_received` per online payment.
create unique index owner_statement_lines_refund on owner_statement_lines (refund_id);
create unique index owner_statement_lines_booking_payment on owner_statement_lines (online_payment_id)
  where kind = 'booking_received';

alter table owner_statement_lines drop constraint owner_statement_lines_kind_check;
alter table owner_statement_lines add constraint owner_statement_lines_kind_check check (kind in ('rent_received', 'fee',
  'rent_reversed', 'fee_reversed', 'job_charge', 'job_charge_cancelled', 'booking_received', 'booking_refunded'));
-- A line is about one record: a rent payment, a job charge, or a booking (its online payment, and its refund).
alter table owner_statement_lines drop constraint owner_statement_lines_check;
alter table owner_statement_lines add constraint owner_statement_lines_subject
  check (num_nonnulls(payment_id, charge_id, booking_id) = 1);
alter table owner_statement_lines add constraint owner_statement_lines_booking_kinds
  check ((kind in ('booking_received', 'booking_refunded')) = (booking_id is not null)
    and (booking_id is null or online_payment_id is not null)
    and (kind = 'booking_refunded') = (refund_id is not null));
alter table owner_statement_lines drop constraint owner_statement_lines_check2;
alter table owner_statement_lines add constraint owner_statement_lines_sign check (
  case when kind in ('rent_received', 'fee_reversed', 'job_charge_cancelled', 'booking_received') then amount >= 0
  else amount <= 0 end);

-- The home's owner now: the landlord of its active lease, else its maintenance settings' owner (null: none).
create function home_owner(p_listing uuid) returns uuid language sql stable as $$
  select coalesce(
    (select landlord_id from leases where listing_id = p_listing and status = 'active' limit 1),
    (select owner_id from maintenance_homes where listing_id = p_listing))
$$;

-- The line writer takes the booking and the refund; the reversal copies the booking from the line it reverses.
drop function owner_statement_line(uuid, uuid, text, date, numeric, text, uuid, uuid, text, uuid, uuid, text, text);
create function owner_statement_line(
  p_company uuid, p_owner uuid, p_kind text, p_day date, p_amount numeric, p_currency text, p_lease uuid,
  p_listing uuid, p_home text, p_payment uuid, p_charge uuid, p_method text default null, p_online text default null,
  p_booking uuid default null, p_refund text default null
) returns void language plpgsql as $$
begin
  insert into owner_statement_lines (company_id, owner_id, kind, day, amount, currency, lease_id, listing_id, home,
    payment_id, charge_id, method, online_payment_id, booking_id, refund_id)
  values (p_company, p_owner, p_kind, p_day, p_amount, p_currency, p_lease, p_listing, p_home, p_payment, p_charge,
    p_method, p_online, p_booking, p_refund);
  insert into owner_statements (company_id, owner_id, month)
  values (p_company, p_owner, date_trunc('month', p_day)::date)
  on conflict do nothing;
end;
$$;

create or replace function owner_statement_reverse(p_payment uuid, p_charge uuid, p_kinds text[], p_reversals text[], p_day date)
returns void language plpgsql as $$
declare
  line owner_statement_lines;
begin
  for line in
    select * from owner_statement_lines
    where (payment_id = p_payment or charge_id = p_charge) and kind = any (p_kinds) order by id
  loop
    perform owner_statement_line(line.company_id, line.owner_id, p_reversals[array_position(p_kinds, line.kind)], p_day,
      -line.amount, line.currency, line.lease_id, line.listing_id, line.home, line.payment_id, line.charge_id,
      line.method, line.online_payment_id, line.booking_id);
  end loop;
end;
$$;

-- A booking's payment booked on `p_day` (its settlement's, or the first open day for what was settled before this
-- migration): `booking_received` to the home's owner, when it has one.
create function owner_statement_booking_received(p_payment text, p_day date) returns void language plpgsql as $$
declare
  paid record;
begin
  select p.company_id, p.booking_id, p.amount - p.card_fee - p.rounding as base, p.currency,
    coalesce(p.method, 'online') as method, b.listing_id,
    li.slug_en, home_owner(b.listing_id) as owner_id
  into paid
  from payments p join bookings b on b.id = p.booking_id join listings li on li.id = b.listing_id
  where p.id = p_payment;
  if paid.owner_id is not null then
    perform owner_statement_line(paid.company_id, paid.owner_id, 'booking_received', p_day, paid.base, paid.currency,
      null, paid.listing_id, paid.slug_en, null, null, paid.method, p_payment, paid.booking_id, null);
  end if;
end;
$$;

-- A refund of a booking's payment booked on `p_day`: `booking_refunded` reversing the part of the refund that returns
-- the payment's base (least(refund, base): what the journal's `online_refund` entry takes back out of booking
-- receipts), to the owner, home and currency of the payment's `booking_received` line (none: no line).
create function owner_statement_booking_refunded(p_refund text, p_day date) returns void language plpgsql as $$
declare
  line owner_statement_lines;
  refund payment_refunds;
  base numeric;
begin
  select * into refund from payment_refunds where id = p_refund;
  select amount - card_fee - rounding into base from payments where id = refund.payment_id;
  for line in
    select * from owner_statement_lines where online_payment_id = refund.payment_id and kind = 'booking_received'
  loop
    perform owner_statement_line(line.company_id, line.owner_id, 'booking_refunded', p_day, -least(refund.amount, base),
      line.currency, null, line.listing_id, line.home, null, null, line.method, line.online_payment_id, line.booking_id,
      refund.id);
  end loop;
end;
$$;

create function owner_statement_online_payment() returns trigger language plpgsql as $$
begin
  if NEW.booking_id is not null and NEW.booked_on is not null and (TG_OP = 'INSERT' or OLD.booked_on is null) then
    perform owner_statement_booking_received(NEW.id, NEW.booked_on);
  end if;
  return null;
end;
$$;
create trigger payments_owner_statement after insert or update of booked_on on payments
  for each row execute function owner_statement_online_payment();

create function owner_statement_refund() returns trigger language plpgsql as $$
begin
  if NEW.status = 'succeeded' and NEW.booked_on is not null
      and (TG_OP = 'INSERT' or OLD.booked_on is null or OLD.status <> 'succeeded') then
    perform owner_statement_booking_refunded(NEW.id, NEW.booked_on);
  end if;
  return null;
end;
$$;
create trigger payment_refunds_owner_statement after insert or update of booked_on, status on payment_refunds
  for each row execute function owner_statement_refund();

-- What was booked before this migration (issue 34's booking payments, days old), in the order it was booked (payments,
-- then refunds, each by day): each on its own day, or, when that day's month is already closed (recorded in
-- statement_closings, or closed by the company's rule today), on the first day of the company's first open month, so
-- a closed month never changes. The home's owner is its owner now.
do $$
declare
  r record;
begin
  for r in
    select p.id, greatest(p.booked_on, o.first_open) as day
    from payments p
    join lateral (
      select greatest(
        (select (max(s.month) + interval '1 month')::date from statement_closings s where s.company_id = c.id),
        date_trunc('month', (now() at time zone c.time_zone)::date
          - coalesce((c.settings ->> 'statement_grace_days')::int, 5))::date) as first_open
      from companies c where c.id = p.company_id
    ) o on true
    where p.booking_id is not null and p.booked_on is not null and p.status in ('succeeded', 'refunded')
    order by p.booked_on, p.entry_number
  loop
    perform owner_statement_booking_received(r.id, r.day);
  end loop;
  for r in
    select f.id, greatest(f.booked_on, o.first_open) as day
    from payment_refunds f
    join lateral (
      select greatest(
        (select (max(s.month) + interval '1 month')::date from statement_closings s where s.company_id = c.id),
        date_trunc('month', (now() at time zone c.time_zone)::date
          - coalesce((c.settings ->> 'statement_grace_days')::int, 5))::date) as first_open
      from companies c where c.id = f.company_id
    ) o on true
    where f.status = 'succeeded' and f.booked_on is not null
    order by f.booked_on, f.entry_number
  loop
    perform owner_statement_booking_refunded(r.id, r.day);
  end loop;
end;
$$;
