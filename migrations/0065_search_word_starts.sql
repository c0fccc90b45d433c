-- A word few listings hold, found by the trigram index that narrows to them (issue 36, "A rare word at 100,000
-- listings"; docs/performance.md).
--
-- A query word's condition (lib/listing-search.ts `searchConditions`) was `search_text ~ pattern`, which two indexes
-- can serve: this GIN index of trigrams (migration 0050), and the GiST index of migration 0052 that returns listings
-- nearest first. For a word the planner expects few listings to hold (a listing's number), it chose a bitmap scan of
-- the GiST index, costed as if it read a few pages: its inner pages' trigram signatures are saturated, so it read all
-- of them (5,000 pages, 100-400 ms at 100,000 listings), where the GIN index finds the same candidates in under a
-- millisecond. The condition is now on the text after a space, `' ' || search_text` (the same matches: the pattern
-- finds a word at the text's start or after a space, and none of its words starts with a space), which only this
-- index serves: a rare word is found by it, then scored and sorted; a common one still by the nearest-neighbour scan
-- of the GiST index, which tests the pattern on each listing it returns, nearest first. Replaces migration 0050's
-- index of the same trigrams on `search_text` (no statement's condition is on `search_text` alone any more).
create index listings_search_text_spaced on listings using gin ((' ' || search_text) gin_trgm_ops);

drop index listings_search_text;

-- The planner's estimate of a word's listings is read from this expression's statistics, gathered with the index's.
analyze listings;
