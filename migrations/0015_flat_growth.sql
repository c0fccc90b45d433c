-- Flat growth at 100,000 listings (issue 14): indexes for every public sort's full order and for every foreign
-- key, published-listing counts kept by the database instead of aggregated per read, and the catalogue-version
-- bump once per statement instead of once per row.

-- The newest order (published_at desc, id desc) across all types, which `listings_published` (per type) cannot
-- give in one scan; read backwards it is the sitemap's order (published_at, id), and the included columns let
-- the sitemap read only the index.
create index listings_newest on listings (company_id, published_at desc, id desc)
  include (slug_en, slug_ar, listing_type, updated_at) where status = 'published';

-- Foreign keys: deleting or re-keying a parent row, and every join from a parent to its children, use these.
create index activities_contact_id_fk on activities (contact_id);
create index activities_lead_id_fk on activities (lead_id);
create index activities_member_id_fk on activities (member_id);
create index areas_parent_id_fk on areas (parent_id);
create index bookings_listing_id_fk on bookings (listing_id);
create index calendar_blocks_company_id_fk on calendar_blocks (company_id);
create index calendar_blocks_job_id_fk on calendar_blocks (job_id);
create index deals_company_id_department_key_fk on deals (company_id, department_key);
create index deals_handler_id_fk on deals (handler_id);
create index deals_lead_id_fk on deals (lead_id);
create index deals_listing_id_fk on deals (listing_id);
create index deals_owner_id_fk on deals (owner_id);
create index deals_pipeline_id_fk on deals (pipeline_id);
create index deals_stage_id_pipeline_id_fk on deals (stage_id, pipeline_id);
create index inspections_inspector_id_fk on inspections (inspector_id);
create index inspections_lease_id_fk on inspections (lease_id);
create index inspections_listing_id_fk on inspections (listing_id);
create index job_charges_booked_owner_id_fk on job_charges (booked_owner_id);
create index jobs_contractor_id_fk on jobs (contractor_id);
create index jobs_lease_id_fk on jobs (lease_id);
create index jobs_member_id_fk on jobs (member_id);
create index leads_assignee_id_fk on leads (assignee_id);
create index leads_company_id_department_key_fk on leads (company_id, department_key);
create index leads_listing_id_fk on leads (listing_id);
create index lease_notices_company_id_fk on lease_notices (company_id);
create index leases_handler_id_fk on leases (handler_id);
create index leases_listing_id_fk on leases (listing_id);
create index leases_renews_id_fk on leases (renews_id);
create index listings_area_id_fk on listings (area_id);
create index listings_city_id_fk on listings (city_id);
create index listings_from_lead_id_fk on listings (from_lead_id);
create index listings_project_id_fk on listings (project_id);
create index maintenance_homes_company_id_fk on maintenance_homes (company_id);
create index maintenance_homes_owner_id_fk on maintenance_homes (owner_id);
create index members_company_id_department_key_fk on members (company_id, department_key);
create index pipeline_stages_company_id_fk on pipeline_stages (company_id);
create index rent_payments_replaces_id_fk on rent_payments (replaces_id);
create index tasks_assignee_id_fk on tasks (assignee_id);
create index tasks_contact_id_fk on tasks (contact_id);
create index tasks_lead_id_fk on tasks (lead_id);
create index viewings_listing_id_fk on viewings (listing_id);
create index viewings_shown_by_fk on viewings (shown_by);
create index webhook_deliveries_company_id_fk on webhook_deliveries (company_id);

-- Published listings counted per company and type, in total and per filter value (property type, bedrooms,
-- completion, city, area, project): what GET /areas and GET /filters show, read in one small indexed query.
-- Kept by the statement-level triggers below in the writing transaction, so no write path can forget them.
create table catalogue_counts (
  company_id uuid not null references companies (id) on delete cascade,
  listing_type text not null,
  dimension text not null check (dimension in ('total', 'property_type', 'bedrooms', 'completion', 'city', 'area', 'project')),
  value text not null,
  n bigint not null,
  primary key (company_id, listing_type, dimension, value)
);

-- The counted keys of a set of listing rows (a query of company_id, listing_type, … and d, +1 or −1 per row).
create function catalogue_count_keys(rows_sql text) returns text language sql immutable as $$
  select format($q$
    select r.company_id, r.listing_type, k.dimension, k.value, sum(r.d) as d
      from (%s) r
      cross join lateral (values ('total', ''), ('property_type', r.property_type), ('bedrooms', r.bedrooms::text),
                                 ('completion', r.completion), ('city', r.city_id::text), ('area', r.area_id::text),
                                 ('project', r.project_id::text)) k(dimension, value)
     where r.status = 'published' and k.value is not null
     group by 1, 2, 3, 4$q$, rows_sql)
$$;

create function count_published_listings() returns trigger language plpgsql as $$
declare
  sides text[] := case TG_OP when 'INSERT' then array['new_rows'] when 'DELETE' then array['old_rows']
                  else array['new_rows', 'old_rows'] end;
  changed text;
