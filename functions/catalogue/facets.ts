import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import type { ListingType } from '../../schema/catalogue/db';
import type { FacetName } from '../../schema/catalogue/listings';
import { listingTypes } from '../../schema/common/columns';
import type { Company } from '../../schema/platform/db';
import { localised } from '../../lib/localise';
import type { KeysetSort } from '../../lib/pagination';
import type { PublishedQuery } from '../../lib/listing-filters';

/**
 * Facets of a listings page (issue 36, `facets=type,area,bedrooms,price`): counts over every listing the request's
 * filters keep, computed by the page's own statement ({@link withFacets}), shaped here into the answer's `facets`.
 */

/** Price band edges when the company sets none for a type (docs/api-reference.md, "Facets"). */
export const defaultPriceBands: Record<ListingType, readonly string[]> = {
  sale: ['500000', '1000000', '2000000', '3000000', '5000000', '10000000'],
  lease: ['50000', '75000', '100000', '150000', '200000', '300000'],
  holiday_home: ['300', '500', '750', '1000', '1500', '2500'],
};

/** The company's band edges per type: its `search_price_bands`, the defaults for a type it leaves out. */
export function priceBands(company: Company): Record<ListingType, readonly string[]> {
  return { ...defaultPriceBands, ...(company.settings?.search_price_bands ?? {}) };
}

/** Each facet's counts as the statement gives them: [value, count], [slug, name, count] or [type, band, count]. */
const facetSql = (bands: Record<ListingType, readonly string[]>): Record<FacetName, RawBuilder<unknown>> => ({
  type: sql`(select json_agg(json_build_array(listing_type,n))from(select listing_type,count(*)n from m group by 1)t)`,
  area: sql`(select json_agg(json_build_array(a.slug_en,a.name,t.n))from(select area_id,count(*)n from m where area_id is not null group by 1)t join areas a on a.id=t.area_id)`,
  bedrooms: sql`(select json_agg(json_build_array(bedrooms,n))from(select bedrooms,count(*)n from m where bedrooms is not null group by 1)t)`,
  // width_bucket: 0 below the first edge, i from edge i (included) to edge i + 1 (excluded), n from the last.
  price: sql`(select json_agg(json_build_array(listing_type,band,n))from(select listing_type,width_bucket(price,${bandEdges(bands)})band,count(*)n from m where price is not null group by 1,2)t)`,
});

/**
 * The same counts of every published listing of the company's `types` (a page filtered by its type at most), read from
 * the counts the database keeps (`catalogue_counts`, migration 0015; `catalogue_price_counts`, migration 0067): a row
 * per value (a distinct price for the bands), whatever the number of listings.
 */
const keptSql = (
  bands: Record<ListingType, readonly string[]>,
  companyId: string,
  types: readonly ListingType[],
): Record<FacetName, RawBuilder<unknown>> => {
  const of = (dimension: string) =>
    sql`from catalogue_counts where company_id=${companyId} and listing_type=any(${types}::text[]) and dimension=${dimension} and n>0`;
  return {
    type: sql`(select json_agg(json_build_array(listing_type,n))from(select listing_type,sum(n)n ${of('total')} group by 1)t)`,
    area: sql`(select json_agg(json_build_array(a.slug_en,a.name,t.n))from(select value::uuid area_id,sum(n)n ${of('area')} group by 1)t join areas a on a.id=t.area_id)`,
    bedrooms: sql`(select json_agg(json_build_array(bedrooms,n))from(select value::int bedrooms,sum(n)n ${of('bedrooms')} group by 1)t)`,
    price: sql`(select json_agg(json_build_array(listing_type,band,n))from(select listing_type,width_bucket(price,${bandEdges(bands)})band,sum(n)n from catalogue_price_counts where company_id=${companyId} and listing_type=any(${types}::text[]) and n>0 group by 1,2)t)`,
  };
};

/** Each type's band edges, for `width_bucket(price, …)` of a row's `listing_type`. */
function bandEdges(bands: Record<ListingType, readonly string[]>): RawBuilder<unknown> {
  return sql`case listing_type ${sql.join(
    listingTypes.map((type) => sql`when ${sql.lit(type)} then ${bands[type]}::numeric[]`),
    sql` `,
  )} end`;
}

