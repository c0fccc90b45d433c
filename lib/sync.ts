import { type SelectQueryBuilder, sql } from 'kysely';
import { type KeysetSort, pageOf, paginate } from './pagination';

/**
 * Sync lists: `updated_since` and keyset pages ordered by (updated_at, key), so a client paging while others write
 * misses nothing that was committed (a row changed behind the cursor comes back later with its new updated_at).
 * The query parameters are `syncQuery` (schema/common/api.ts) and `externalQuery` (schema/common/external.ts);
 * lib/resources.ts reads a whole sync resource with them.
 */
export function syncSort(table: string, idType: 'uuid' | 'text', key = 'id'): KeysetSort {
  return {
    name: `${table}_sync`,
    columns: [
      { ref: `${table}.updated_at`, direction: 'asc', type: 'timestamptz' },
      { ref: `${table}.${key}`, direction: 'asc', type: idType },
    ],
  };
}

/** Splits `<source>:<id>` at the first colon (ids may contain colons). */
export function parseExternal(value: string): { source: string; id: string } {
  const at = value.indexOf(':');
  return { source: value.slice(0, at), id: value.slice(at + 1) };
}

/** One page of a sync list: `updated_since` on the sort's first column, then the keyset page. */
export async function syncPage<O extends Record<string, unknown>>(
  // biome-ignore lint/suspicious/noExplicitAny: shared by every sync table's query builder
  select: SelectQueryBuilder<any, any, O>,
  sort: KeysetSort,
  query: { updated_since?: string; page_size: number; cursor?: string },
): Promise<{ rows: O[]; next_cursor: string | null }> {
  const first = sort.columns[0] as { ref: string };
  const since = query.updated_since ? select.where(sql.ref(first.ref), '>=', new Date(query.updated_since)) : select;
  const rows = (await paginate(since, sort, query).execute()) as O[];
  return pageOf(rows, sort, query.page_size);
}
