import type { Context } from 'hono';
import { sql } from 'kysely';
import { addDays, iso, zonedInstant } from './dates';
import type { Db } from './db/index';
import type { AppEnv } from './env';
import { ApiError } from './errors';
import { keepServicesUntil } from './request-lifecycle';

/**
 * The audit log of a range of days as JSON lines or CSV (issue 38; docs/api-reference.md, "Audit export"), streamed:
 * the entries are read in batches of {@link auditExportBatch} (the next once the client took the previous), so memory
 * stays flat whatever the range. Each entry has the fields of the audit list (at, actor, action, subject, details).
 */
export const auditExportBatch = 500;

export type AuditExportQuery = { from: string; to: string; format: 'jsonl' | 'csv' };

type Entry = { id: string; at: Date | string; actor: string; action: string; subject: string | null; details: unknown };

/** The range's instants: from the start of `from` to the start of the day after `to`, in the company's time zone. */
export function auditRange(query: AuditExportQuery, timeZone: string): { start: Date; end: Date } {
  if (query.to < query.from) {
    const message = '`to` is the last day of the range: on or after `from`.';
    throw new ApiError('invalid_request', message, { errors: [{ path: 'to', code: 'before_from', message }] });
  }
  return { start: zonedInstant(query.from, '00:00', timeZone), end: zonedInstant(addDays(query.to, 1), '00:00', timeZone) };
}

/** One batch of the range's entries after the entry `afterId` (the batches' order: at, then id). */
async function batchOf(db: Db, companyId: string, range: { start: Date; end: Date }, after?: { at: string; id: string }) {
  const { rows } = await sql<Entry & { at_text: string }>`
    select id::text as id, at, at::text as at_text, actor, action, subject, details from audit_log
    where company_id = ${companyId}::uuid and at >= ${range.start} and at < ${range.end}
      ${after ? sql`and (at, id) > (${after.at}::timestamptz, ${after.id}::bigint)` : sql``}
    order by at, id
    limit ${auditExportBatch}
  `.execute(db);
  return rows;
}

const csvColumns = ['at', 'actor', 'action', 'subject', 'details'] as const;

/**
 * A CSV field (RFC 4180): quoted when it holds a comma, quote or line break. A field a spreadsheet would run as a
 * formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is written with a leading `'` (OWASP's CSV
 * injection advice): the audit log holds text others wrote (subjects, details).
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function line(entry: Entry, format: 'jsonl' | 'csv'): string {
  const shown = { at: iso(entry.at), actor: entry.actor, action: entry.action, subject: entry.subject, details: entry.details };
  if (format === 'jsonl') return `${JSON.stringify(shown)}\n`;
  const cells = [shown.at, shown.actor, shown.action, shown.subject ?? '', JSON.stringify(shown.details)];
  return `${cells.map(csvField).join(',')}\r\n`;
}

const utf8 = new TextEncoder();

/**
 * The export's answer for a company (its id and time zone). Input errors are thrown before the status goes out; a
 * failure mid-way aborts the body, so the client sees a cut transfer, never a shorter file that looks whole.
 */
export function auditExport(c: Context<AppEnv>, company: { id: string; time_zone: string }, query: AuditExportQuery): Response {
  const range = auditRange(query, company.time_zone);
  const db = c.var.services.db;
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const write = async (text: string) => {
    await writer.ready;
    await writer.write(utf8.encode(text));
  };
  const streamed = (async () => {
    try {
      if (query.format === 'csv') await write(`${csvColumns.join(',')}\r\n`);
      for (let after: { at: string; id: string } | undefined; ; ) {
        const batch = await batchOf(db, company.id, range, after);
        if (batch.length > 0) await write(batch.map((entry) => line(entry, query.format)).join(''));
        if (batch.length < auditExportBatch) break;
        const last = batch.at(-1) as Entry & { at_text: string };
        after = { at: last.at_text, id: last.id };
      }
      await writer.close();
    } catch (error) {
      console.error(`request ${c.var.requestId}: the audit export stopped:`, error);
      await writer.abort(error).catch(() => {});
    }
  })();
  keepServicesUntil(c, streamed);
  const type = query.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson';
  const name = `audit-${query.from}-${query.to}.${query.format}`;
  return c.body(readable, 200, {
    'Content-Type': type,
    'Content-Disposition': `attachment; filename="${name}"`,
    'Cache-Control': 'no-store',
  });
}
