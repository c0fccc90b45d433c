import type { Context, MiddlewareHandler } from 'hono';
import { sql } from 'kysely';
import type { Db, Executor, Trx } from './db/index';
import type { AppEnv } from './env';
import { isUuid } from '../schema/common/api';
import { ApiError } from './errors';

/**
 * Lost updates refused: a record a client can change has a `version` (bumped by a trigger on every update), given
 * out as its `ETag` on reads and writes. A write sent with `If-Match` runs only when the record still has one of
 * the listed versions; the check takes the row's lock inside the handler's own transaction, so two integrations
 * that read the same version cannot both write. Without `If-Match` the write proceeds.
 *
 * A route declares its record once (`defineRoute({ versioned })`). A handler that writes in a transaction needs nothing
 * more: the check runs in it. A write made without a transaction (lib/write.ts: one read, one guarded write) checks the
 * version it read with {@link checkIfMatch} and guards its write by it; lib/resources.ts `written` gives the ETag.
 */
export type VersionedRecord = {
  /** The table holding the record, with `company_id` and `version` columns. */
  table:
    | 'contacts'
    | 'leads'
    | 'tasks'
    | 'leases'
    | 'rent_payments'
    | 'deals'
    | 'viewings'
    | 'jobs'
    | 'contractors'
    | 'job_charges';
  /** The column the path parameter names (a reference or an id). */
  column: 'reference' | 'id';
  /** The path parameter. */
  param: string;
  /** The column is a UUID: any other value names no record. */
  uuid?: true;
};

export const etagOf = (version: string | number | bigint) => `"v${version}"`;

/** What `If-Match` asked: any current version (`*`) or one of these strong tags. */
export type IfMatch = '*' | string[];

/**
 * 412 `precondition_failed` (the current ETag given) unless `version`, the record's as read for a write, satisfies the
 * request's If-Match (none sent: any version). The write is then guarded by that version, so a change in between makes
 * it run again from the read, and answer 412 there.
 */
export function checkIfMatch(ifMatch: IfMatch | undefined, version: string | number | bigint): void {
  const etag = etagOf(version);
  if (ifMatch === undefined || ifMatch === '*' || ifMatch.includes(etag)) return;
  throw new ApiError('precondition_failed', `The record changed since you read it (its ETag is now ${etag}); read it again.`, {
    headers: { ETag: etag },
  });
}

/** `If-Match`: `*` (the record exists) or a list of strong entity tags; weak tags never match (RFC 9110 §13.1.1). */
export function parseIfMatch(header: string): IfMatch {
  const value = header.trim();
  if (value === '*') return '*';
  const tags: string[] = [];
  const pattern = /\s*((?:W\/)?"[\x21\x23-\x7e]*")\s*(?:,|$)/y;
  while (pattern.lastIndex < value.length) {
    const match = pattern.exec(value);
    if (!match) break;
    tags.push(match[1] as string);
  }
  if (tags.length === 0 || pattern.lastIndex < value.length) {
    throw new ApiError('invalid_request', 'The If-Match header is invalid.', {
      errors: [{ path: 'If-Match', code: 'invalid_string', message: 'Send the ETag of your last read, e.g. If-Match: "v3".' }],
    });
  }
  return tags.filter((tag) => !tag.startsWith('W/'));
}

async function versionOf(executor: Executor, record: VersionedRecord, companyId: string, value: string, lock: boolean) {
  if (record.uuid && !isUuid(value)) return undefined;
  const row = await sql<{ version: string }>`select version::text as version from ${sql.table(record.table)}
    where company_id = ${companyId} and ${sql.ref(record.column)} = ${value} ${lock ? sql`for update` : sql``}`.execute(executor);
  return row.rows[0]?.version;
}

type Guard = {
  /** Runs first in the transaction: throws to refuse the write. */
  check(trx: Trx): Promise<void>;
  /** Runs last in the transaction: the version the write leaves behind. */
  version(trx: Trx): Promise<string | undefined>;
};

/**
 * The request's database, with every transaction it opens running the guard around the handler's work. Guarded
 * until one such transaction commits: a handler that retries a transaction (a unique violation) is checked again;
 * a later transaction of the same request is not. `committed` receives the version left behind.
 */
function guardedDb(db: Db, guard: Guard, committed: (version: string | undefined) => void): Db {
  let done = false;
  const transaction = () => {
    const builder = db.transaction();
    if (done) return builder;
    return {
      execute: async <T>(work: (trx: Trx) => Promise<T>): Promise<T> => {
        let version: string | undefined;
        const result = await builder.execute(async (trx) => {
          await guard.check(trx);
          const value = await work(trx);
          version = await guard.version(trx);
          return value;
        });
        done = true;
        committed(version);
        return result;
      },
    };
  };
  return new Proxy(db, {
    get(target, property) {
      if (property === 'transaction') return transaction;
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The middleware of a route on one versioned record: ETag on reads, If-Match on writes. */
export function preconditions(record: VersionedRecord): MiddlewareHandler<AppEnv> {
  return async (c: Context<AppEnv>, next) => {
    const companyId = c.var.company.id;
    const value = c.req.param(record.param) ?? '';
    if (c.req.method === 'GET' || c.req.method === 'HEAD') {
      // Read before the handler: an ETag is never newer than the body it comes with.
      const version = await versionOf(c.var.services.db, record, companyId, value, false);
      await next();
      if (c.res.status === 200 && version !== undefined) c.header('ETag', etagOf(version));
      return;
    }
    const header = c.req.header('If-Match');
    const wanted = header === undefined ? undefined : parseIfMatch(header);
    let written: string | undefined;
    const guard: Guard = {
      async check(trx) {
        if (wanted === undefined) return;
        const version = await versionOf(trx, record, companyId, value, true);
        // An unknown record is the handler's 404, not a failed precondition.
        if (version !== undefined) checkIfMatch(wanted, version);
      },
      version: (trx) => versionOf(trx, record, companyId, value, false),
    };
    const db = guardedDb(c.var.services.db, guard, (version) => {
      written = version;
    });
    c.set('services', { ...c.var.services, db });
    c.set('ifMatch', { sent: wanted });
    await next();
    if (c.res.status < 300 && written !== undefined) c.header('ETag', etagOf(written));
  };
}
