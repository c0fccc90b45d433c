import { type SelectQueryBuilder, sql } from 'kysely';
import type { RecordKind } from '../schema/common/external';
import type { Db, Executor, Trx } from './db/index';
import { isUniqueViolation } from './db/index';
import { ApiError } from './errors';
import type { KeysetSort } from './pagination';
import { parseExternal, syncPage } from './sync';

/**
 * The clients' ids for records, one mechanism for every kind (table external_ids): unique per company, kind and
 * source. A record may hold several (contacts, leads: `external: [{source, id}]`, linked by PATCH too) or be
 * written with exactly one that makes its POST idempotent (activities, tasks: `source` + `external_id`). Each
 * list filters by it with `?external=<source>:<id>`.
 */
export type External = { source: string; id: string };
export type { RecordKind };

/**
 * Runs `work` in a transaction; on a unique violation (a concurrent request committed the same external id,
 * email or phone first) rolls back and runs it once more, when the first record is then found. A second
 * violation propagates (answered 409 by the app).
 */
export async function transactionRetryingConflict<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  try {
    return await db.transaction().execute(work);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    return db.transaction().execute(work);
  }
}

/** The record the client keeps under `<source>:<id>` (or `{source, id}`), if any. */
export async function recordIdByExternal(
  executor: Executor,
  companyId: string,
  kind: RecordKind,
  value: string | External,
): Promise<string | undefined> {
  const { source, id } = typeof value === 'string' ? parseExternal(value) : value;
  const row = await executor
    .selectFrom('external_ids')
    .select('record_id')
    .where('company_id', '=', companyId)
    .where('record_type', '=', kind)
    .where('source', '=', source)
    .where('external_id', '=', id)
    .executeTakeFirst();
  return row?.record_id;
}

/**
 * Links a client's id to a record. Idempotent: linking it again to the same record changes nothing and
 * answers false. A different record already holding it is refused (409). A concurrent link of the same id
 * fails on the primary key: run this in {@link transactionRetryingConflict}.
 * Returns whether a new link was written.
 */
export async function linkExternal(
  trx: Trx,
  companyId: string,
  kind: RecordKind,
  recordId: string,
  external: External,
): Promise<boolean> {
  const holder = await recordIdByExternal(trx, companyId, kind, external);
  if (holder === recordId) return false;
  if (holder !== undefined) {
    throw new ApiError('conflict', `The external id ${external.source}:${external.id} belongs to another ${kind}.`);
  }
  await linkNewRecord(trx, companyId, kind, recordId, external);
  return true;
}

/**
 * Links a client's id to a record created in this transaction, which looked the id up first and found it
 * free: a holder now is a concurrent add of the same record that committed meanwhile. The insert then fails
 * on the primary key, and {@link transactionRetryingConflict} runs again and finds that first record.
 */
export async function linkNewRecord(
  trx: Trx,
  companyId: string,
  kind: RecordKind,
  recordId: string,
  external: External,
): Promise<void> {
  await trx
    .insertInto('external_ids')
    .values({
      company_id: companyId,
      record_type: kind,
      source: external.source,
      external_id: external.id,
      record_id: recordId,
    })
    .execute();
}

/** Moves a client's id to another record (from an erased person to the new one created in its place). */
export async function relinkExternal(
  trx: Trx,
  companyId: string,
  kind: RecordKind,
  recordId: string,
  external: External,
): Promise<void> {
  await trx
    .updateTable('external_ids')
    .set({ record_id: recordId })
    .where('company_id', '=', companyId)
    .where('record_type', '=', kind)
    .where('source', '=', external.source)
    .where('external_id', '=', external.id)
    .execute();
}

/** The external ids of a whole page of records of one kind, in one query, oldest link first. */
export async function externalIdsOf(
  executor: Executor,
  kind: RecordKind,
  recordIds: readonly string[],
): Promise<Map<string, External[]>> {
  const map = new Map<string, External[]>();
  if (recordIds.length === 0) return map;
  const rows = await executor
    .selectFrom('external_ids')
    .select(['record_id', 'source', 'external_id'])
    .where('record_type', '=', kind)
    .where('record_id', 'in', [...recordIds])
    .orderBy('created_at')
    .orderBy('source')
    .orderBy('external_id')
    .execute();
  for (const row of rows) {
    const list = map.get(row.record_id) ?? [];
    list.push({ source: row.source, id: row.external_id });
    map.set(row.record_id, list);
  }
  return map;
}

/**
 * A sync page of records of one kind; `external=<source>:<id>` narrows it to the record holding that id, found
 * by the sort's last column, the table's key (lib/sync.ts syncSort). Records without external ids (kind
 * undefined, e.g. members) page by `updated_since` alone.
 */
export async function externalSyncPage<O extends Record<string, unknown>>(
  db: Executor,
  companyId: string,
  kind: RecordKind | undefined,
  // biome-ignore lint/suspicious/noExplicitAny: every sync table's query builder
  select: SelectQueryBuilder<any, any, O>,
  sort: KeysetSort,
  query: { external?: string; updated_since?: string; page_size: number; cursor?: string },
): Promise<{ rows: O[]; next_cursor: string | null }> {
  if (!query.external || kind === undefined) return syncPage(select, sort, query);
  const id = await recordIdByExternal(db, companyId, kind, query.external);
  if (id === undefined) return { rows: [], next_cursor: null };
  const key = sort.columns[sort.columns.length - 1] as { ref: string };
  return syncPage(select.where(sql.ref(key.ref), '=', id), sort, query);
}
