import type { Executor } from '../../lib/db/index';
import { runNamed } from '../../lib/db/prepared';
import { type KeysetSort, pageOf, paginate } from '../../lib/pagination';
import type { Company } from '../../schema/platform/db';
import { sql } from 'kysely';
import { ApiError, notFound } from '../../lib/errors';
import { pricesHidden } from '../../lib/listings';
import { queryWords } from '../../lib/search-text';
import type { FacetName } from '../../schema/catalogue/listings';
import { type Counted, facetsMember, priceBands, withFacets } from './facets';
import { distanceKm } from '../../lib/listing-geo';
import { type FreeDatesAsk, freeHomesCounts, freeHomesPage } from './free-dates';
import { applyFilters, enabledTypes, type ListingFilters, publishedListings } from '../../lib/listing-filters';
import { listingSorts, relevanceName, relevanceRows, relevanceSort } from './listings';
import { bodiesOf, listBody, type RenderContext, type RenderedForm, withStoredForm } from './renders';

/**
 * The catalogue's listing reads, each one query (renders.ts): the page's rows with their stored forms (or the
 * revisions of those this process keeps in memory), concatenated as they are (a form missing or rendered for other
 * inputs is rendered and stored). They answer JSON as UTF-8 bytes.
 */

export type PageRequest = Omit<ListingFilters, 'words'> & {
  page_size: number;
  cursor?: string;
  q?: string;
  sort?: keyof typeof listingSorts | 'relevance';
  /** Free dates (issue 36, free-dates.ts): holiday homes that take this stay, each with its quote. */
  check_in?: string;
  check_out?: string;
  guests?: number;
  /** Counts over the filtered listings, computed by the page's statement (facets.ts). */
  facets?: FacetName[];
};

/** A row of a page's statement: the listing, its stored form or revision, its keys (`_k0`, …) and what else it selects. */
type SelectedRow = { id: string; revision: string | null; body: string | null } & Record<string, unknown>;

/** The order of a page: the one asked for; without one, relevance with words to search, featured without. */
function orderOf(sort: PageRequest['sort'], words: readonly string[]): KeysetSort {
  const chosen = sort ?? (words.length > 0 ? 'relevance' : 'featured');
  if (chosen !== 'relevance') return listingSorts[chosen];
  // A q of no words (only punctuation) searches nothing: its order is the default one.
  return words.length > 0 ? relevanceSort(words) : listingSorts.featured;
}

