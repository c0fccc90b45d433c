import Big from 'big.js';
import type { Executor } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';
import { amountOut } from '../../lib/money';
import { type Closing, type MonthSpan, monthClosing, monthSpan } from '../../lib/statement-months';
import type { LineKind } from '../../schema/statements/db';
import type { Company } from '../../schema/platform/db';
import { type LineRow, selectLines } from './statements';

/**
 * The accounting journal of a month: one balanced entry per statement line of every owner (a debit and a credit of
 * the line's amount), to the accounts the company maps (setting `accounting_accounts`). The rent the bank feed booked
 * to rent income is moved to what the company owes the owner (owner payable); the fee moves from owner payable to
 * the company's fee income; an owner's maintenance charge from owner payable to maintenance (where the contractor's
 * bill was booked); a bounce or a cancellation runs the other way. So the month's credits less debits to owner payable
 * are the sum of its statements' `net`, per currency.
 */

/** The accounts an entry uses (deposits_held is mapped for completeness: no line moves a deposit). */
export const journalAccounts = ['rent_income', 'owner_payable', 'fees', 'maintenance'] as const;
type JournalAccount = (typeof journalAccounts)[number];
export type AccountMap = Partial<Record<JournalAccount, { code: string; name: string }>>;

/** The account each kind of line moves against owner payable. */
const counterAccount: Record<LineKind, JournalAccount> = {
  rent_received: 'rent_income',
  rent_reversed: 'rent_income',
  fee: 'fees',
  fee_reversed: 'fees',
  job_charge: 'maintenance',
  job_charge_cancelled: 'maintenance',
};

export const kindLabels: Record<LineKind, string> = {
  rent_received: 'Rent received',
  fee: 'Management fee',
  rent_reversed: 'Rent reversed (bounced)',
  fee_reversed: 'Management fee reversed (bounced)',
  job_charge: 'Maintenance charge',
  job_charge_cancelled: 'Maintenance charge cancelled',
};

export type JournalLine = { account: JournalAccount; code: string | null; name: string | null; debit: string; credit: string };
export type JournalEntry = LineRow & { owner: string; number: string; narration: string; lines: JournalLine[] };

export type JournalData = { span: MonthSpan; closing: Closing; entries: JournalEntry[]; accounts: AccountMap };

/**
 * The company's mapped accounts (setting `accounting_accounts`). The JSON journal names each line's account by its role
 * (`code` and `name` null until mapped); the import CSVs need them all: `required` answers 409 `accounts_not_mapped`
 * naming those missing.
 */
export function mappedAccounts(company: Company, required = false): AccountMap {
  const mapped = company.settings.accounting_accounts ?? {};
  const missing = journalAccounts.filter((account) => mapped[account] === undefined);
  if (required && missing.length > 0) {
    throw new ApiError(
      'accounts_not_mapped',
      `Map the journal's accounts first (company setting accounting_accounts): ${missing.join(', ')}.`,
    );
  }
  return mapped;
}

/** A line's balanced entry: owner payable on one side, the kind's account on the other. */
function entryOf(line: LineRow & { owner: string }, accounts: AccountMap): JournalEntry {
  const amount = new Big(line.amount);
  const size = amountOut(amount.abs().toString(), line.currency) as string;
  const zero = amountOut('0', line.currency) as string;
  const side = (account: JournalAccount, debit: boolean): JournalLine => ({
    account,
    code: accounts[account]?.code ?? null,
    name: accounts[account]?.name ?? null,
    debit: debit ? size : zero,
    credit: debit ? zero : size,
  });
  // Positive: the company owes the owner more (credit owner payable); negative: less.
  const owes = amount.gte(0);
  const number = `OS-${line.id}`;
  const about = line.lease ?? line.job ?? line.home;
  return {
    ...line,
    number,
    narration: `${number} ${kindLabels[line.kind]} ${about} (${line.home}) owner ${line.owner}`,
    lines: [side(counterAccount[line.kind], owes), side('owner_payable', !owes)],
  };
}

/**
 * The month's entries (one currency's, when given), in booking order, with the accounts they post to; for a CSV
 * (`csv`) every account must be mapped.
 */
export async function monthJournal(
  db: Executor,
  company: Company,
  month: string,
  currency: string | undefined,
  now: Date,
  csv: boolean,
): Promise<JournalData> {
  const accounts = mappedAccounts(company, csv);
  const span = monthSpan(month);
  let query = selectLines(db, company.id, span.from, span.to)
    .innerJoin('contacts as o', 'o.id', 'l.owner_id')
    .select('o.reference as owner');
  if (currency !== undefined) query = query.where('l.currency', '=', currency);
  const lines = await query.execute();
  const closing = await monthClosing(db, company, month, now);
  return { span, closing, entries: lines.map((line) => entryOf(line, accounts)), accounts };
}
