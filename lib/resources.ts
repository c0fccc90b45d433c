import type { Context } from 'hono';
import { type SelectQueryBuilder, sql } from 'kysely';
import type { RecordKind } from '../schema/common/external';
import { actorOf, auditRead, personalReadOf } from './audit';
import type { Executor, Trx } from './db/index';
import type { AppEnv, Services } from './env';
import { notFound } from './errors';
import { externalSyncPage, transactionRetryingConflict } from './external-ids';
import type { KeysetSort } from './pagination';
import { etagOf } from './preconditions';
import { syncSort } from './sync';
import { type Stale, type WriteScope, writeOnce } from './write';

type Row = Record<string, unknown>;

/** A resource's records of one company, with what its presentation needs joined. */
// biome-ignore lint/suspicious/noExplicitAny: every resource's query builder
export type ResourceSelect<R extends Row> = (db: Executor, companyId: string) => SelectQueryBuilder<any, any, R>;

/**
 * A record of a sync API as its routes read it, declared once in `<resource>.routes.ts`: it gives the list
 * (`updated_since`, `?external=`, keyset pages in (updated_at, key) order), the get-one (404 when unknown) and
 * the record as shown after a write. Each writes the personal data it returns to the audit log.
 */
export type SyncResource<R extends Row, View> = {
  /** How a 404 names the record: `The <noun> <key>`. */
  noun: string;
  table: string;
  sort: KeysetSort;
  /** The key column (`<table>.id` unless declared), the sort's last column. */
  key: string;
  /** The kind its clients' ids are kept under (lib/external-ids.ts): `?external=<source>:<id>` filters its list. */
  external?: RecordKind;
  select: ResourceSelect<R>;
  /** Shapes rows as the API shows them, a whole page at once (at most one more query for the page). */
  present: (services: Services, rows: R[]) => View[] | Promise<View[]>;
  /** The reference of a view that carries personal data, to audit its read; undefined (or no function): none. */
  personal?: (view: View) => string | undefined;
};

/** Declares a sync resource of `table`, keyed by `id` (or `key`) of type `idType`. */
export function syncResource<R extends Row, View>(
  table: string,
  spec: Omit<SyncResource<R, View>, 'table' | 'sort' | 'key'> & { idType: 'uuid' | 'text'; key?: string },
): SyncResource<R, View> {
  const { idType, key = 'id', ...rest } = spec;
  return { ...rest, table, sort: syncSort(table, idType, key), key: `${table}.${key}` };
}

async function audited<R extends Row, View>(c: Context<AppEnv>, resource: SyncResource<R, View>, views: View[]) {
  const { personal } = resource;
  if (!personal) return;
  const references = views.map(personal).filter((reference): reference is string => reference !== undefined);
  await auditRead(c, references);
}

/** One page of a sync list, shown and audited: the body of its 200 answer. */
export async function syncList<R extends Row, View>(
  c: Context<AppEnv>,
  resource: SyncResource<R, View>,
  query: { external?: string; updated_since?: string; page_size: number; cursor?: string },
): Promise<{ results: View[]; next_cursor: string | null }> {
  const db = c.var.services.db;
  const companyId = c.var.company.id;
  const select = resource.select(db, companyId);
  const page = await externalSyncPage(db, companyId, resource.external, select, resource.sort, query);
  const results = await resource.present(c.var.services, page.rows);
  await audited(c, resource, results);
  return { results, next_cursor: page.next_cursor };
}

/** The record whose column `ref` is `value`, shown and audited; undefined if the company has none. */
async function shownWhere<R extends Row, View>(
  c: Context<AppEnv>,
  resource: SyncResource<R, View>,
  ref: string,
  value: string,
): Promise<View | undefined> {
  const select = resource.select(c.var.services.db, c.var.company.id);
  const row = (await select.where(sql.ref(ref), '=', value).executeTakeFirst()) as R | undefined;
  if (row === undefined) return undefined;
  const [view] = await resource.present(c.var.services, [row]);
  await audited(c, resource, [view as View]);
  return view;
}

