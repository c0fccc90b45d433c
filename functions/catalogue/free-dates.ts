import Big from 'big.js';
import type { Executor } from '../../lib/db/index';
import { type KeysetSort, pageOf } from '../../lib/pagination';
import { type FreeDatesAsk, freeStayQuote, homesFacts, withinTotal } from '../../lib/stay/quote';

export type { FreeDatesAsk };
import type { Company } from '../../schema/platform/db';

/**
 * The free-dates search of `GET /listings` (issue 36; docs/api-reference.md, "Free dates"): of the listings the other
 * filters find, in the page's order, the holiday homes that take the stay by the one calendar rule a booking request
 * meets (lib/stay/quote.ts: holds, bookings, blocks, turnover, the home's terms), each with its quote. The candidates
 * are read a chunk at a time (the page's keyset query), their facts in one more statement, until the page is full:
 * the cursor is the last home put on the page, so the next page goes on from there and nothing is lost.
 */

/** Candidates read per chunk: a page's worth, at least this many (most homes of a busy week are taken). */
const minimumChunk = 25;

type Candidate = { id: string } & Record<string, unknown>;

/** A home the stay fits: its English slug (the quote's `listing`) and the quote. */
export type FreeHome = { listing: string; quote: NonNullable<ReturnType<typeof freeStayQuote>> };

/**
 * A page of the homes free for `ask` of the candidates `read` gives (the page's query from a cursor, `size` rows and
 * one more), with each one's quote.
 */
export async function freeHomesPage<Row extends Candidate>(
  db: Executor,
  company: Company,
  order: KeysetSort,
  read: (cursor: string | undefined, size: number) => Promise<Row[]>,
  page: { page_size: number; cursor?: string },
  ask: FreeDatesAsk,
  now: Date,
): Promise<{ rows: Row[]; next_cursor: string | null; quotes: Map<string, FreeHome> }> {
  const size = Math.max(page.page_size, minimumChunk);
  const found: Row[] = [];
  const quotes = new Map<string, FreeHome>();
  let cursor = page.cursor;
  for (;;) {
    const rows = await read(cursor, size);
    const chunk = pageOf(rows, order, size);
    const facts = await homesFacts(
      db,
      company,
      chunk.rows.map((row) => row.id),
      ask,
      now,
    );
    for (const [i, row] of chunk.rows.entries()) {
      const home = facts.get(row.id);
      const quote = home && freeStayQuote(company, home, ask, now);
      if (!quote || !withinTotal(quote, ask.total)) continue;
      found.push(row);
      quotes.set(row.id, { listing: home.home.slug, quote });
      if (found.length === page.page_size) {
        // The page is full at this row: the next page starts after it (unless it was the last candidate of all).
        const rest = i + 1 < chunk.rows.length ? pageOf(chunk.rows.slice(0, i + 2), order, i + 1).next_cursor : chunk.next_cursor;
        return { rows: found, next_cursor: rest, quotes };
      }
    }
    if (chunk.next_cursor === null) return { rows: found, next_cursor: null, quotes };
    cursor = chunk.next_cursor;
  }
}

/** Homes whose facts are read in one statement when counting (the ids of a chunk go in one `in` list). */
const countChunk = 500;

/** A candidate as the counts read it: what the four facets group by. */
type Counted = { id: string; listing_type: string; bedrooms: number | null; area_slug: string | null; area_name: unknown };

/**
 * Facets with free dates (docs/api-reference.md, "Facets"): every candidate the other filters keep (one statement),
 * their facts a chunk at a time, counted in the shape the page's statement gives (facets.ts `facetsMember`) over the
 * homes that take the stay within the asked total. The price facet counts each home's quote total, as `price_min` and
 * `price_max` read it with dates; `band` is the number of `edges` at or under it, as the statement's `width_bucket`.
 */
export async function freeHomesCounts(
  db: Executor,
  company: Company,
  candidates: () => Promise<Counted[]>,
  ask: FreeDatesAsk,
  edges: readonly string[],
  now: Date,
): Promise<Record<'type' | 'area' | 'bedrooms' | 'price', unknown[][]>> {
  const rows = await candidates();
  const tally = { type: new Map<string, unknown[]>(), area: new Map(), bedrooms: new Map(), price: new Map() };
  const count = (facet: keyof typeof tally, key: string, row: unknown[]) => {
    const known = (tally[facet] as Map<string, unknown[]>).get(key) ?? [...row, 0];
    known[known.length - 1] = Number(known.at(-1)) + 1;
    (tally[facet] as Map<string, unknown[]>).set(key, known);
  };
  for (let start = 0; start < rows.length; start += countChunk) {
    const chunk = rows.slice(start, start + countChunk);
    const facts = await homesFacts(
      db,
      company,
      chunk.map((row) => row.id),
      ask,
      now,
    );
    for (const row of chunk) {
      const home = facts.get(row.id);
      const quote = home && freeStayQuote(company, home, ask, now);
      if (!quote || !withinTotal(quote, ask.total)) continue;
      count('type', row.listing_type, [row.listing_type]);
      if (row.area_slug !== null) count('area', row.area_slug, [row.area_slug, row.area_name]);
      if (row.bedrooms !== null) count('bedrooms', String(row.bedrooms), [row.bedrooms]);
      const band = edges.filter((edge) => new Big(quote.total).gte(edge)).length;
      count('price', String(band), [row.listing_type, band]);
    }
  }
  return {
    type: [...tally.type.values()],
    area: [...tally.area.values()],
    bedrooms: [...tally.bedrooms.values()],
    price: [...tally.price.values()],
  };
}
