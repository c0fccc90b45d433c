import { z } from '@hono/zod-openapi';
import { type SelectQueryBuilder, sql } from 'kysely';
import type { KeysetSort } from '../../lib/pagination';
import { pageQuery } from '../../schema/common';

/**
 * Sync lists: `updated_since`, `external=<source>:<id>`, and keyset pages ordered by (updated_at, id), so a
 * client paging while others write misses nothing that was committed (a row changed behind the cursor comes
 * back later with its new updated_at).
 */
export const syncQuery = {
  ...pageQuery,
  updated_since: z
    .string()
    .datetime({ offset: true })
    .optional()
    .openapi({ description: 'Only records changed at or after this instant (ISO 8601).', example: '2026-11-21T09:30:00Z' }),
};

export const externalQuery = {
  external: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}:.{1,200}$/, 'As <source>:<id>, e.g. hubspot:12345.')
    .optional()
    .openapi({ description: 'Only the record the client keeps under this id, as `<source>:<id>`.' }),
};

export function syncSort(table: string, idType: 'uuid' | 'text'): KeysetSort {
  return {
    name: `${table}_sync`,
    columns: [
      { ref: `${table}.updated_at`, direction: 'asc', type: 'timestamptz' },
      { ref: `${table}.id`, direction: 'asc', type: idType },
    ],
  };
}

/** Splits `<source>:<id>` at the first colon (ids may contain colons). */
export function parseExternal(value: string): { source: string; id: string } {
  const at = value.indexOf(':');
  return { source: value.slice(0, at), id: value.slice(at + 1) };
}

// biome-ignore lint/suspicious/noExplicitAny: shared by every sync table's query builder
export function sinceFilter<QB extends SelectQueryBuilder<any, any, any>>(qb: QB, table: string, since?: string): QB {
  return since ? (qb.where(sql.ref(`${table}.updated_at`), '>=', new Date(since)) as QB) : qb;
}
