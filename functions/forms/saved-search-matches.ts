import { type RawBuilder, sql } from 'kysely';
import { todayIn } from '../../lib/dates';
import type { Db } from '../../lib/db/index';
import { eventsCtes } from '../../lib/events';
import { applyFilters, type ListingFilters, publishedListings } from '../../lib/listing-filters';
import { queryWords } from '../../lib/search-text';
import { type FreeDatesAsk, freeStayQuote, homesFacts, withinTotal } from '../../lib/stay/quote';
import type { Company } from '../../schema/platform/db';
import { type ParsedSearch, parseSearch } from './saved-searches';

/**
 * The saved searches' scheduled work (issue 36; docs/api-reference.md, "Saved searches"): each confirmed search is
 * compared with the catalogue at most every {@link recheckMinutes} minutes, by the same filters `GET /listings` applies
 * (lib/listing-filters.ts; with dates, the one calendar rule of lib/stay/quote.ts). A listing it finds that it never
 * found before is recorded once (`saved_search_matches`, keyed by search and listing) and announced with
 * `saved_search.matched`; at the first check, what already matches is recorded without an event (the visitor saw it
 * when they saved the search). A listing that stops matching and matches again is not announced twice.
 */

/** How often a search is compared at most. */
export const recheckMinutes = 5;
/** Searches read per batch. */
const batchSize = 50;
/** Listings announced per search and check at most; the rest at its next check. */
export const announcedPerCheck = 100;
/** Holiday homes whose calendars are read per statement, for a search with dates. */
const homesPerRead = 200;

type DueSearch = { id: string; company_id: string; search: string; checked_at: Date | null; contact_reference: string };

/** The active searches, with what a check reads of each. */
const activeSearches = (db: Db) =>
  db
    .selectFrom('saved_searches as s')
    .innerJoin('contacts as c', 'c.id', 's.contact_id')
    .select(['s.id', 's.company_id', 's.search', 's.checked_at', 'c.reference as contact_reference'])
    .where('s.status', '=', 'active');

/** The searches due for a check: active, not checked in the last {@link recheckMinutes} minutes, oldest check first. */
function dueSearches(db: Db, now: Date): Promise<DueSearch[]> {
  return activeSearches(db)
    .where((eb) =>
      eb.or([eb('s.checked_at', 'is', null), eb('s.checked_at', '<=', new Date(now.getTime() - recheckMinutes * 60_000))]),
    )
    .orderBy(sql`s.checked_at nulls first`)
    .orderBy('s.id')
    .limit(batchSize)
    .execute();
}

/** The filters of a saved search as the list's statement takes them (pages.ts does the same for a page). */
function filtersOf(parsed: ParsedSearch): { sql: ListingFilters; ask?: FreeDatesAsk } {
  const { q, check_in, check_out, guests, ...filters } = parsed.filters;
  const words = q === undefined ? [] : queryWords(q);
  if (check_in === undefined || check_out === undefined) return { sql: { ...filters, words } };
  const ask = {
    checkIn: check_in,
    checkOut: check_out,
    guests: guests ?? 1,
    total: { min: filters.price_min, max: filters.price_max },
  };
  return { sql: { ...filters, words, type: 'holiday_home', price_min: undefined, price_max: undefined }, ask };
}

/**
 * Records what `found` (a query of `listing_id`s) gives that the search has not found before, announces it when the
 * search was checked before, and stamps the check: one statement. Nothing is recorded once the search is stopped.
 */
