import { sql } from 'kysely';
import type { Executor } from '../../lib/db/index';
import { type Closing, type MonthSpan, monthClosing, monthSpan } from '../../lib/statement-months';
import type { Company } from '../../schema/platform/db';
import { dirhamEntries, dirhamFacts, hasDirham } from './journal-dirham';
import { type AccountMap, mappedAccounts, sideOf } from './journal-accounts';
import { bookedPayments, bookedRefunds, entryOf, type JournalEntry, paymentEntryOf, refundEntryOf, vatBooked } from './journal';
import { booksVat, offlineBookingEntry, offlineBookingVat } from './journal-vat';
import { selectLines } from './statements';

/**
 * A month's journal, read to be streamed (issue 39): what must be known before the first byte (the closing, the
 * accounts the entries post to, the currencies, the owners read) from one summary of the statement lines, and the
 * entries in booking order, read in keyset batches of {@link journalBatchSize} lines, so the memory a journal needs
 * does not grow with the company's leases. The other entries (online payments and refunds, bookings paid offline, the
 * Tourism Dirham) are few beside the lines and read whole.
 */
export type JournalData = {
  span: MonthSpan;
  closing: Closing;
  accounts: AccountMap;
  /** The currencies of the month's entries, sorted. */
  currencies: string[];
  /** The owners the entries name, each once (for the read's audit). */
  owners: string[];
  /** The entries in booking order (by day; within a day the lines by id, then the others), a piece at a time. */
  entries: () => AsyncGenerator<JournalEntry[]>;
};

export const journalBatchSize = 1000;

/**
 * The entries handed on at a time (each written as a chunk): a batch's lines are made entries and written this many at
 * a time, not a whole batch at once. A thousand entries alive across the writing of their text outlived two of V8's
 * young-generation collections and were promoted to the old generation, where, as garbage, they stayed until a full
 * collection: the process grew with the month's batches; a hundred die young (issue 39, docs/performance.md).
 */
export const journalPieceSize = 100;

type LineSummary = { currency: string; last: string; bookings: boolean; vat: boolean };

/** Per currency: the month's last line (the stream reads none after it), and whether a line is a booking's or books VAT. */
async function lineSummary(db: Executor, companyId: string, span: MonthSpan, currency: string | undefined) {
  const kinds = [...vatBooked];
  const { rows } = await sql<LineSummary>`
    select currency, max(id)::text as last, bool_or(booking_id is not null) as bookings,
      bool_or(kind in (${sql.join(kinds)}) and vat is not null and vat <> 0) as vat
    from owner_statement_lines
    where company_id = ${companyId}::uuid and day >= ${span.from}::date and day <= ${span.to}::date
      ${currency === undefined ? sql`` : sql`and currency = ${currency}`}
    group by currency`.execute(db);
  return rows;
}

/** The owners of the month's lines, in the order of their first line. */
async function lineOwners(db: Executor, companyId: string, span: MonthSpan, currency: string | undefined) {
  const { rows } = await sql<{ reference: string }>`
    select o.reference from (
      select distinct on (owner_id) owner_id, day, id from owner_statement_lines
      where company_id = ${companyId}::uuid and day >= ${span.from}::date and day <= ${span.to}::date
        ${currency === undefined ? sql`` : sql`and currency = ${currency}`}
      order by owner_id, day, id
    ) first
    join contacts o on o.id = first.owner_id
    order by first.day, first.id`.execute(db);
  return rows.map((row) => row.reference);
}

/** The batch of the month's lines after `after` (by day, then id), up to the line `last` (bench/scale.ts explains it). */
export function lineBatch(
  db: Executor,
  companyId: string,
  span: MonthSpan,
  currency: string | undefined,
  last: bigint,
  after: { day: string; id: string } | undefined,
) {
  // The batch's ids first, from the lines alone (their index by company, day and id), then only those joined: joined
  // first, the planner joined the rest of the month's lines before it kept a batch (195 ms a batch at 10,000 leases).
  let ids = db
    .selectFrom('owner_statement_lines as s')
    .select('s.id')
    .where('s.company_id', '=', companyId)
    .where('s.day', '>=', span.from)
    .where('s.day', '<=', span.to)
    .where('s.id', '<=', last.toString())
    .orderBy('s.day')
    .orderBy('s.id')
    .limit(journalBatchSize);
  if (currency !== undefined) ids = ids.where('s.currency', '=', currency);
  if (after) ids = ids.where(sql<boolean>`(s.day, s.id) > (${after.day}::date, ${after.id}::bigint)`);
  return selectLines(db, companyId, span.from, span.to)
    .innerJoin('contacts as o', 'o.id', 'l.owner_id')
    .select('o.reference as owner')
    .where('l.id', 'in', ids);
}

