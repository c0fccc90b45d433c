-- The Tourism Dirham of Dubai's holiday homes (issue 37; docs/api-reference.md, "The Tourism Dirham"). DET classifies
-- each holiday home `standard` (AED 10 per bedroom per night) or `deluxe` (AED 15); the class is one of the home's
-- booking terms (null: not a Dubai holiday home, the terms' own `tourism_fee_per_bedroom_night` applies). A booking
-- keeps what it was quoted (its `quote`'s `tourism_dirham`: class, bedrooms, nights charged, rate), so a later change
-- of the home's class or bedrooms never changes a booking's fee.
alter table holiday_home_terms
  add column det_class text check (det_class in ('standard', 'deluxe'));

-- A company's month of the Tourism Dirham once closed (the month of its owner statements closed,
-- lib/statement-months.ts): the report as it was when first recorded (per home: nights, bedroom-nights, amount; the
-- total), never changed afterwards, and its payment over to DET (an admin action) which clears the journal's liability.
create table tourism_dirham_months (
  company_id uuid not null references companies (id) on delete cascade,
  -- The month's first day.
  month date not null check (extract(day from month) = 1),
  currency text not null,
  -- {"homes": [{"listing_id", "listing", "det_class", "bookings", "nights", "bedroom_nights", "amount"}], ...}
  report jsonb not null,
  total numeric(16, 4) not null check (total >= 0),
  recorded_at timestamptz not null,
  -- Paid over to DET: the day, the payment's own reference (DET's receipt), who recorded it.
  paid_on date,
  payment_reference text check (char_length(payment_reference) between 1 and 100),
  paid_by text,
  paid_at timestamptz,
  check ((paid_on is null) = (paid_at is null) and (paid_on is null) = (payment_reference is null)),
  primary key (company_id, month)
);

-- The recorded report never changes; only its payment is added, once.
create function tourism_dirham_months_fixed() returns trigger language plpgsql as $$
begin
  if NEW.report is distinct from OLD.report or NEW.total is distinct from OLD.total or NEW.month <> OLD.month
      or NEW.company_id <> OLD.company_id or NEW.currency <> OLD.currency or OLD.paid_on is not null then
    raise exception 'the Tourism Dirham of % never changes once recorded', OLD.month
      using errcode = 'check_violation', constraint = 'tourism_dirham_months_fixed';
  end if;
  return NEW;
end;
$$;

create trigger tourism_dirham_months_fixed before update on tourism_dirham_months
  for each row execute function tourism_dirham_months_fixed();
