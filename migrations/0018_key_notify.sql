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
