-- The visitor forms in one or two round trips (issue 14): keys announced when they change, and the version a booking's
-- hold checks.

-- API keys in memory (lib/company-cache.ts): every change to a key or to its secrets is announced on the channel
-- `company_changed` (migration 0016) with the key's company, so a Node process drops the key (and the company's
-- rows) and a revocation, a rotation or an expiry moved in the database takes effect at the next request. Recording
-- a key's use (`last_used_at`, at most once a minute) is not a change anyone has to see: it is not announced.

create function notify_key_changed() returns trigger language plpgsql as $$
declare
  company uuid;
begin
  if TG_TABLE_NAME = 'api_keys' then
    company := case when TG_OP = 'DELETE' then OLD.company_id else NEW.company_id end;
  else
    select k.company_id into company from api_keys k
    where k.id = case when TG_OP = 'DELETE' then OLD.key_id else NEW.key_id end;
  end if;
  -- A secret deleted with its key: the key's own trigger announced it.
  if company is not null then
    perform pg_notify('company_changed', company::text);
  end if;
  return null;
end;
$$;

create trigger api_keys_notify_changed after insert or delete on api_keys
  for each row execute function notify_key_changed();
create trigger api_keys_notify_updated after update on api_keys
  for each row when ((to_jsonb(OLD) - 'last_used_at') is distinct from (to_jsonb(NEW) - 'last_used_at'))
  execute function notify_key_changed();
create trigger api_key_secrets_notify_changed after insert or update or delete on api_key_secrets
  for each row execute function notify_key_changed();

-- A booking request is checked before its hold is written (functions/stay/hold.ts), and the hold is written only if
-- nothing the check read has changed since except bookings, which the exclusion constraint settles by itself:
-- `rules_version` is bumped by every change to a home's terms, seasons and blocks, never by a booking (unlike
-- `calendar_version`, which every calendar change bumps and caches are keyed by). It changes under the lock of the
-- terms row, so a hold that waited for that lock sees the version the other transaction committed.
alter table holiday_home_terms add column rules_version bigint not null default 0;

create function bump_rules_version() returns trigger language plpgsql as $$
begin
  update holiday_home_terms set rules_version = rules_version + 1
  where listing_id = (case when tg_op = 'DELETE' then old.listing_id else new.listing_id end);
  if tg_op = 'UPDATE' and new.listing_id <> old.listing_id then
    update holiday_home_terms set rules_version = rules_version + 1 where listing_id = old.listing_id;
  end if;
  return null;
end;
$$;
create trigger calendar_blocks_rules after insert or update or delete on calendar_blocks
  for each row execute function bump_rules_version();
create trigger seasons_rules after insert or update or delete on holiday_home_seasons
  for each row execute function bump_rules_version();

create function bump_own_rules_version() returns trigger language plpgsql as $$
begin
  new.rules_version := old.rules_version + 1;
  return new;
end;
$$;
create trigger terms_rules before update on holiday_home_terms
  for each row
  when ((to_jsonb(old) - 'calendar_version' - 'rules_version') is distinct from (to_jsonb(new) - 'calendar_version' - 'rules_version'))
  execute function bump_own_rules_version();