/** Whose listings the counts are of: those a page's filters keep, or (kept counts) every published one of some types. */
export type Counted = { filtered: PublishedQuery } | { kept: { companyId: string; types: readonly ListingType[] } };

// biome-ignore lint/suspicious/noExplicitAny: a page of listings, whatever it joins and selects
type Page<R> = SelectQueryBuilder<any, any, R>;

/** Casts of a keyset column's text form (lib/pagination.ts `_k`) back to its type, to order by it. */
const keyCasts = { timestamptz: 'bigint', float: 'float8' } as Record<string, string>;

/**
 * The page statement `page` (its rows in `order`) with the counts of `asked` over `counted` (the page's filters
 * without cursor, order or limit; or, for a page filtered by its type at most, the counts the database keeps), in one
 * statement: the counts are one row, the page joined to it laterally, so an empty page still answers them (one row of
 * nulls). Only one row carries the counts; the rows keep the page's order.
 */
export function withFacets<R>(
  page: Page<R>,
  counted: Counted,
  asked: readonly FacetName[],
  bands: Record<ListingType, readonly string[]>,
  order: KeysetSort,
) {
  const object = (parts: Record<FacetName, RawBuilder<unknown>>) =>
    sql`json_build_object(${sql.join(asked.map((name) => sql`${sql.lit(name)}, ${parts[name]}`))})`;
  const counts =
    'kept' in counted
      ? sql`select ${object(keptSql(bands, counted.kept.companyId, counted.kept.types))} as facets`
      : sql`with m as(${counted.filtered.select(['l.listing_type', 'l.area_id', 'l.bedrooms', 'l.price'])})select ${object(facetSql(bands))} as facets`;
  const keys = order.columns.map(
    (column, i) => sql`${sql.ref(`p._k${i}`)}::${sql.raw(keyCasts[column.type] ?? column.type)} ${sql.raw(column.direction)}`,
  );
  return sql<R & { facets?: unknown }>`select p.*,case when row_number()over()=1 then f.facets end facets
from(${counts})f left join lateral(${page})p on true order by ${sql.join(keys)}`;
}

type Raw = Partial<Record<FacetName, unknown[][] | null>>;

/** The answer's `"facets":{…}` member from the statement's counts: most listings first, then by value. */
export function facetsMember(raw: unknown, asked: readonly FacetName[], bands: Record<ListingType, readonly string[]>): string {
  const counts = (typeof raw === 'string' ? JSON.parse(raw) : (raw ?? {})) as Raw;
  const shape: Record<FacetName, (row: unknown[]) => { entry: Record<string, unknown>; rank: Array<string | number> }> = {
    type: ([value, count]) => ({ entry: { value, count }, rank: [String(value)] }),
    area: ([value, name, count]) => ({
      entry: { value, name: localised(name as { en?: string; ar?: string }), count },
      rank: [String(value)],
    }),
    bedrooms: ([value, count]) => ({ entry: { value, count }, rank: [Number(value)] }),
    price: ([type, band, count]) => {
      const edges = bands[type as ListingType];
      const i = Number(band);
      return {
        entry: { type, min: i === 0 ? '0' : edges[i - 1], max: edges[i] ?? null, count },
        rank: [String(type), i],
      };
    },
  };
  const facets = asked.map((name) => {
    const rows = (counts[name] ?? []).map((row) => shape[name](row));
    rows.sort((a, b) => Number(b.entry.count) - Number(a.entry.count) || compareRanks(a.rank, b.rank));
    return `${JSON.stringify(name)}:${JSON.stringify(rows.map((row) => ({ ...row.entry, count: Number(row.entry.count) })))}`;
  });
  return `"facets":{${facets.join(',')}}`;
}

function compareRanks(a: ReadonlyArray<string | number>, b: ReadonlyArray<string | number>): number {
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i] as string | number, b[i] as string | number];
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}
