-- Announces every change to a company or to its hosts on the channel `company_changed` (payload: the
-- company's id), so a Node process can keep Host → company rows, with the catalogue version the catalogue's
-- ETags carry, in memory and drop them when they change (lib/company-cache.ts). Every catalogue change
-- already updates companies.catalogue_version (migration 0003), so it is announced too. Notifications are
-- sent at commit, and identical ones of one transaction are sent once.

create function notify_company_changed() returns trigger language plpgsql as $$
begin
  if TG_TABLE_NAME = 'companies' then
    perform pg_notify('company_changed', OLD.id::text);
  else
    if TG_OP <> 'INSERT' then
      perform pg_notify('company_changed', OLD.company_id::text);
    end if;
    if TG_OP <> 'DELETE' then
      perform pg_notify('company_changed', NEW.company_id::text);
    end if;
  end if;
  return null;
end;
$$;

create trigger companies_notify_changed after update on companies
  for each row when (OLD.* is distinct from NEW.*) execute function notify_company_changed();
create trigger companies_notify_deleted after delete on companies
  for each row execute function notify_company_changed();
create trigger company_hosts_notify_changed after insert or update or delete on company_hosts
  for each row execute function notify_company_changed();
