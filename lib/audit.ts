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
 * Every read with a server key that returns personal data is written to the audit log: one row per request
 * (the key's prefix, the route and every reference returned), whatever the number of records.
 */
export async function auditPersonalDataRead(
  executor: Executor,
  read: { companyId: string; caller: Caller; route: string; references: string[] },
): Promise<void> {
  if (read.caller.kind !== 'server' || read.references.length === 0) return;
  await writeAudit(executor, {
    companyId: read.companyId,
    actor: actorOf(read.caller),
    action: 'personal_data.read',
    subject: read.caller.key.prefix,
    details: { route: read.route, references: read.references },
  });
}

/** Audits the personal data a handler is about to return (one row for the whole answer). */
export function auditRead(c: Context<AppEnv>, references: string[]): Promise<void> {
  return auditPersonalDataRead(c.var.services.db, {
    companyId: c.var.company.id,
    caller: c.var.caller,
    route: `${c.req.method} ${c.req.routePath}`,
    references,
  });
}

/**
 * The audit row of a personal-data read as a CTE `<name>` of a write's own statement (docs/invariants.md, "Writes"):
 * written when the CTE `source` (an earlier CTE of the statement) has a row, with the fields auditPersonalDataRead
 * writes. Only for a server key: any other caller gets a CTE that writes nothing.
 */
export function auditReadCte(
  name: string,
  read: { companyId: string; caller: Caller; route: string; references: string[] },
  source: string,
): RawBuilder<unknown> {
  const server = read.caller.kind === 'server' && read.references.length > 0;
  const subject = read.caller.kind === 'server' ? read.caller.key.prefix : null;
  const details = JSON.stringify({ route: read.route, references: read.references });
  return sql`${sql.raw(name)} as (
    insert into audit_log (company_id, actor, action, subject, details)
    select ${read.companyId}::uuid, ${actorOf(read.caller)}, 'personal_data.read', ${subject}::text, ${details}::jsonb
    from (select 1 from ${sql.raw(source)} limit 1) as happened
    where ${server}
    returning 1
  )`;
}

/**
 * The read of personal data a request's answer makes, as {@link auditPersonalDataRead} writes it: undefined unless the
 * caller is a server key. A write hands it to its statement, which writes the row with the change ({@link readAuditCte}).
 */
export type PersonalRead = { companyId: string; actor: CausedBy; subject: string; route: string };

export function personalReadOf(c: Context<AppEnv>): PersonalRead | undefined {
  const caller = c.var.caller;
  if (caller.kind !== 'server') return undefined;
  const route = `${c.req.method} ${c.req.routePath}`;
  return { companyId: c.var.company.id, actor: actorOf(caller), subject: caller.key.prefix, route };
}

/**
 * The CTE `<name>` of a write statement that writes the audit row of `read` for the `references` its answer shows;
 * undefined when there is nothing to write (no server key, or no personal data in the answer).
 */
export function readAuditCte(
  name: string,
  read: PersonalRead | undefined,
  references: string[],
): RawBuilder<unknown> | undefined {
  if (!read || references.length === 0) return undefined;
  const details = JSON.stringify({ route: read.route, references });
  return sql`${sql.raw(name)} as (
    insert into audit_log (company_id, actor, action, subject, details)
    values (${read.companyId}::uuid, ${read.actor}, 'personal_data.read', ${read.subject}, ${details}::jsonb)
    returning 1
  )`;
}

/** Writes the audit row of `read` for `references` on its own (a write that changed nothing still answers them). */
export async function auditAnswer(executor: Executor, read: PersonalRead | undefined, references: string[]): Promise<void> {
  const cte = readAuditCte('answer_read', read, references);
  if (cte) await sql`with ${cte} select 1`.execute(executor);
}
