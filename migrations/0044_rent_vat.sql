-- VAT on rent received and on the company's fee (issue 35, second slice; docs/api-reference.md, "Tax").
--
-- * `rent_payments`: a receipt keeps its tax as it stood that day, computed by lib/tax.ts and lib/money.ts `vatOfLine`
--   (the one place of each rule) and written in the receipt's own statement: the rent's category, its rate (null when
--   the category carries none), the inclusive split of the amount (net + vat = amount), and the same of the company's
--   fee (category of the company's `fee` kind). Written once: the database refuses any later change, and a payment
--   received before this migration keeps nulls (its tax was never recorded; it is not invented afterwards).
--   `rent_vat_accounted_by`: who accounts for the rent's VAT, the company's setting that day: `owner` (the company
--   bills the rent as the landlord's disclosed agent: the supply is the landlord's, its VAT stays in the owner's money)
--   or `company` (the company lets the home as principal: it takes the rent's VAT to account for it). Kept like the
--   rest of the receipt's tax: a later change of the setting never rewrites a past receipt.
-- * `owner_statement_lines.vat`: the VAT in a line's amount (same sign), copied from the payment by the line writer;
--   `tax_category` the category it was booked under. Lines of kind `rent_vat` (the rent's VAT, taken from the owner for
--   the company to account for it) and `rent_vat_reversed` (its reversal on a bounce) join the kinds (migration 0041's
--   `booking_received` and `booking_refunded` kept, its checks `owner_statement_lines_sign` and the line writer's
--   booking and refund too). A booking's lines carry no VAT here (null).

alter table rent_payments
  add column tax_category text check (tax_category in ('standard', 'zero_rated', 'exempt', 'out_of_scope')),
  add column tax_rate numeric(7, 4) check (tax_rate >= 0),
  add column net_amount numeric(16, 4),
  add column vat_amount numeric(16, 4) check (vat_amount >= 0),
  add column fee_tax_category text check (fee_tax_category in ('standard', 'zero_rated', 'exempt', 'out_of_scope')),
  add column fee_tax_rate numeric(7, 4) check (fee_tax_rate >= 0),
  add column fee_net_amount numeric(16, 4),
  add column fee_vat_amount numeric(16, 4) check (fee_vat_amount >= 0),
  add column rent_vat_accounted_by text check (rent_vat_accounted_by in ('owner', 'company')),
  -- All of the rent's tax or none, all of the fee's or none; only on a receipt; the split adds up.
  add constraint rent_payments_tax_whole check (
    (tax_category is null) = (net_amount is null) and (net_amount is null) = (vat_amount is null)
    and (tax_rate is null or tax_category is not null)
    and (fee_tax_category is null) = (fee_net_amount is null) and (fee_net_amount is null) = (fee_vat_amount is null)
    and (fee_tax_rate is null or fee_tax_category is not null)
    and (tax_category is null) = (fee_tax_category is null)
    and (tax_category is null) = (rent_vat_accounted_by is null)
    and (tax_category is null or booked_on is not null)
    and (net_amount is null or net_amount + vat_amount = amount)
    and (fee_net_amount is null or fee_net_amount + fee_vat_amount = fee_amount)
  );

-- Written once, with the receipt: never changed afterwards (a bounce reverses by lines, not by rewriting).
create function rent_payment_tax_fixed() returns trigger language plpgsql as $$
begin
  if OLD.tax_category is not null and (NEW.tax_category, NEW.tax_rate, NEW.net_amount, NEW.vat_amount,
      NEW.fee_tax_category, NEW.fee_tax_rate, NEW.fee_net_amount, NEW.fee_vat_amount, NEW.rent_vat_accounted_by)
      is distinct from (OLD.tax_category, OLD.tax_rate, OLD.net_amount, OLD.vat_amount,
      OLD.fee_tax_category, OLD.fee_tax_rate, OLD.fee_net_amount, OLD.fee_vat_amount, OLD.rent_vat_accounted_by) then
    raise exception 'rent payment % has its tax and that never changes', OLD.id
      using errcode = 'check_violation', constraint = 'rent_payments_tax_fixed';
  end if;
  if OLD.tax_category is null and OLD.booked_on is not null and NEW.tax_category is not null then
    raise exception 'rent payment % was received without its tax: none is added afterwards', OLD.id
      using errcode = 'check_violation', constraint = 'rent_payments_tax_fixed';
  end if;
  return NEW;
end;
$$;
create trigger rent_payments_b_tax_fixed before update on rent_payments for each row execute function rent_payment_tax_fixed();

alter table owner_statement_lines
  add column vat numeric(16, 4),
  add column tax_category text check (tax_category in ('standard', 'zero_rated', 'exempt', 'out_of_scope'));
-- The kind and sign checks as migration 0041 left them (its booking kinds kept), with the rent VAT's kinds added.
alter table owner_statement_lines drop constraint owner_statement_lines_kind_check;
alter table owner_statement_lines add constraint owner_statement_lines_kind_check check (kind in ('rent_received', 'fee',
  'rent_reversed', 'fee_reversed', 'job_charge', 'job_charge_cancelled', 'booking_received', 'booking_refunded',
  'rent_vat', 'rent_vat_reversed'));
alter table owner_statement_lines drop constraint owner_statement_lines_check1;
alter table owner_statement_lines add constraint owner_statement_lines_check1 check ((kind in ('rent_received', 'fee',
  'rent_reversed', 'fee_reversed', 'rent_vat', 'rent_vat_reversed')) = (payment_id is not null));
alter table owner_statement_lines drop constraint owner_statement_lines_sign;
alter table owner_statement_lines add constraint owner_statement_lines_sign check (case
  when kind in ('rent_received', 'fee_reversed', 'job_charge_cancelled', 'booking_received', 'rent_vat_reversed')
  then amount >= 0 else amount <= 0 end);

-- The line writer takes the VAT in the amount and the category (after migration 0041's booking and refund); the
-- reversal copies them, negated.
drop function owner_statement_line(uuid, uuid, text, date, numeric, text, uuid, uuid, text, uuid, uuid, text, text, uuid, text);
create function owner_statement_line(
  p_company uuid, p_owner uuid, p_kind text, p_day date, p_amount numeric, p_currency text, p_lease uuid,
  p_listing uuid, p_home text, p_payment uuid, p_charge uuid, p_method text default null, p_online text default null,
  p_booking uuid default null, p_refund text default null, p_vat numeric default null, p_tax_category text default null
) returns void language plpgsql as $$
begin
  insert into owner_statement_lines (company_id, owner_id, kind, day, amount, currency, lease_id, listing_id, home,
    payment_id, charge_id, method, online_payment_id, booking_id, refund_id, vat, tax_category)
  values (p_company, p_owner, p_kind, p_day, p_amount, p_currency, p_lease, p_listing, p_home, p_payment, p_charge,
    p_method, p_online, p_booking, p_refund, p_vat, p_tax_category);
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
      line.method, line.online_payment_id, line.booking_id, null, -line.vat, line.tax_category);
  end loop;
end;
$$;

-- A receipt's lines: the rent (its VAT shown in it), the rent's VAT taken for the company to account for (when above
-- zero and the company accounts for it: `rent_vat_accounted_by = 'company'`; when the owner does, the VAT stays in the
-- owner's money and no line takes it), the fee (its VAT in it); a bounce reverses each.
create or replace function owner_statement_payment() returns trigger language plpgsql as $$
declare
  lease record;
  online record;
begin
  if NEW.booked_on is not null and (TG_OP = 'INSERT' or OLD.booked_on is null) then
    select l.landlord_id, l.listing_id, li.slug_en, c.currency into lease
    from leases l join listings li on li.id = l.listing_id join companies c on c.id = l.company_id
    where l.id = NEW.lease_id;
    select p.id, coalesce(p.method, 'online') as method into online
    from payments p where p.rent_payment_id = NEW.id and p.status = 'succeeded'
    order by p.paid_at, p.id limit 1;
    perform owner_statement_line(NEW.company_id, lease.landlord_id, 'rent_received', NEW.booked_on, NEW.amount,
      lease.currency, NEW.lease_id, lease.listing_id, lease.slug_en, NEW.id, null,
      case when online.id is not null then online.method when NEW.cheque_number is not null then 'cheque' end,
      online.id, null, null, NEW.vat_amount, NEW.tax_category);
    if NEW.vat_amount > 0 and NEW.rent_vat_accounted_by = 'company' then
      perform owner_statement_line(NEW.company_id, lease.landlord_id, 'rent_vat', NEW.booked_on, -NEW.vat_amount,
        lease.currency, NEW.lease_id, lease.listing_id, lease.slug_en, NEW.id, null, null, null, null, null,
        -NEW.vat_amount, NEW.tax_category);
    end if;
    if NEW.fee_amount > 0 then
      perform owner_statement_line(NEW.company_id, lease.landlord_id, 'fee', NEW.booked_on, -NEW.fee_amount,
        lease.currency, NEW.lease_id, lease.listing_id, lease.slug_en, NEW.id, null, null, null, null, null,
        -NEW.fee_vat_amount, NEW.fee_tax_category);
    end if;
  end if;
  if NEW.bounced_on is not null and (TG_OP = 'INSERT' or OLD.bounced_on is null) then
    perform owner_statement_reverse(NEW.id, null, array['rent_received', 'rent_vat', 'fee'],
      array['rent_reversed', 'rent_vat_reversed', 'fee_reversed'], NEW.bounced_on);
  end if;
  return null;
end;
$$;
