import type { z } from '@hono/zod-openapi';
import Big from 'big.js';
import { stringify } from 'csv-stringify/sync';
import { ApiError } from '../../lib/errors';
import { amountOut } from '../../lib/money';
import { accountingTaxRate } from '../../lib/tax';
import type { JournalSchema, JournalTotalsSchema } from '../../schema/statements/journal';
import type { Company } from '../../schema/platform/db';
import { isBookingEntry, isPaymentEntry, isVatEntry, type JournalEntry } from './journal';
import type { JournalData } from './journal-month';
import { bookingAccounts, dirhamAccounts, journalAccounts, paymentAccounts, vatAccounts } from './journal-accounts';
import { isDirhamEntry } from './journal-dirham';

export type JournalView = z.infer<typeof JournalSchema>;
type TotalsView = z.infer<typeof JournalTotalsSchema>;

type Sums = { debit: Big; credit: Big };
type CurrencySums = { paid: boolean; booked: boolean; taxed: boolean; dirham: boolean; accounts: Map<string, Sums> };

/**
 * The journal's totals, added up entry by entry as they stream: per currency, every debit and credit, per account (the
 * payments' accounts when the currency has an online payment's or refund's entry, `booking_receipts` when it has a
 * booking's, …), and owner payable's credits less debits.
 */
export function journalTotals(): { add: (entry: JournalEntry) => void; result: () => TotalsView[] } {
  const byCurrency = new Map<string, CurrencySums>();
  const add = (entry: JournalEntry) => {
    let mine = byCurrency.get(entry.currency);
    if (!mine) {
      mine = { paid: false, booked: false, taxed: false, dirham: false, accounts: new Map() };
      byCurrency.set(entry.currency, mine);
    }
    mine.paid ||= isPaymentEntry(entry);
    mine.booked ||= isBookingEntry(entry);
    mine.taxed ||= isVatEntry(entry);
    mine.dirham ||= isDirhamEntry(entry);
    for (const line of entry.lines) {
      const sums = mine.accounts.get(line.account) ?? { debit: new Big(0), credit: new Big(0) };
      sums.debit = sums.debit.plus(line.debit);
      sums.credit = sums.credit.plus(line.credit);
      mine.accounts.set(line.account, sums);
    }
  };
  const result = () =>
    [...byCurrency.keys()].sort().map((currency) => {
      const mine = byCurrency.get(currency) as CurrencySums;
      const out = (value: Big) => amountOut(value.toString(), currency) as string;
      const shown = [
        ...journalAccounts,
        ...(mine.paid ? paymentAccounts : []),
        ...(mine.booked ? bookingAccounts : []),
        ...(mine.taxed ? vatAccounts : []),
        ...(mine.dirham ? dirhamAccounts : []),
      ];
      const zero = () => ({ debit: new Big(0), credit: new Big(0) });
      const accounts = new Map(shown.map((account) => [account, mine.accounts.get(account) ?? zero()]));
      const all = [...accounts.values()];
      const payable = accounts.get('owner_payable') as Sums;
      return {
        currency,
        debit: out(all.reduce((sum, a) => sum.plus(a.debit), new Big(0))),
        credit: out(all.reduce((sum, a) => sum.plus(a.credit), new Big(0))),
        accounts: [...accounts].map(([account, sums]) => ({ account, debit: out(sums.debit), credit: out(sums.credit) })),
        owner_payable: out(payable.credit.minus(payable.debit)),
      };
    });
  return { add, result };
}

/** The journal's opening (month, status, closing day), before its entries. */
export const journalHead = (data: JournalData) => ({
  month: data.span.month,
  status: data.closing.status,
  closes_on: data.closing.closes_on,
});

/** An entry as the JSON shows it. */
export const entryView = (entry: JournalEntry): JournalView['entries'][number] => ({
  number: entry.number,
  day: entry.day,
  kind: entry.kind,
  narration: entry.narration,
  currency: entry.currency,
  owner: entry.owner,
  lease: entry.lease,
  home: entry.home,
  payment_id: entry.payment_id,
  charge_id: entry.charge_id,
  job: entry.job,
  online_payment: entry.online_payment,
  lines: entry.lines,
});

/** A CSV holds one currency (neither import layout has a currency per line): 400 when the month has several. */
export function oneCurrency(currencies: string[]): void {
  if (currencies.length > 1) {
    const message = `The month has entries in ${currencies.join(', ')}: export one currency at a time (currency=…).`;
    throw new ApiError('invalid_request', message, { errors: [{ path: 'currency', code: 'currency_required', message }] });
  }
}