/**
 * The month's lines as entries, read `journalBatchSize` at a time after (day, id), up to the summary's last line (one
 * written while the journal streams is not in it), handed on `journalPieceSize` at a time, merged with the other
 * entries (`others`, sorted by day): those of a day follow its lines, as they did when the whole month was sorted at
 * once.
 */
async function* mergedEntries(
  db: Executor,
  companyId: string,
  span: MonthSpan,
  currency: string | undefined,
  last: bigint | null,
  accounts: AccountMap,
  others: JournalEntry[],
): AsyncGenerator<JournalEntry[]> {
  let next = 0;
  let after: { day: string; id: string } | undefined;
  while (last !== null) {
    const lines = await lineBatch(db, companyId, span, currency, last, after).execute();
    let batch: JournalEntry[] = [];
    for (const line of lines) {
      while (next < others.length && (others[next] as JournalEntry).day < line.day) batch.push(others[next++] as JournalEntry);
      batch.push(entryOf(line, accounts));
      if (batch.length >= journalPieceSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
    if (lines.length < journalBatchSize) break;
    const end = lines.at(-1) as (typeof lines)[number];
    after = { day: end.day, id: end.id };
  }
  if (next < others.length) yield others.slice(next);
}

/**
 * The month's journal (one currency's, when given), with the accounts it posts to; for a CSV (`csv`) every account
 * must be mapped (the payments' accounts too when the month has an online payment or refund, `booking_receipts` when
 * it has a booking's, `vat_payable` when it books VAT): 409 before any entry is read otherwise.
 */
export async function monthJournal(
  db: Executor,
  company: Company,
  month: string,
  currency: string | undefined,
  now: Date,
  csv: boolean,
): Promise<JournalData> {
  const span = monthSpan(month);
  const closing = await monthClosing(db, company, month, now);
  const [summary, owners, payments, refunds, offline, dirham] = await Promise.all([
    lineSummary(db, company.id, span, currency),
    lineOwners(db, company.id, span, currency),
    bookedPayments(db, company.id, span.from, span.to, currency),
    bookedRefunds(db, company.id, span.from, span.to, currency),
    offlineBookingVat(db, company.id, span.from, span.to, currency),
    dirhamFacts(db, company, span, closing, currency, now),
  ]);
  const reads = [...payments, ...refunds];
  const bookings =
    summary.some((row) => row.bookings) ||
    reads.some((row) => row.booking !== null) ||
    offline.length > 0 ||
    dirham.owed.length > 0;
  const vat = summary.some((row) => row.vat) || booksVat(reads) || offline.length > 0;
  const accounts = mappedAccounts(company, csv, payments.length + refunds.length > 0, bookings, vat, hasDirham(dirham));
  const others = [
    ...payments.map((payment) => paymentEntryOf(payment, accounts)),
    ...refunds.map((refund) => refundEntryOf(refund, accounts)),
    ...offline.map((read) => ({
      ...offlineBookingEntry(read, sideOf(accounts, read.currency)),
      kind: 'booking_paid_offline' as const,
    })),
    ...dirhamEntries(dirham, span, accounts),
  ].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  const last = summary.reduce<bigint | null>(
    (max, row) => (max === null || BigInt(row.last) > max ? BigInt(row.last) : max),
    null,
  );
  return {
    span,
    closing,
    accounts,
    currencies: [...new Set([...summary.map((row) => row.currency), ...others.map((entry) => entry.currency)])].sort(),
    owners: [...new Set([...owners, ...others.flatMap((entry) => (entry.owner === null ? [] : [entry.owner]))])],
    entries: () => mergedEntries(db, company.id, span, currency, last, accounts, others),
  };
}
