-- The words of the published listings' search text, per company (issue 36, "Stays fast as it grows";
-- docs/api-reference.md, "Search", "Words one letter off").
--
-- `listing_search_words` holds every word (its first 200 characters: a query has no longer word) that the search text
-- of a published listing of the company holds or held. A query word is looked up here first, by the index of the
-- words' trigrams (a pattern anchored at the word's start, lib/listing-search.ts): that answers, in a fraction of a
-- millisecond at any size of catalogue, whether any listing can hold the word at all (when none can, the page is empty
-- without reading listings) and which word of the catalogue a word one letter off stands for (the relevance order
-- measures the distance to that word: the nearest-neighbour scan then starts at listings at distance 0, where the
-- misspelt word, which no listing holds, made it read most of the index).
--
-- Written by the triggers below in the writing statement, whoever writes (the import, the forms, a manual fix).
-- Words are never removed when a listing changes or leaves (docs/api-reference.md says what such a word costs).
-- Only published listings' words (the public search reads nothing else), so a draft's words are never here.
create table listing_search_words (
  company_id uuid not null references companies (id),
  word text collate "C" not null,
  primary key (company_id, word)
);

create index listing_search_words_trigrams on listing_search_words using gin (word gin_trgm_ops);

create function add_listing_search_words() returns trigger language plpgsql as $$
begin
  insert into listing_search_words (company_id, word)
  select distinct n.company_id, left(w, 200)
    from new_rows n cross join lateral unnest(string_to_array(n.search_text, ' ')) w
   where n.status = 'published' and n.search_text is not null and w <> ''
  on conflict do nothing;
  return null;
end;
$$;

create trigger listings_search_words_insert after insert on listings
  referencing new table as new_rows for each statement execute function add_listing_search_words();

create function add_listing_search_words_of_update() returns trigger language plpgsql as $$
begin
  insert into listing_search_words (company_id, word)
  select distinct n.company_id, left(w, 200)
    from new_rows n join old_rows o on o.id = n.id
    cross join lateral unnest(string_to_array(n.search_text, ' ')) w
   where n.status = 'published' and n.search_text is not null and w <> ''
     and (o.status is distinct from 'published' or o.search_text is distinct from n.search_text)
  on conflict do nothing;
  return null;
end;
$$;

create trigger listings_search_words_update after update on listings
  referencing old table as old_rows new table as new_rows for each statement
  execute function add_listing_search_words_of_update();

insert into listing_search_words (company_id, word)
select distinct l.company_id, left(w, 200)
  from listings l cross join lateral unnest(string_to_array(l.search_text, ' ')) w
 where l.status = 'published' and l.search_text is not null and w <> ''
on conflict do nothing;

-- The lookups need the words' statistics to be served by the trigram index (without them the planner reads the
-- company's words through the primary key and tests each: 300 ms at 100,000 words); autovacuum keeps them after this.
analyze listing_search_words;