begin
  -- Transition tables are visible to dynamic SQL run by the trigger function itself.
  changed := array_to_string(array(
    select format('select company_id, listing_type, status, property_type, bedrooms, completion, city_id, area_id,
                          project_id, %s as d from %I', case s when 'new_rows' then 1 else -1 end, s)
      from unnest(sides) s), ' union all ');
  -- Keys in one order, so concurrent writers lock count rows in the same order; a company being deleted
  -- (its listings going by cascade) is left out.
  execute format($q$
    insert into catalogue_counts (company_id, listing_type, dimension, value, n)
    select c.company_id, c.listing_type, c.dimension, c.value, c.d
      from (%s) c
     where c.d <> 0 and exists (select 1 from companies co where co.id = c.company_id)
     order by 1, 2, 3, 4
    on conflict (company_id, listing_type, dimension, value) do update set n = catalogue_counts.n + excluded.n$q$,
    catalogue_count_keys(changed));
  return null;
end;
$$;

create trigger listings_counts_insert after insert on listings
  referencing new table as new_rows for each statement execute function count_published_listings();
create trigger listings_counts_update after update on listings
  referencing old table as old_rows new table as new_rows for each statement execute function count_published_listings();
create trigger listings_counts_delete after delete on listings
  referencing old table as old_rows for each statement execute function count_published_listings();

-- The counts of the listings already there.
do $$
begin
  execute format('insert into catalogue_counts (company_id, listing_type, dimension, value, n) select * from (%s) c',
                 catalogue_count_keys('select *, 1 as d from listings'));
end;
$$;

-- The catalogue version (0003) bumped once per statement and company instead of once per row: an import of
-- 100,000 listings updated the company's row 100,000 times in its transaction. Still an UPDATE of
-- companies.catalogue_version, so triggers on companies (and the ETags) see every change as before.
create or replace function bump_catalogue_version() returns trigger language plpgsql as $$
declare
  sides text[] := case TG_OP when 'INSERT' then array['new_rows'] when 'DELETE' then array['old_rows']
                  else array['new_rows', 'old_rows'] end;
  company_of text := case TG_TABLE_NAME when 'listing_photos'
                     then '(select l.company_id from listings l where l.id = r.listing_id)' else 'r.company_id' end;
begin
  execute format('update companies set catalogue_version = catalogue_version + 1 where id in (%s)',
                 array_to_string(array(select format('select %s from %I r', company_of, s) from unnest(sides) s), ' union '));
  return null;
end;
$$;

drop trigger listings_catalogue_version on listings;
drop trigger listing_photos_catalogue_version on listing_photos;
drop trigger areas_catalogue_version on areas;
drop trigger property_types_catalogue_version on property_types;
drop trigger team_profiles_catalogue_version on team_profiles;
drop trigger services_catalogue_version on services;

create trigger listings_version_insert after insert on listings
  referencing new table as new_rows for each statement execute function bump_catalogue_version();
create trigger listings_version_update after update on listings
  referencing old table as old_rows new table as new_rows for each statement execute function bump_catalogue_version();
create trigger listings_version_delete after delete on listings
  referencing old table as old_rows for each statement execute function bump_catalogue_version();
create trigger listing_photos_version_insert after insert on listing_photos
  referencing new table as new_rows for each statement execute function bump_catalogue_version();
create trigger listing_photos_version_update after update on listing_photos
  referencing old table as old_rows new table as new_rows for each statement execute function bump_catalogue_version();
create trigger listing_photos_version_delete after delete on listing_photos
  referencing old table as old_rows for each statement execute function bump_catalogue_version();
create trigger areas_version_insert after insert on areas
  referencing new table as new_rows for each statement execute function bump_catalogue_version();
create trigger areas_version_update after update on areas
  referencing old table as old_rows new table as new_rows for each statement execute function bump_catalogue_version();
create trigger areas_version_delete after delete on areas
  referencing old table as old_rows for each statement execute function bump_catalogue_version();
create trigger property_types_version_insert after insert on property_types
  referencing new table as new_rows for each statement execute function bump_catalogue_version();
create trigger property_types_version_update after update on property_types
  referencing old table as old_rows new table as new_rows for each statement execute function bump_catalogue_version();
create trigger property_types_version_delete after delete on property_types
  referencing old table as old_rows for each statement execute function bump_catalogue_version();
create trigger team_profiles_version_insert after insert on team_profiles
  referencing new table as new_rows for each statement execute function bump_catalogue_version();
create trigger team_profiles_version_update after update on team_profiles
  referencing old table as old_rows new table as new_rows for each statement execute function bump_catalogue_version();
create trigger team_profiles_version_delete after delete on team_profiles
  referencing old table as old_rows for each statement execute function bump_catalogue_version();
create trigger services_version_insert after insert on services
  referencing new table as new_rows for each statement execute function bump_catalogue_version();
create trigger services_version_update after update on services
  referencing old table as old_rows new table as new_rows for each statement execute function bump_catalogue_version();
create trigger services_version_delete after delete on services
  referencing old table as old_rows for each statement execute function bump_catalogue_version();
