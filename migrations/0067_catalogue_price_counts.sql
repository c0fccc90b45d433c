-- Facets of the whole catalogue from kept counts (issue 36, "Facets"; docs/api-reference.md, "Facets").
--
-- `facets=type,area,bedrooms,price` counts the listings a request's filters keep, in the page's statement. Without a
-- filter but the type, those are every published listing of the company: at 100,000 listings the counts read all of
-- them (140 ms, 24-35 times the page without). The type, area and bedrooms counts of that case are kept already
-- (`catalogue_counts`, migration 0015); this keeps the published listings per company, type and price, so the price
-- bands (set per company, and changed at will) are counted from a row per distinct price (9,000 rows at 100,000 grown
-- listings) instead of a row per listing. Kept by the same statement-level triggers, in the writing transaction.
create table catalogue_price_counts (
  company_id uuid not null references companies (id) on delete cascade,
  listing_type text not null,
  price numeric(16, 4) not null,
  n bigint not null,
  primary key (company_id, listing_type, price)
);

create or replace function count_published_listings() returns trigger language plpgsql as $$
declare
  sides text[] := case TG_OP when 'INSERT' then array['new_rows'] when 'DELETE' then array['old_rows']
                  else array['new_rows', 'old_rows'] end;
  changed text;
begin
  -- Transition tables are visible to dynamic SQL run by the trigger function itself.
  changed := array_to_string(array(
    select format('select company_id, listing_type, status, property_type, bedrooms, completion, city_id, area_id,
                          project_id, price, %s as d from %I', case s when 'new_rows' then 1 else -1 end, s)
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
  execute format($q$
    insert into catalogue_price_counts (company_id, listing_type, price, n)
    select c.company_id, c.listing_type, c.price, c.d
      from (select r.company_id, r.listing_type, r.price, sum(r.d) as d from (%s) r
             where r.status = 'published' and r.price is not null group by 1, 2, 3) c
     where c.d <> 0 and exists (select 1 from companies co where co.id = c.company_id)
     order by 1, 2, 3
    on conflict (company_id, listing_type, price) do update set n = catalogue_price_counts.n + excluded.n$q$,
    changed);
  return null;
end;
$$;

insert into catalogue_price_counts (company_id, listing_type, price, n)
select company_id, listing_type, price, count(*)
  from listings
 where status = 'published' and price is not null
 group by 1, 2, 3;
