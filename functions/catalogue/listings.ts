import type { PublishedQuery } from '../../lib/listing-filters';
import { searchDistance, searchTie } from '../../lib/listing-search';
import { listingSelection } from '../../lib/listings';
import type { KeysetSort } from '../../lib/pagination';
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

/**
 * Best match first (lib/listing-search.ts `searchDistance`), ties by the listing's `search_tie`: a keyset over
 * expressions of the query that the GiST index of migration 0052 returns in order.
 */
export function relevanceSort(words: readonly string[], companyId: string): KeysetSort {
  return {
    name: `relevance:${wordsDigest(words)}`,
    columns: [
      { ref: 'distance', direction: 'asc', type: 'real', expression: searchDistance(words, companyId) },
      { ref: 'tie', direction: 'asc', type: 'float', expression: searchTie },
    ],
  };
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