/** The record whose `column` is `value` (e.g. its reference in the path): the body of a get-one; 404 if none. */
export async function readOne<R extends Row, View>(
  c: Context<AppEnv>,
  resource: SyncResource<R, View>,
  column: string,
  value: string,
): Promise<View> {
  const view = await shownWhere(c, resource, `${resource.table}.${column}`, value);
  if (view === undefined) throw notFound(`The ${resource.noun} ${value}`);
  return view;
}

/** The record a write just made or changed, by its key: the body of the write's answer. */
export async function readWritten<R extends Row, View>(c: Context<AppEnv>, resource: SyncResource<R, View>, key: string) {
  const view = await shownWhere(c, resource, resource.key, key);
  if (view === undefined) throw new Error(`The ${resource.noun} ${key} just written was not found.`);
  return view;
}

/**
 * The resource with its list narrowed by a query's filters: `select` is the resource's own query function (typed, so
 * the filters name its columns), `narrow` adds the filters to it.
 */
// biome-ignore lint/suspicious/noExplicitAny: every resource's query builder
export function narrowed<R extends Row, View, S extends SelectQueryBuilder<any, any, R>>(
  resource: SyncResource<R, View>,
  select: (db: Executor, companyId: string) => S,
  narrow: (query: S) => S,
): SyncResource<R, View> {
  return { ...resource, select: (db, companyId) => narrow(select(db, companyId)) };
}

/** The status of a create that finds the record made before (same external id, email…): `201` when new, else `200`. */
export function status(result: { created: boolean }): 201 | 200 {
  return result.created ? 201 : 200;
}

/**
 * A create that finds the record made before under the same external id: `work` runs in a transaction retried once on
 * a unique violation (lib/external-ids.ts), and the answer is the record as shown, `201` when new, else `200`.
 */
export async function createdOnce<R extends Row, View>(
  c: Context<AppEnv>,
  resource: SyncResource<R, View>,
  work: (trx: Trx) => Promise<{ id: string; created: boolean }>,
): Promise<{ view: View; status: 201 | 200 }> {
  const result = await transactionRetryingConflict(c.var.services.db, work);
  return { view: await readWritten(c, resource, result.id), status: status(result) };
}

/**
 * A record as a write left it: its row as the resource's `select` gives it (from the write statement's `returning`,
 * with what the read joined), whether it is new, and its version (the ETag of a versioned route).
 */
export type Written<R> = { row: R; created?: boolean; version?: string | number | bigint };

/** What a write of this request knows of it (lib/write.ts): the company, `services.now()`, the caller, If-Match. */
export function writeScope(c: Context<AppEnv>): WriteScope {
  return {
    db: c.var.services.db,
    company: c.var.company,
    now: c.var.services.now(),
    causedBy: actorOf(c.var.caller),
    ifMatch: c.var.ifMatch?.sent,
    answerRead: personalReadOf(c),
  };
}

/**
 * A write in few round trips (lib/write.ts): `attempt` reads once, decides, and writes once (guarded by what it read,
 * its events and the audit of its answer's personal data in the same statement), run again by `writeOnce` while it
 * answers `stale`. The answer is the record as written, shown by the resource's presentation without another query
 * (its `present` must not query for it), with its ETag on a versioned route: `201` when new, else `200`.
 */
export async function written<R extends Row, View>(
  c: Context<AppEnv>,
  resource: SyncResource<R, View>,
  attempt: (scope: WriteScope) => Promise<Written<R> | Stale>,
): Promise<{ view: View; status: 201 | 200 }> {
  const scope = writeScope(c);
  const result = await writeOnce(() => attempt(scope));
  const [view] = await resource.present(c.var.services, [result.row]);
  if (c.var.ifMatch && result.version !== undefined) c.header('ETag', etagOf(result.version));
  return { view: view as View, status: status({ created: result.created ?? false }) };
}

/** A change of one record ({@link written}): the body of its `200`. */
export async function changed<R extends Row, View>(
  c: Context<AppEnv>,
  resource: SyncResource<R, View>,
  attempt: (scope: WriteScope) => Promise<Written<R> | Stale>,
): Promise<View> {
  return (await written(c, resource, attempt)).view;
}
