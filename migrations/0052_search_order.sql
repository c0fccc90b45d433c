-- Relevance that stays fast as a catalogue grows (issue 36; docs/api-reference.md, "Search", "Relevance").
--
-- `sort=relevance` orders by pg_trgm's word distance of the query in the listing's text (`search_text <->> query`,
-- one minus `word_similarity`), ties by `search_tie`: a number of its own per listing (from a sequence, never
-- reused), so the order is total and the keyset cursor exact. One GiST index over the company, the text's trigrams and
-- the tie serves the whole order as a nearest-neighbour scan (`ORDER BY search_text <->> q, search_tie <-> 0`, btree_gist
-- giving float8 its distance): a page reads its own rows and no others, where ordering by a computed relevance read and
-- scored every listing the words matched (a second at 100,000 listings).
create sequence listings_search_tie as bigint;
alter table listings add column search_tie float8 not null default nextval('listings_search_tie');
alter sequence listings_search_tie owned by listings.search_tie;

create index listings_search_order on listings using gist (company_id, search_text gist_trgm_ops, search_tie);
