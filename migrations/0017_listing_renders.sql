-- Render on write (issue 14): each listing's public forms, already serialised as JSON text, so a catalogue page is
-- one indexed query whose rows are concatenated. One row per listing, added by the database with the listing.
--
-- `rendered_for` says what the forms were rendered for: the company's settings and currency that change them and
-- the deployment's media base URL, as a tag the application computes (functions/catalogue/renders.ts). A read
-- uses a form only when the tag is the one it would render for now, so a settings change (by any path) or another
-- MEDIA_BASE_URL needs no trigger: the old forms stop matching and are rendered again, then stored.
--
-- Changes to the listing itself, its photos or its places make the database mark the forms stale in the writing
-- transaction (the triggers below), whoever writes: the catalogue's import and admin routes render them again
-- before they commit, anything else (another group, psql) leaves them to the next read, which renders and stores
-- them. `revision` is bumped by every such change; a read stores what it rendered only if the revision is still
-- the one it read with the listing's rows, so a change committed meanwhile is never overwritten by an older render.

create table listing_renders (
  listing_id uuid primary key references listings (id) on delete cascade,
  revision bigint not null default 0,
  rendered_for text,
  card text,
  detail text,
  map_point text,
  map_cover text,
  sitemap text
);

-- Every existing listing starts stale: the first read renders it (the demo and imports render when they write).
insert into listing_renders (listing_id) select id from listings;

create function add_listing_renders() returns trigger language plpgsql as $$
begin
  insert into listing_renders (listing_id) select id from new_rows on conflict (listing_id) do nothing;
  return null;
end;
$$;

create trigger listings_renders_insert after insert on listings
  referencing new table as new_rows for each statement execute function add_listing_renders();

-- Stale: forms dropped, revision bumped.
create function stale_listing_renders(ids uuid[]) returns void language sql as $$
  update listing_renders
     set revision = revision + 1, rendered_for = null, card = null, detail = null, map_point = null,
         map_cover = null, sitemap = null
   where listing_id = any (ids)
$$;

-- Any update of a listing (a field, its status, a place set to null because the place was deleted, …).
create function stale_renders_of_listings() returns trigger language plpgsql as $$
begin
  perform stale_listing_renders(array(select id from new_rows));
  return null;
end;
$$;

create trigger listings_renders_update after update on listings
  referencing old table as old_rows new table as new_rows for each statement execute function stale_renders_of_listings();

-- Photos added, changed (alt, order, readiness) or removed.
create function stale_renders_of_photos() returns trigger language plpgsql as $$
begin
  if TG_OP = 'INSERT' then
    perform stale_listing_renders(array(select distinct listing_id from new_rows));
  elsif TG_OP = 'DELETE' then
    perform stale_listing_renders(array(select distinct listing_id from old_rows));
  else
    perform stale_listing_renders(array(select listing_id from new_rows union select listing_id from old_rows));
  end if;
  return null;
end;
$$;

create trigger listing_photos_renders_insert after insert on listing_photos
  referencing new table as new_rows for each statement execute function stale_renders_of_photos();
create trigger listing_photos_renders_update after update on listing_photos
  referencing old table as old_rows new table as new_rows for each statement execute function stale_renders_of_photos();
create trigger listing_photos_renders_delete after delete on listing_photos
  referencing old table as old_rows for each statement execute function stale_renders_of_photos();

-- A place renamed or given other slugs: the listings in it as city, area or project. (A deleted place sets the
-- listings' column to null, an update of the listings; a new place has no listings yet.)
create function stale_renders_of_places() returns trigger language plpgsql as $$
begin
  perform stale_listing_renders(array(
    with changed as (
      select n.id from new_rows n join old_rows o on o.id = n.id
       where (n.slug_en, n.slug_ar, n.name) is distinct from (o.slug_en, o.slug_ar, o.name))
    select l.id from listings l where l.city_id in (select id from changed)
    union select l.id from listings l where l.area_id in (select id from changed)
    union select l.id from listings l where l.project_id in (select id from changed)));
  return null;
end;
$$;

create trigger areas_renders_update after update on areas
  referencing old table as old_rows new table as new_rows for each statement execute function stale_renders_of_places();
