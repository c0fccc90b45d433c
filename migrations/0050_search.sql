-- Words search of listings (issue 36, first slice; docs/api-reference.md, "Search").
--
-- * `listings.search_text`: the listing's searchable text (its titles, descriptions and slugs in both languages, and
--   the names and slugs of its city, area and project), normalised by lib/search-text.ts `normaliseSearch` — the one
--   normalisation, used for the query too. Written from TypeScript by every writer of a listing (the catalogue import,
--   the forms' draft listings) in the listing's own statement. Null means "not yet written": lib/listing-search.ts
--   `fillSearchText` writes every such row, run after migrations are applied (so this migration's back-fill happens at
--   the first start after it) and at the end of each catalogue import. A listing with a null text is not found by `q`.
-- * A place renamed (or given other slugs) makes the text of its listings stale: the trigger below sets it to null in
--   the renaming statement, and the import that renamed it writes them again before it commits.
-- * pg_trgm (PostgreSQL's contrib, shipped by PGlite as `@electric-sql/pglite/contrib/pg_trgm` and by Neon): a GIN index
--   of the text's trigrams serves the word patterns (`~`) and the similarity that orders by relevance.

create extension if not exists pg_trgm;

alter table listings add column search_text text;

create index listings_search_text on listings using gin (search_text gin_trgm_ops);

create function stale_search_text_of_places() returns trigger language plpgsql as $$
begin
  with changed as (
    select n.id from new_rows n join old_rows o on o.id = n.id
     where (n.slug_en, n.slug_ar, n.name) is distinct from (o.slug_en, o.slug_ar, o.name))
  update listings l set search_text = null
   where l.search_text is not null
     and (l.city_id in (select id from changed)
       or l.area_id in (select id from changed)
       or l.project_id in (select id from changed));
  return null;
end;
$$;

create trigger areas_search_text_update after update on areas
  referencing old table as old_rows new table as new_rows for each statement execute function stale_search_text_of_places();

-- People's names searched by staff (`q` on /contacts, /leads, /deals): `contacts.search_name`, the name's words
-- normalised by lib/search-text.ts with the common spellings of a name (lib/person-search.ts `personSearchName`).
-- Contacts keep their name, email and phone as plain columns (only a lead's details are encrypted), so this is no new
-- kind of secret; erasure empties it with the name. Written from TypeScript when a search reads it
-- (`fillContactSearch`, for the rows whose name changed since): a change of the name empties it here, in the writing
-- statement, whoever writes; an update of nothing but `search_name` moves neither `updated_at` nor `version` (the
-- person's answer did not change, so a sync client is sent nothing and an If-Match stays valid).
alter table contacts add column search_name text;

create index contacts_search_name on contacts using gin (search_name gin_trgm_ops);
create index contacts_search_stale on contacts (company_id) where search_name is null and name is not null and not erased;

create function stale_contact_search_name() returns trigger language plpgsql as $$
begin
  if new.name is distinct from old.name and new.search_name is not distinct from old.search_name then
    new.search_name := null;
  end if;
  return new;
end;
$$;

create trigger contacts_search_name before update on contacts for each row execute function stale_contact_search_name();

drop trigger contacts_touch on contacts;
create trigger contacts_touch before update on contacts for each row
  when ((to_jsonb(old) - 'search_name') is distinct from (to_jsonb(new) - 'search_name'))
  execute function touch_updated_at();
drop trigger contacts_version on contacts;
create trigger contacts_version before update on contacts for each row
  when ((to_jsonb(old) - 'search_name') is distinct from (to_jsonb(new) - 'search_name'))
  execute function bump_version();
