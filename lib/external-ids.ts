import { type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
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
  await writeLink(trx, companyId, kind, recordId, { kind: 'link', external });
  return true;
}

/**
 * Writes `link` for the record `recordId` (the imperative form of {@link linkCte}): `link` inserts the client's id,
 * `relink` moves it to this record from whichever record holds it now (an erased person's, to the new one created in
 * its place; unlike linkCte, `from` is not checked). Inserting for a record created in this transaction, which looked
 * the id up first and found it free: a holder now is a concurrent add of the same record that committed meanwhile.
 * The insert then fails on the primary key, and {@link transactionRetryingConflict} runs again and finds that first
 * record.
 */
export async function writeLink(
  trx: Trx,
  companyId: string,
  kind: RecordKind,
  recordId: string,
  link: Exclude<LinkWrite, { kind: 'none' }>,
): Promise<void> {
  const { source, id } = link.external;
  if (link.kind === 'link') {
    await trx
      .insertInto('external_ids')
      .values({ company_id: companyId, record_type: kind, source, external_id: id, record_id: recordId })
      .execute();
    return;
  }
  await trx
    .updateTable('external_ids')
    .set({ record_id: recordId })
    .where('company_id', '=', companyId)
    .where('record_type', '=', kind)
    .where('source', '=', source)
    .where('external_id', '=', id)
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

/** An external id as a record's row carries it ({@link externalIdsColumn}): `at`, when it was linked, orders them. */
export type ExternalLink = External & { at: string };

/**
 * The external ids of the record whose key is the column `idColumn` (the caller's constant), oldest link first (as
 * {@link externalIdsOf} orders them), as one JSON column of its row: a select that shows records then needs no other
 * query, and a write's answer can be composed from what its read gave.
 */
export function externalIdsColumn(kind: RecordKind, idColumn: string): RawBuilder<ExternalLink[]> {
  return sql<ExternalLink[]>`coalesce((
    select jsonb_agg(jsonb_build_object('source', e.source, 'id', e.external_id, 'at', e.created_at)
      order by e.created_at, e.source, e.external_id)
    from external_ids e where e.record_type = ${kind} and e.record_id = ${sql.ref(idColumn)}::text), '[]'::jsonb)`;
}

/** The external ids as the API shows them (`{source, id}`, in their order). */
export const shownExternalIds = (links: readonly ExternalLink[]): External[] => links.map(({ source, id }) => ({ source, id }));

/** The link of `external` in a write's read: the id of the record holding it, and since when (both null: free). */
export function externalHolder(companyId: string, kind: RecordKind, external: External) {
  const link = sql`from external_ids where company_id = ${companyId}::uuid and record_type = ${kind}
    and source = ${external.source} and external_id = ${external.id}`;
  return {
    holder: sql<string | null>`(select record_id ${link})`,
    linkedAt: sql<string | null>`(select to_jsonb(created_at) #>> '{}' ${link})`,
  };
}

/**
 * What a write does with the client's id it was sent: nothing (the record holds it already, or none was sent), link it
 * (it is free), or move it from the record `from` that held it (an erased person's, as read).
 */
export type LinkWrite =
  | { kind: 'none' }
  | { kind: 'link'; external: External }
  | { kind: 'relink'; external: External; from: string };

/**
 * The link the client's id needs on the record `recordId` (undefined: a record this write adds), given its holder as
 * the write's read found it ({@link externalHolder}); `movable`: whether that holder's id may move (an erased person's).
 * Held by another record that keeps it: 409 `conflict`.
 */
export function linkFor(
  kind: RecordKind,
  external: External | undefined,
  holder: string | null,
  recordId: string | undefined,
  movable = false,
): LinkWrite {
  if (!external || (holder !== null && holder === recordId)) return { kind: 'none' };
  if (holder === null) return { kind: 'link', external };
  if (movable) return { kind: 'relink', external, from: holder };
  throw new ApiError('conflict', `The external id ${external.source}:${external.id} belongs to another ${kind}.`);
}

/**
 * The CTE `<name>` of a write statement that writes `link` for the record of the earlier CTE `source` (its `id`),
 * only if `source` has a row; undefined when there is nothing to write. A holder that committed since the read makes
 * the statement fail on the key, and lib/write.ts writeOnce then runs the write again from its read.
 */
export function linkCte(name: string, companyId: string, kind: RecordKind, link: LinkWrite, source: string) {
  if (link.kind === 'none') return undefined;
  const recordId = sql`${sql.raw(source)}.id::text`;
  const { source: from, id } = link.external;
  if (link.kind === 'link') {
    return sql`${sql.raw(name)} as (
      insert into external_ids (company_id, record_type, source, external_id, record_id)
      select ${companyId}::uuid, ${kind}, ${from}, ${id}, ${recordId} from ${sql.raw(source)}
      returning record_id
    )`;
  }
  return sql`${sql.raw(name)} as (
    update external_ids set record_id = ${recordId} from ${sql.raw(source)}
    where external_ids.company_id = ${companyId}::uuid and external_ids.record_type = ${kind}
      and external_ids.source = ${from} and external_ids.external_id = ${id} and external_ids.record_id = ${link.from}
    returning external_ids.record_id
  )`;
}

/** A record's external ids once `link` is written: a new link is the newest; a moved one keeps when it was linked. */
export function linksAfter(links: readonly ExternalLink[], link: LinkWrite, linkedAt: string | null): ExternalLink[] {
  if (link.kind === 'none') return [...links];
  // '~' sorts after every time text: the link is made by the write, after all the record had.
  const added = { source: link.external.source, id: link.external.id, at: link.kind === 'relink' ? (linkedAt ?? '') : '~' };
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const order = (a: ExternalLink, b: ExternalLink) => text(a.at, b.at) || text(a.source, b.source) || text(a.id, b.id);
  return [...links, added].sort(order);
}
