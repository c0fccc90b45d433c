import type { Context } from 'hono';
import { type RawBuilder, sql } from 'kysely';
import type { Executor } from './db/index';
import type { AppEnv, Caller } from './env';
import type { CausedBy } from './events';

/** The actor written to the audit log and to events' caused_by. */
export function actorOf(caller: Caller): CausedBy {
  switch (caller.kind) {
    case 'admin':
      return 'admin';
    case 'server':
      return `api:${caller.key.prefix}`;
    case 'publishable':
      return 'website';
    case 'anonymous':
      return 'website';
    case 'system':
      return 'system';
  }
}

export async function writeAudit(
  executor: Executor,
  entry: { companyId: string | null; actor: string; action: string; subject?: string; details?: Record<string, unknown> },
): Promise<void> {
  await executor
    .insertInto('audit_log')
    .values({
      company_id: entry.companyId,
      actor: entry.actor,
      action: entry.action,
      subject: entry.subject ?? null,
      details: JSON.stringify(entry.details ?? {}),
    })
    .execute();
}

/**
 * The CTE `<name>` of a write statement that writes one audit row for each row of the earlier CTE `source` (its
 * company: the column `company` names, `company_id` unless said; `subject` the name of one of its columns, as text),
 * so a change and its audit row are one statement. `details` are the same for every row; `columns` adds the named
 * columns of each row to them (`{source: changed.source}`).
 */
export function auditCte(
  name: string,
  source: string,
  entry: {
    actor: string;
    action: string;
    subject: string;
    details?: Record<string, unknown>;
    columns?: readonly string[];
    company?: string;
  },
): RawBuilder<unknown> {
  const columns = entry.columns ?? [];
  const ofRow = sql.join(columns.map((column) => sql`${column}::text, ${sql.ref(`${source}.${column}`)}`));
  return sql`${sql.raw(name)} as (
    insert into audit_log (company_id, actor, action, subject, details)
    select ${sql.ref(`${source}.${entry.company ?? 'company_id'}`)}, ${entry.actor}, ${entry.action},
      ${sql.ref(`${source}.${entry.subject}`)}::text,
      ${JSON.stringify(entry.details ?? {})}::jsonb${columns.length > 0 ? sql` || jsonb_build_object(${ofRow})` : sql``}
    from ${sql.table(source)}
    returning 1
  )`;
}

/**
 * Every read with a server key that returns personal data is written to the audit log: one row per request (the key's
 * prefix, the route and every reference returned), whatever the number of records. The one row of that kind is
 * {@link readAuditCte}'s: a read writes it on its own ({@link auditRead}), a write in its own statement.
 *
 * The writers, one per kind: {@link writeAudit} (one row of its own), {@link auditCte} (a row for each row a write
 * statement changed), {@link readAuditCte} (a personal-data read, in a write's statement) and {@link auditRead} (a
 * personal-data read, on its own). No other code inserts into audit_log (test/platform/layout.test.ts).
 */

/**
 * The read of personal data a request's answer makes: undefined unless the caller is a server key. A write hands it to
 * its statement, which writes the row with the change ({@link readAuditCte}).
 */
export type PersonalRead = { companyId: string; actor: CausedBy; subject: string; route: string };

export function personalReadOf(c: Context<AppEnv>): PersonalRead | undefined {
  const caller = c.var.caller;
  if (caller.kind !== 'server') return undefined;
  const route = `${c.req.method} ${c.req.routePath}`;
  return { companyId: c.var.company.id, actor: actorOf(caller), subject: caller.key.prefix, route };
}

/**
 * The CTE `<name>` of a statement that writes the audit row of `read` for the `references` its answer shows;
 * undefined when there is nothing to write (no server key, or no personal data in the answer). With `after` (the name
 * of an earlier CTE of the statement), the row is written only if that CTE has a row (the record was written).
 */
export function readAuditCte(
  name: string,
  read: PersonalRead | undefined,
  references: string[],
  after?: string,
): RawBuilder<unknown> | undefined {
  if (!read || references.length === 0) return undefined;
  const details = JSON.stringify({ route: read.route, references });
  const row = sql`${read.companyId}::uuid, ${read.actor}, 'personal_data.read', ${read.subject}::text, ${details}::jsonb`;
  return sql`${sql.raw(name)} as (
    insert into audit_log (company_id, actor, action, subject, details)
    ${after === undefined ? sql`values (${row})` : sql`select ${row} from (select from ${sql.table(after)} limit 1) as happened`}
    returning 1
  )`;
}

/** Audits the personal data a read's handler is about to return (one row for the whole answer; only for a server key). */
export async function auditRead(c: Context<AppEnv>, references: string[]): Promise<void> {
  const cte = readAuditCte('answer_read', personalReadOf(c), references);
  if (cte) await sql`with ${cte} select 1`.execute(c.var.services.db);
}
