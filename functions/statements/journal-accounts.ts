import Big from 'big.js';
import { ApiError } from '../../lib/errors';
import { amountOut } from '../../lib/money';
import type { Company } from '../../schema/platform/db';

/** The journal's accounts (company setting `accounting_accounts`) and its lines (journal.ts). */

/** The accounts an entry uses (deposits_held is mapped for completeness: no line moves a deposit). */
export const journalAccounts = ['rent_income', 'owner_payable', 'fees', 'maintenance'] as const;
/** The accounts of online payments' entries: mapped (and shown in the totals) once a month has such an entry. */
export const paymentAccounts = ['payment_clearing', 'payment_fees', 'refunds_due'] as const;
/** The account of bookings' payments and refunds: mapped (and shown in the totals) once a month has such an entry. */
export const bookingAccounts = ['booking_receipts'] as const;
/** The account of VAT on rent and fees (issue 35): mapped (and shown in the totals) once a month has VAT to book. */
export const vatAccounts = ['vat_payable'] as const;
/** The Tourism Dirham's accounts (issue 37): mapped (and shown in the totals) once a month has its liability or payment. */
export const dirhamAccounts = ['tourism_dirham_payable', 'bank'] as const;
export type JournalAccount =
  | (typeof journalAccounts)[number]
  | (typeof paymentAccounts)[number]
  | (typeof bookingAccounts)[number]
  | (typeof vatAccounts)[number]
  | (typeof dirhamAccounts)[number];
export type AccountMap = Partial<Record<JournalAccount, { code: string; name: string }>>;

export type JournalLine = { account: JournalAccount; code: string | null; name: string | null; debit: string; credit: string };

/**
 * The company's mapped accounts (setting `accounting_accounts`). The JSON journal names each line's account by its role
 * (`code` and `name` null until mapped); the import CSVs need them all: `required` answers 409 `accounts_not_mapped`
 * naming those missing.
 */
export function mappedAccounts(
  company: Company,
  required = false,
  payments = false,
  bookings = false,
  vat = false,
  dirham = false,
): AccountMap {
  const mapped = company.settings.accounting_accounts ?? {};
  const needed: JournalAccount[] = [
    ...journalAccounts,
    ...(payments ? paymentAccounts : []),
    ...(bookings ? bookingAccounts : []),
    ...(vat ? vatAccounts : []),
    ...(dirham ? dirhamAccounts : []),
  ];
  const missing = needed.filter((account) => mapped[account] === undefined);
  if (required && missing.length > 0) {
    throw new ApiError(
      'accounts_not_mapped',
      `Map the journal's accounts first (company setting accounting_accounts): ${missing.join(', ')}.`,
    );
  }
  return mapped;
}

/** A journal line of `amount` (positive, stored form) on one side of `account`. */
export function sideOf(accounts: AccountMap, currency: string) {
  const zero = amountOut('0', currency) as string;
  return (account: JournalAccount, debit: boolean, amount: Big.Big | string): JournalLine => {
    const size = amountOut(new Big(amount).abs().toString(), currency) as string;
    return {
      account,
      code: accounts[account]?.code ?? null,
      name: accounts[account]?.name ?? null,
      debit: debit ? size : zero,
      credit: debit ? zero : size,
    };
  };
}