/** One page of published listings in `form` (cards, map points): filters, keyset order, stored forms. */
export async function listingPage(
  db: Executor,
  render: RenderContext,
  request: PageRequest,
  form: RenderedForm,
  mapped: boolean,
  now: Date,
): Promise<Uint8Array> {
  const { page_size, cursor, sort, q, check_in, check_out, guests, facets, ...filters } = request;
  const company = render.company;
  const words = q === undefined ? [] : queryWords(q);
  const order = orderOf(sort, words);
  const relevance = order.name.startsWith(relevanceName);
  const dates = check_in !== undefined && check_out !== undefined ? { checkIn: check_in, checkOut: check_out } : undefined;
  const ask = dates && datesAsked(company, { ...dates, guests: guests ?? 1 }, filters);
  // With dates the price filters apply to each home's quote (free-dates.ts), not to its nightly price.
  const sqlFilters = ask ? { ...filters, type: 'holiday_home' as const, price_min: undefined, price_max: undefined } : filters;
  const filtered = (searched: readonly string[]) => {
    const query = applyFilters(publishedListings(db, company), company, { ...sqlFilters, words: searched });
    return mapped ? query.where('l.latitude', 'is not', null) : query;
  };
  const query = filtered(words);
  if (pricesHidden(company)) {
    const asked: string[] = (['price_min', 'price_max'] as const).filter((field) => filters[field] !== undefined);
    if (facets?.includes('price')) asked.push('facets');
    if (asked.length > 0)
      throw new ApiError('invalid_request', 'This company does not show its prices: a price filter would tell them.', {
        errors: asked.map((path) => ({ path, code: 'prices_hidden', message: 'Prices are hidden: filter without them.' })),
      });
  }
  const near = filters.near;
  const bands = facets ? priceBands(company) : undefined;
  // A page filtered by its type at most counts every published listing of its types: from the counts kept for them.
  const whole = !mapped && words.length === 0 && Object.entries(filters).every(([name, v]) => name === 'type' || v === undefined);
  const types = enabledTypes(company).filter((type) => filters.type === undefined || type === filters.type);
  const over: Counted = whole ? { kept: { companyId: company.id, types } } : { filtered: query };
  let counted: unknown;
  const read = async (from: string | undefined, size: number) => {
    const selectedOf = (listings: typeof query) => {
      const stored = withStoredForm(listings, render, form);
      return near ? stored.select(sql<string>`round(${distanceKm(near)}::numeric, 2)::text`.as('distance_km')) : stored;
    };
    // The counts go with the page's first statement: one row carries them (a row of nulls besides them when the page
    // is empty).
    const run = async <R>(selected: Parameters<typeof withFacets>[0]): Promise<R[]> => {
      if (!facets || !bands || ask || counted !== undefined) return (await runNamed(db, selected.compile())).rows as R[];
      const { rows } = await runNamed(db, withFacets(selected, over, facets, bands, order).compile(db));
      counted = rows.find((row) => row.facets != null)?.facets ?? null;
      return rows.filter((row) => (row as { id?: string | null }).id !== null) as R[];
    };
    const at = { page_size: size, cursor: from, now };
    if (!relevance) return run<SelectedRow>(paginate(selectedOf(query), order, at));
    // The first tier of relevance holds every word whole: the words' own conditions would only cost its planning.
    const parts = { searched: selectedOf(query), whole: selectedOf(filtered([])) };
    return (await relevanceRows(db, parts, words, company.id, at, run)) as SelectedRow[];
  };
  const page = ask
    ? await freeHomesPage(db, company, order, read, { page_size, cursor }, ask, now)
    : { ...pageOf(await read(cursor, page_size), order, page_size), quotes: undefined };
  if (ask && facets && bands) {
    // Free homes are found by the calendar rule in TypeScript: their counts too, over every candidate (free-dates.ts).
    const candidates = () =>
      query
        .leftJoin('areas as fa', 'fa.id', 'l.area_id')
        .select(['l.id', 'l.listing_type', 'l.bedrooms', 'fa.slug_en as area_slug', 'fa.name as area_name'])
        .execute();
    counted = await freeHomesCounts(db, company, candidates, ask, bands.holiday_home, now);
  }
  const member = (row: (typeof page.rows)[number]) => {
    const parts: string[] = [];
    if (near) parts.push(`"distance_km":${Number((row as Record<string, unknown>).distance_km)}`);
    const free = page.quotes?.get(row.id);
    if (free && ask) {
      const { checkIn: check_in, checkOut: check_out, guests: stayGuests } = ask;
      const shown = { listing: free.listing, check_in, check_out, guests: stayGuests, ...free.quote };
      parts.push(`"quote":${JSON.stringify(shown)}`);
    }
    return parts.join(',');
  };
  const members = near || ask ? new Map(page.rows.map((row) => [row.id, member(row)])) : undefined;
  const counts = facets && bands ? facetsMember(counted, facets, bands) : undefined;
  return listBody(await bodiesOf(db, render, page.rows, form, members), page.next_cursor, counts);
}

/** A free-dates search's stay: 400 at check_in when the company takes no bookings (no home could be free). */
function datesAsked(
  company: Company,
  stay: { checkIn: string; checkOut: string; guests: number },
  filters: Pick<ListingFilters, 'price_min' | 'price_max'>,
): FreeDatesAsk {
  if (company.settings.bookings_enabled !== true) {
    const message = 'This company takes no bookings: search without check_in and check_out.';
    throw new ApiError('invalid_request', message, { errors: [{ path: 'check_in', code: 'bookings_off', message }] });
  }
  return { ...stay, total: { min: filters.price_min, max: filters.price_max } };
}

export const sitemapSort = {
  name: 'sitemap',
  columns: [
    { ref: 'l.published_at', direction: 'asc', type: 'timestamptz' },
    { ref: 'l.id', direction: 'asc', type: 'uuid' },
  ],
} as const satisfies KeysetSort;

/** One page of the sitemap: every published listing's paths, oldest publication first. */
export async function sitemapPage(db: Executor, render: RenderContext, query: { page_size: number; cursor?: string }) {
  const rows = await paginate(
    withStoredForm(publishedListings(db, render.company), render, 'sitemap'),
    sitemapSort,
    query,
  ).execute();
  const page = pageOf(rows, sitemapSort, query.page_size);
  return listBody(await bodiesOf(db, render, page.rows, 'sitemap'), page.next_cursor);
}

/** One listing by its English or Arabic slug: its detail, or its slug and status once withdrawn; drafts are not found. */
export async function listingDetail(db: Executor, render: RenderContext, company: Company, slug: string): Promise<Uint8Array> {
  const bySlug = db
    .selectFrom('listings as l')
    .where('l.company_id', '=', company.id)
    .where((eb) => eb.or([eb('l.slug_en', '=', slug), eb('l.slug_ar', '=', slug)]));
  const row = await withStoredForm(bySlug, render, 'detail').select(['l.status', 'l.listing_type']).executeTakeFirst();
  if (!row || row.status === 'draft' || !enabledTypes(company).includes(row.listing_type))
    throw notFound(`The listing "${slug}"`);
  const [body] = await bodiesOf(db, render, [row], 'detail');
  if (body === undefined) throw notFound(`The listing "${slug}"`);
  return body;
}
