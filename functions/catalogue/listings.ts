import { type SelectQueryBuilder, sql } from 'kysely';
import type { Executor } from '../../lib/db/index';
import type { PublishedQuery } from '../../lib/listing-filters';
import { catalogueHoldsWords, holdsWholeWords, measuredWords, searchDistanceTo, searchTie } from '../../lib/listing-search';
import { listingSelection } from '../../lib/listings';
import { decodeCursor, type KeysetSort } from '../../lib/pagination';
import type { ListingRecord } from './listings.present';

export const listingSorts = {
  featured: {
    name: 'featured',
    columns: [
      { ref: 'l.featured', direction: 'desc', type: 'bool' },
      { ref: 'l.published_at', direction: 'desc', type: 'timestamptz' },
      { ref: 'l.id', direction: 'desc', type: 'uuid' },
    ],
  },
  newest: {
    name: 'newest',
    columns: [
      { ref: 'l.published_at', direction: 'desc', type: 'timestamptz' },
      { ref: 'l.id', direction: 'desc', type: 'uuid' },
    ],
  },
  sort_order: {
    name: 'sort_order',
    columns: [
      { ref: 'l.sort_order', direction: 'asc', type: 'int' },
      { ref: 'l.id', direction: 'asc', type: 'uuid' },
    ],
  },
} as const satisfies Record<string, KeysetSort>;

