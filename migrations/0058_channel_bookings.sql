-- Reservations for integrations (issue 37; docs/api-reference.md, "Reservations for integrations"). A booking a
-- channel manager or PMS took elsewhere keeps its channel (e.g. `airbnb`) and the channel's own id for it; the SHA-256
-- of the request that created it answers a repeat of the same id (the same booking) apart from a different request
-- (409). One booking per company, channel and id. Integrations page bookings by (updated_at, id) from `updated_since`.
alter table bookings
  add column channel text check (channel ~ '^[a-z0-9][a-z0-9_.-]{0,63}$'),
  add column channel_reference text check (char_length(channel_reference) between 1 and 200),
  add column channel_request_hash bytea,
  add constraint bookings_channel_pair check ((channel is null) = (channel_reference is null)
    and (channel_reference is null) = (channel_request_hash is null));
create unique index bookings_channel_reference on bookings (company_id, channel, channel_reference)
  where channel_reference is not null;
create index bookings_company_sync on bookings (company_id, updated_at, id);

-- A booking whose dates an integration changes (PATCH /bookings/{reference}) moves its home's rules_version in a home
-- with turnover days, as a new booking does (migration 0025): a request that read the calendar before then takes the
-- locked path and sees the stay's new turnover.
create trigger bookings_turnover_rules_moved after update of check_in, check_out on bookings
  for each row when (new.check_in <> old.check_in or new.check_out <> old.check_out)
  execute function bump_turnover_rules_version();
