-- VAT on job charges (issue 35; docs/api-reference.md, "Tax", and "Tax invoices and credit notes", "Job charges").
--
-- * `job_charges`: a charge keeps its tax as it stood on the day it was booked, computed by lib/tax.ts and lib/money.ts
--   `vatOfLine` (lib/rent-receipts.ts `taxOf`, the receipts' rule) and written with the charge: its category (the
--   charge's own `tax_category`, else the company's for `job_charge`; `out_of_scope` when the company is not registered
--   that day, or when the company pays the charge itself: no supply), its rate (null for a category without one), and
--   the inclusive split of the cost (the cost is what the payer pays, VAT included: net + vat = cost). Written once:
--   the database refuses any later change, and a charge booked before this migration keeps nulls (its tax was never
--   recorded; it is not invented afterwards).
-- * The owner's statement line of a charge (`job_charge`) carries the charge's VAT (same sign as the line) and its
--   category; its cancellation (`job_charge_cancelled`) copies them negated (owner_statement_reverse, migration 0044).

alter table job_charges
  add column tax_category text check (tax_category in ('standard', 'zero_rated', 'exempt', 'out_of_scope')),
  add column tax_rate numeric(7, 4) check (tax_rate >= 0),
  add column net_amount numeric(16, 4),
  add column vat_amount numeric(16, 4) check (vat_amount >= 0),
  add constraint job_charges_tax_whole check (
    (tax_category is null) = (net_amount is null) and (net_amount is null) = (vat_amount is null)
    and (tax_rate is null or tax_category is not null)
    and (net_amount is null or net_amount + vat_amount = cost)
  );

-- Written once, with the charge: never changed afterwards (a cancellation reverses by lines and a credit note).
create function job_charge_tax_fixed() returns trigger language plpgsql as $$
begin
  if (NEW.tax_category, NEW.tax_rate, NEW.net_amount, NEW.vat_amount)
      is distinct from (OLD.tax_category, OLD.tax_rate, OLD.net_amount, OLD.vat_amount) then
    raise exception 'job charge % has its tax and that never changes', OLD.id
      using errcode = 'check_violation', constraint = 'job_charges_tax_fixed';
  end if;
  return NEW;
end;
$$;
create trigger job_charges_b_tax_fixed before update on job_charges for each row execute function job_charge_tax_fixed();

-- A charge booked to the owner: its line carries the charge's VAT and category (the cancellation copies them).
create or replace function owner_statement_charge() returns trigger language plpgsql as $$
declare
  job record;
begin
  if TG_OP = 'INSERT' and NEW.payer = 'owner' and NEW.booked_owner_id is not null then
    select j.lease_id, j.listing_id, li.slug_en, c.currency into job
    from jobs j join listings li on li.id = j.listing_id join companies c on c.id = j.company_id
    where j.id = NEW.job_id;
    perform owner_statement_line(NEW.company_id, NEW.booked_owner_id, 'job_charge', NEW.booked_on, -NEW.cost,
      job.currency, job.lease_id, job.listing_id, job.slug_en, null, NEW.id, null, null, null, null,
      -NEW.vat_amount, NEW.tax_category);
  end if;
  if NEW.cancelled_on is not null and (TG_OP = 'INSERT' or OLD.cancelled_on is null) then
    perform owner_statement_reverse(null, NEW.id, array['job_charge'], array['job_charge_cancelled'], NEW.cancelled_on);
  end if;
  return null;
end;
$$;
