-- A per-company catalogue version, bumped by the database on every change to what the public catalogue
-- shows. Catalogue ETags derive from it, so a conditional GET is answered 304 without building the page,
-- and no write path (admin API, import, a later route group, a manual fix) can forget to invalidate.

alter table companies add column catalogue_version bigint not null default 1;

create function bump_catalogue_version() returns trigger language plpgsql as $$
declare
  company uuid;
begin
  -- NEW is unassigned in DELETE triggers, so each branch reads only the record it has.
  if TG_TABLE_NAME = 'listing_photos' and TG_OP = 'DELETE' then
    select l.company_id into company from listings l where l.id = OLD.listing_id;
  elsif TG_TABLE_NAME = 'listing_photos' then
    select l.company_id into company from listings l where l.id = NEW.listing_id;
  elsif TG_OP = 'DELETE' then
    company := OLD.company_id;
  else
    company := NEW.company_id;
  end if;
  if company is not null then
    update companies set catalogue_version = catalogue_version + 1 where id = company;
  end if;
  return null;
end;
$$;

create trigger listings_catalogue_version after insert or update or delete on listings
  for each row execute function bump_catalogue_version();
create trigger listing_photos_catalogue_version after insert or update or delete on listing_photos
  for each row execute function bump_catalogue_version();
create trigger areas_catalogue_version after insert or update or delete on areas
  for each row execute function bump_catalogue_version();
create trigger property_types_catalogue_version after insert or update or delete on property_types
  for each row execute function bump_catalogue_version();
create trigger team_profiles_catalogue_version after insert or update or delete on team_profiles
  for each row execute function bump_catalogue_version();
create trigger services_catalogue_version after insert or update or delete on services
  for each row execute function bump_catalogue_version();

-- Settings and the currency change how listings are shown (hidden prices, paths, enabled types, …).
create function bump_catalogue_version_on_settings() returns trigger language plpgsql as $$
begin
  if NEW.settings is distinct from OLD.settings or NEW.currency is distinct from OLD.currency then
    NEW.catalogue_version := OLD.catalogue_version + 1;
  end if;
  return NEW;
end;
$$;

create trigger companies_catalogue_version before update on companies
  for each row execute function bump_catalogue_version_on_settings();