/** Entries of a zero amount (a payment of 0 received) stay in the JSON; the import layouts take no empty journal. */
const posted = (entries: JournalEntry[]) => entries.filter((entry) => !new Big(entry.amount).eq(0));

/** CSV records, each ended by CRLF: the header's, then each batch's, streamed one after another. */
export const csvRecords = (rows: string[][]) => stringify(rows, { record_delimiter: 'windows' });

/** An import layout: its header, and the rows of a batch of entries (those of a zero amount left out). */
export type CsvLayout = { header: string[]; rows: (entries: JournalEntry[], company: Company) => string[][] };

/**
 * The accounts whose rows are the supply itself (its income and its VAT): they carry the supply's tax rate name. A job
 * charge recharged (migration 0048) is the company's supply too: its maintenance row carries its category.
 */
const supplyAccounts = new Set<string>(['rent_income', 'fees', 'vat_payable', 'maintenance']);

/**
 * A row's tax rate name (issue 35): a supply's income and VAT rows (an entry of a receipt's rent, its VAT or its fee)
 * take the name of the category it was booked under (`accounting_tax_rates`, defaults in lib/tax.ts); every other row
 * (owner payable, clearing, maintenance, entries booked before VAT was recorded, and a rent whose VAT the owner accounts
 * for: the landlord's supply, not the company's) in Xero the company's no-tax name
 * `accounting_xero_tax_rate` (default "Tax Exempt"), as before; in QuickBooks no tax code (empty).
 */
function rowTaxRate(company: Company, entry: JournalEntry, account: string, format: 'xero' | 'quickbooks'): string {
  const ownersSupply =
    entry.rent_vat_accounted_by === 'owner' && (entry.kind === 'rent_received' || entry.kind === 'rent_reversed');
  if (entry.tax_category !== null && supplyAccounts.has(account) && !ownersSupply) {
    return accountingTaxRate(company.settings, entry.tax_category);
  }
  return format === 'xero' ? (company.settings.accounting_xero_tax_rate ?? 'Tax Exempt') : '';
}

/** `YYYY-MM-DD` as `DD/MM/YYYY` or `MM/DD/YYYY`. */
function dayAs(day: string, order: 'day_first' | 'month_first'): string {
  const [y, m, d] = day.split('-') as [string, string, string];
  return order === 'day_first' ? `${d}/${m}/${y}` : `${m}/${d}/${y}`;
}

/**
 * Xero's manual journal import (help.xero.com "ManualJournalsImport"; docs/api-reference.md): one row per journal
 * line, the same Narration and Date on the rows of one journal, the account's code, the tax rate's name, the amount
 * positive for a debit and negative for a credit, dates DD/MM/YYYY.
 */
export const xeroHeader = [
  '*Narration',
  '*Date',
  'Description',
  '*AccountCode',
  '*TaxRate',
  '*Amount',
  'TrackingName1',
  'TrackingOption1',
  'TrackingName2',
  'TrackingOption2',
];

export const xeroCsv: CsvLayout = {
  header: xeroHeader,
  rows: (entries, company) =>
    posted(entries).flatMap((entry) =>
      entry.lines.map((line) => [
        entry.narration,
        dayAs(entry.day, 'day_first'),
        `${line.name}: ${entry.owner ?? entry.online_payment ?? ''} ${entry.lease ?? entry.job ?? entry.booking ?? ''} ${entry.home}`.replace(
          / +/g,
          ' ',
        ),
        line.code as string,
        rowTaxRate(company, entry, line.account, 'xero'),
        new Big(line.debit).gt(0) ? line.debit : `-${line.credit}`,
        '',
        '',
        '',
        '',
      ]),
    ),
};

/**
 * QuickBooks Online's journal entry import (Intuit's "Import journal entries"; docs/api-reference.md): rows of one
 * entry share the Journal No.; the account's name; Debits or Credits, the other left empty; dates in the company's
 * `accounting_date_order`.
 */
export const quickBooksHeader = ['Journal No.', 'Journal Date', 'Account Name', 'Debits', 'Credits', 'Description', 'Tax Code'];

export const quickBooksCsv: CsvLayout = {
  header: quickBooksHeader,
  rows: (entries, company) => {
    const order = company.settings.accounting_date_order ?? 'day_first';
    return posted(entries).flatMap((entry) =>
      entry.lines.map((line) => {
        const debit = new Big(line.debit).gt(0);
        return [
          entry.number,
          dayAs(entry.day, order),
          line.name as string,
          debit ? line.debit : '',
          debit ? '' : line.credit,
          entry.narration,
          rowTaxRate(company, entry, line.account, 'quickbooks'),
        ];
      }),
    );
  },
};
