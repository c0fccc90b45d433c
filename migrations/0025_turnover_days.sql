-- Turnover days between stays (issue 24): a holiday home's setting, `turnover_days` nights kept free after each stay
-- (a booking that holds its nights, an imported stay) for cleaning. Nothing is stored per stay: the nights are
-- computed where the calendar is read (lib/calendar.ts), so a change of the setting takes effect at once, for the
-- stays already taken too, and no row has to be kept in step with a booking, an import or the setting.
alter table holiday_home_terms add column turnover_days integer not null default 0
  check (turnover_days between 0 and 7);

-- A booking request is checked, then written only if the home's rules_version is still the one read
-- (functions/stay/hold.ts); bookings meet each other on the exclusion constraint, which compares nights only. With
-- turnover days, two stays that share no night may still clash (the second starts within the first's turnover), so a
-- new booking of such a home bumps rules_version, under the terms row's lock its statement already holds: a request
-- that read the calendar before it then takes the locked path and sees it. Homes without turnover are unchanged.
create function bump_turnover_rules_version() returns trigger language plpgsql as $$
begin
  update holiday_home_terms set rules_version = rules_version + 1
  where listing_id = new.listing_id and turnover_days > 0;
  return null;
end;
$$;
create trigger bookings_turnover_rules after insert on bookings
  for each row execute function bump_turnover_rules_version();
