import { sql } from 'kysely';
import type { Executor } from '../../lib/db/index';
import { type Closing, type MonthSpan, monthClosing, monthSpan } from '../../lib/statement-months';
import type { Company } from '../../schema/platform/db';
import { type LineRow, openings, type StatementData, selectLines } from './statements';

/**
 * Every owner statement of a month, read to be streamed (issue 39): what must be known before the first byte (the
 * closing, the owners read, for the read's audit) from one summary of the month's lines, then the statements by owner
 * reference, a batch of owners at a time: as many owners as make up {@link statementsBatchLines} lines (at least one),
 * their lines read by their index (owner, day, id), so the memory the export needs does not grow with the company. An
 * owner's statement is built as `ownerStatement` builds it (the same lines, the same opening balance), for the same
 * presenter.
 */
export type MonthStatements = {
  span: MonthSpan;
  closing: Closing;
  /** The month's owners by reference: those with at least one line in it. */
  owners: MonthOwner[];
  /** The statements in the owners' order, batch by batch. */
  statements: () => AsyncGenerator<StatementData[]>;
};

export type MonthOwner = { id: string; reference: string; name: string | null; lines: number };

/** The lines a batch of owners adds up to (an owner of more lines is a batch of its own). */
export const statementsBatchLines = 1000;

/** The owners with a line in the month, by reference, with their lines' count (one read of the month's lines). */
export async function monthOwners(db: Executor, companyId: string, span: MonthSpan): Promise<MonthOwner[]> {
  const { rows } = await sql<MonthOwner>`
    select o.id::text as id, o.reference, o.name, l.lines
    from (
      select owner_id, count(*)::int as lines from owner_statement_lines
      where company_id = ${companyId}::uuid and day >= ${span.from}::date and day <= ${span.to}::date
      group by owner_id
    ) l
    join contacts o on o.id = l.owner_id
    order by o.reference collate "C"`.execute(db);
  return rows;
}

/** The owners cut into batches of about `lines` lines, in order. */
export function ownerBatches(owners: MonthOwner[], lines: number): MonthOwner[][] {
  const batches: MonthOwner[][] = [];
  let batch: MonthOwner[] = [];
  let count = 0;
  for (const owner of owners) {
    if (batch.length > 0 && count + owner.lines > lines) {
      batches.push(batch);
      batch = [];
      count = 0;
    }
    batch.push(owner);
    count += owner.lines;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** The month's lines of a batch of owners (by owner, then booking order: day, id). */
export function batchLines(db: Executor, companyId: string, span: MonthSpan, ownerIds: string[]) {
  return selectLines(db, companyId, span.from, span.to)
    .select(sql<string>`l.owner_id::text`.as('owner_id'))
    .where('l.owner_id', 'in', ownerIds);
}

async function* batchedStatements(
  db: Executor,
  company: Company,
  span: MonthSpan,
  closing: Closing,
  owners: MonthOwner[],
): AsyncGenerator<StatementData[]> {
  for (const batch of ownerBatches(owners, statementsBatchLines)) {
    const ids = batch.map((owner) => owner.id);
    const [lines, opening] = await Promise.all([
      batchLines(db, company.id, span, ids).execute(),
      openings(db, company, ids, span),
    ]);
    const byOwner = new Map<string, LineRow[]>(ids.map((id) => [id, []]));
    for (const { owner_id, ...line } of lines) byOwner.get(owner_id)?.push(line);
    yield batch.map((owner) => ({
      owner: { id: owner.id, reference: owner.reference, name: owner.name },
      company,
      span,
      closing,
      lines: byOwner.get(owner.id) ?? [],
      opening: company.settings.statement_balance === 'carried' ? (opening.get(owner.id) ?? new Map()) : null,
    }));
  }
}

/** Every owner statement of `month` (`YYYY-MM`): none when no owner has a line in it (a future month too). */
export async function monthStatements(db: Executor, company: Company, month: string, now: Date): Promise<MonthStatements> {
  const span = monthSpan(month);
  const [closing, owners] = await Promise.all([monthClosing(db, company, month, now), monthOwners(db, company.id, span)]);
  return { span, closing, owners, statements: () => batchedStatements(db, company, span, closing, owners) };
}
