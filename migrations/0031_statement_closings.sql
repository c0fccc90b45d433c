-- A closed month stays closed (issue 32, defect 6; docs/api-reference.md, "When a month closes").
--
-- Whether a company's month of owner statements is closed was computed on every read from the company's settings
-- (the next month's first day plus `statement_grace_days`, in its time zone), so raising the grace days from 5 to 28
-- turned a closed month, already announced with `owner_statement.ready`, back to `open`. Closing is now a fact
-- recorded when it happens: one row per company and month, never updated or deleted (it goes only with its company).
--
-- Written by the scheduled work that announces statements (functions/statements/ready.ts), in the statement that
-- records the announcements, for every month from the one after the company's last recorded (or, the first time,
-- its first month with a statement) through the last month its rule closes; by the admin API's change of
-- `statement_grace_days`, which first records the months closed under the days it replaces; and by the demo seed.
-- Months without a statement line are recorded too: a company's months close in order, whatever was booked in them.
-- A read counts every month up to the company's last recorded one as closed, and applies the rule of the company's
-- current settings only after it (lib/statement-months.ts): lowering the grace days closes months sooner, raising
-- them never reopens one.
create table statement_closings (
  company_id uuid not null references companies (id) on delete cascade,
  -- The month's first day.
  month date not null check (extract(day from month) = 1),
  -- The grace days under which it closed: it closed (`closes_on`) on the next month's first day plus these, in the
  -- company's time zone.
  grace_days integer not null check (grace_days between 0 and 28),
  -- When the closing was recorded (the scheduler's or the request's `now`).
  recorded_at timestamptz not null,
  primary key (company_id, month)
);

create function statement_closings_fixed() returns trigger language plpgsql as $$
begin
  raise exception 'the closing of % never changes', OLD.month
    using errcode = 'check_violation', constraint = 'statement_closings_fixed';
end;
$$;
create trigger statement_closings_fixed before update on statement_closings
  for each row execute function statement_closings_fixed();