async function record(db: Db, search: DueSearch, found: RawBuilder<unknown>, now: Date): Promise<number> {
  const announce = search.checked_at !== null;
  const { rows } = await sql<{ n: string }>`
    with found as (${found}),
    fresh as (
      select f.listing_id from found f
      where exists (select from saved_searches s where s.id = ${search.id}::uuid and s.status = 'active')
        and not exists (select from saved_search_matches m where m.saved_search_id = ${search.id}::uuid and m.listing_id = f.listing_id)
      order by f.listing_id
      ${announce ? sql`limit ${announcedPerCheck}` : sql``}
    ),
    added as (
      insert into saved_search_matches (saved_search_id, listing_id, company_id, matched_at, announced)
      select ${search.id}::uuid, f.listing_id, ${search.company_id}::uuid, ${now.toISOString()}::timestamptz, ${announce}
      from fresh f
      on conflict do nothing
      returning listing_id
    ),
    ${eventsCtes(
      'matched',
      { companyId: search.company_id, type: 'saved_search.matched', causedBy: 'system' },
      sql`select 'evt_' || replace(gen_random_uuid()::text, '-', '') as id,
          jsonb_build_object('saved_search_id', ${search.id}::text, 'contact_reference', ${search.contact_reference}::text,
            'listing_id', a.listing_id) as data
        from added a where ${announce}`,
    )},
    checked as (
      update saved_searches set checked_at = ${now.toISOString()}::timestamptz
      where id = ${search.id}::uuid and status = 'active'
      returning 1
    )
    select count(*) as n from added where ${announce}`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

/** The ids a dated search finds: of the homes its filters find (and it has not found before), those free for its stay. */
async function freeHomes(db: Db, company: Company, search: DueSearch, filters: ListingFilters, ask: FreeDatesAsk, now: Date) {
  // A stay that began already (in the company's time zone) can never be free again.
  if (ask.checkIn < todayIn(company.time_zone, now)) return [];
  const candidates = await applyFilters(publishedListings(db, company), company, filters)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('saved_search_matches as m')
            .whereRef('m.listing_id', '=', 'l.id')
            .where('m.saved_search_id', '=', search.id),
        ),
      ),
    )
    .select('l.id')
    .orderBy('l.id')
    .execute();
  const free: string[] = [];
  for (let start = 0; start < candidates.length; start += homesPerRead) {
    const ids = candidates.slice(start, start + homesPerRead).map((row) => row.id);
    const facts = await homesFacts(db, company, ids, ask, now);
    for (const id of ids) {
      const home = facts.get(id);
      const quote = home && freeStayQuote(company, home, ask, now);
      if (quote && withinTotal(quote, ask.total)) free.push(id);
    }
  }
  return free;
}

/** Compares one search with the catalogue: how many listings it announced. */
async function checkSearch(db: Db, company: Company, search: DueSearch, now: Date): Promise<number> {
  let parsed: ParsedSearch;
  try {
    parsed = parseSearch(search.search);
  } catch {
    // A search kept before a filter's rules changed finds nothing now: it is stamped, never retried in a loop.
    return record(db, search, sql`select null::uuid as listing_id where false`, now);
  }
  const { sql: filters, ask } = filtersOf(parsed);
  if (ask) {
    const ids = await freeHomes(db, company, search, filters, ask, now);
    return record(db, search, sql`select unnest(${ids}::uuid[]) as listing_id`, now);
  }
  const query = applyFilters(publishedListings(db, company), company, filters).select('l.id as listing_id');
  return record(db, search, sql`${query}`, now);
}

/** The scheduled work: every due search checked, batch by batch; answers how many matches it announced. */
export async function matchSavedSearches(db: Db, now: Date): Promise<number> {
  let announced = 0;
  for (;;) {
    const due = await dueSearches(db, now);
    if (due.length === 0) return announced;
    const companyIds = [...new Set(due.map((search) => search.company_id))];
    const companies = new Map(
      (await db.selectFrom('companies').selectAll().where('id', 'in', companyIds).execute()).map((row) => [row.id, row]),
    );
    for (const search of due) {
      const company = companies.get(search.company_id);
      if (company) announced += await checkSearch(db, company, search, now);
    }
  }
}

/**
 * One active search of the company compared with the catalogue now, due or not (the test events' fixture,
 * functions/triggers-scheduled.ts): how many listings it announced (none for a search not active).
 */
export async function checkSavedSearch(db: Db, company: Company, searchId: string, now: Date): Promise<number> {
  const search = await activeSearches(db).where('s.company_id', '=', company.id).where('s.id', '=', searchId).executeTakeFirst();
  return search ? checkSearch(db, company, search, now) : 0;
}