/** A short digest of a query's words, in its cursor: a cursor of one query is refused by another. */
function wordsDigest(words: readonly string[]): string {
  let hash = 0x811c9dc5;
  for (const char of words.join(' ')) {
    hash ^= char.codePointAt(0) ?? 0;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/** The start of the relevance order's name (its cursor's first value): the query's words' digest follows. */
export const relevanceName = 'relevance:';

/**
 * Relevance's key for a listing past the first tier: its distance, but never 0 (pg_trgm's smallest distance above 0 is
 * one over the query's trigrams, far above it), so that 0 is the first tier's alone.
 */
const pastFirstTier = sql`1e-6::real`;

/**
 * Best match first: the listings holding every word whole (lib/listing-search.ts `holdsWholeWords`), key 0, in their
 * `search_tie`'s order; then the rest, key their distance from the measured words (`searchDistanceTo`, at least
 * {@link pastFirstTier}), ties by the `search_tie`. A keyset over (key, tie), as {@link relevanceRows} reads it.
 */
export function relevanceSort(words: readonly string[]): KeysetSort {
  return {
    name: `${relevanceName}${wordsDigest(words)}`,
    columns: [
      { ref: 'distance', direction: 'asc', type: 'real' },
      { ref: 'tie', direction: 'asc', type: 'float' },
    ],
  };
}

// biome-ignore lint/suspicious/noExplicitAny: a page of listings `l`, whatever it joins and selects
type ListingsSelect = SelectQueryBuilder<any, any, any>;

/**
 * The words queries were measured as lately ({@link measuredKept}), by company and query: a misspelt or partial word's
 * page then reads its first tier at once. Kept {@link measuredFor} ms, at most {@link mostMeasured} queries (all
 * forgotten past it). A word that enters the catalogue meanwhile changes the order of that query's results for at most
 * that long, never which listings it finds (a measured word is one the typed word's pattern finds).
 */
const measuredKept = new Map<string, { measured: string[]; until: number }>();
const measuredFor = 60_000;
const mostMeasured = 1_000;

function keepMeasured(key: string, measured: string[], now: number): string[] {
  if (measuredKept.size >= mostMeasured) measuredKept.clear();
  measuredKept.set(key, { measured, until: now + measuredFor });
  return measured;
}

/** The rows of a page (with their keys `_k0` and `_k1`), as a caller runs a page's statement. */
type RunPage = <R extends { id: string | null }>(statement: ListingsSelect) => Promise<R[]>;

/**
 * `page_size` rows and one more of `query.searched` (listings `l`, filtered by the words, with what the page selects) in
 * the relevance order of {@link relevanceSort}, from the cursor, with their keys as `_k0` and `_k1` (lib/pagination.ts
 * `pageOf`). Each part is its own statement, planned for its words, read only when the page needs it:
 *
 * 1. the first tier, the listings holding every word whole (`query.whole`: the filters without the words' own
 *    conditions, which holding them whole implies), in the tie's order: through the B-tree of migration 0066 (a common
 *    word is held by one listing in a few, so a page reads a few times its own rows), or for a word few listings
 *    hold through the text's trigram index and a sort (the planner chooses by the word's statistics);
 * 2. when it finds none, the words the query is measured as (a misspelt or partial word stands for the catalogue's
 *    word: lib/listing-search.ts `measuredWords`), and the first tier of those when they differ from the words typed;
 *    the measured words are kept a minute ({@link measuredKept}), so the same query's next page or next visitor reads
 *    the first tier of the measured words at once;
 * 3. when the page is still short, the rest, nearest first (the nearest-neighbour scan of migration 0052, which scores
 *    each row it returns with pg_trgm's word distance: 60-80 microseconds a row at 100,000 listings).
 *
 * A page of a common word is one statement; its first tier reads no distance at all.
 */
export async function relevanceRows(
  db: Executor,
  query: { searched: ListingsSelect; whole: ListingsSelect },
  words: readonly string[],
  companyId: string,
  page: { page_size: number; cursor?: string; now: Date },
  run: RunPage,
): Promise<Array<{ id: string | null }>> {
  const size = page.page_size + 1;
  const [after, tie] = page.cursor ? (decodeCursor(relevanceSort(words), page.cursor) as [string, string]) : [];
  const firstTier = (held: readonly string[]) => {
    const first = query.whole
      .select([sql<string>`'0'`.as('_k0'), sql<string>`${searchTie}::text`.as('_k1')])
      .where(catalogueHoldsWords(companyId, held))
      .where(holdsWholeWords(held))
      .orderBy(sql`l.search_tie`)
      .limit(size);
    return run(tie === undefined ? first : first.where(sql<boolean>`l.search_tie > ${tie}::float8`));
  };
  const now = page.now.getTime();
  const asked = `${companyId} ${words.join(' ')}`;
  const kept = measuredKept.get(asked);
  // A cursor past the first tier has a key above 0 (the first tier's is 0).
  const inFirstTier = after === undefined || Number(after) === 0;
  let rows: Array<{ id: string | null }> = [];
  let measured: string[];
  if (kept && kept.until > now) {
    measured = kept.measured;
    if (inFirstTier) rows = await firstTier(measured);
  } else {
    rows = inFirstTier ? await firstTier(words) : [];
    // Some listing holds every word whole: each is a word of the catalogue, so each is measured as typed.
    measured = keepMeasured(asked, inFirstTier && rows.length > 0 ? [...words] : await measuredWords(db, companyId, words), now);
    if (inFirstTier && rows.length === 0 && measured.some((m, i) => m !== words[i])) rows = await firstTier(measured);
  }
  if (rows.length === size) return rows;
  const distance = searchDistanceTo(measured);
  const key = sql`greatest(${distance}, ${pastFirstTier})`;
  const rest = query.searched
    .select([sql<string>`(${key})::text`.as('_k0'), sql<string>`${searchTie}::text`.as('_k1')])
    .where(sql<boolean>`not ${holdsWholeWords(measured)}`)
    .orderBy(distance)
    .orderBy(searchTie)
    .limit(size - rows.length);
  const from = inFirstTier ? rest : rest.where(sql<boolean>`(${key}, ${searchTie}) > (${after}::real, ${tie}::float8)`);
  return [...rows, ...(await run(from))];
}

/**
 * Selects everything the presenter needs in the same query: the listing select the portals share (lib/listings.ts),
 * and what only the catalogue shows.
 */
export function selectListingRecord(query: PublishedQuery, options: { description: boolean; photos: 'all' | 'first' | 'none' }) {
  return query.select((eb) => [
    ...listingSelection(eb, options),
    'l.slug_en',
    'l.slug_ar',
    'l.max_guests',
    'l.featured',
    'l.location_precision',
    'l.published_at',
    'l.permit_expires_on',
    'l.permit_expired',
  ]);
}

export type SelectedListing = ListingRecord & Record<string, unknown>;
