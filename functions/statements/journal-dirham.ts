import Big from 'big.js';
import type { Executor } from '../../lib/db/index';
import type { Closing, MonthSpan } from '../../lib/statement-months';
import { type DirhamMonth, dirhamJournalFacts } from '../../lib/tourism-dirham';
import type { Company } from '../../schema/platform/db';
import type { AccountMap, JournalLine } from './journal-accounts';
import { sideOf } from './journal-accounts';

/**
 * The Tourism Dirham in the journal (issue 37; lib/tourism-dirham.ts): a month's fee, collected with its guests'
 * bookings, is owed to DET. On the month's last day one entry moves the month's total (its report: a closed month's
 * as recorded, an open month's as booked so far) from booking receipts, where the guests' payments are held, to
 * `tourism_dirham_payable`, a liability; the admin action that records its payment over to DET books, on the day it
 * was paid, the liability cleared against `bank`. So the liability's balance is what is collected and not yet paid.
 */

export type DirhamKind = 'tourism_dirham' | 'tourism_dirham_paid';

export const dirhamKindLabels: Record<DirhamKind, string> = {
  tourism_dirham: 'Tourism Dirham owed to DET',
  tourism_dirham_paid: 'Tourism Dirham paid over to DET',
};

/** Whether an entry is the Tourism Dirham's (its month needs the Tourism Dirham's accounts). */
export const isDirhamEntry = (entry: { kind: string }) => entry.kind === 'tourism_dirham' || entry.kind === 'tourism_dirham_paid';

/** What an entry of the journal carries besides its kind, number, narration and lines (journal.ts JournalEntry). */
const blank = {
  lease: null,
  payment_id: null,
  charge_id: null,
  job: null,
  method: 'tourism_dirham',
  online_payment: null,
  owner: null,
  booking: null,
  vat: null,
  tax_category: null,
  rent_vat_accounted_by: null,
  refund: null,
} as const;

/** The month's Tourism Dirham facts (one currency's, when given: the fee is the company's currency, AED). */
export async function dirhamFacts(
  db: Executor,
  company: Company,
  span: MonthSpan,
  closing: Closing,
  currency: string | undefined,
  now: Date,
): Promise<DirhamFacts> {
  if (currency !== undefined && currency !== company.currency) return { owed: [], paidOver: [] };
  const facts = await dirhamJournalFacts(db, company, span.month, closing, now);
  return { owed: new Big(facts.month.total).gt(0) ? [facts.month] : [], paidOver: facts.paidOver };
}

export type DirhamFacts = {
  owed: DirhamMonth[];
  paidOver: Awaited<ReturnType<typeof dirhamJournalFacts>>['paidOver'];
};

/** Whether the month has a Tourism Dirham entry. */
export const hasDirham = (facts: DirhamFacts) => facts.owed.length + facts.paidOver.length > 0;

/** The month's Tourism Dirham entries: its liability (on its last day) and the payments over recorded on its days. */
export function dirhamEntries(facts: DirhamFacts, span: MonthSpan, accounts: AccountMap) {
  return [
    ...facts.owed.map((month) => {
      const side = sideOf(accounts, month.currency);
      const number = `TD-${month.month}`;
      const nights = month.homes.reduce((sum, home) => sum + home.bedroom_nights, 0);
      const lines: JournalLine[] = [
        side('booking_receipts', true, month.total),
        side('tourism_dirham_payable', false, month.total),
      ];
      return {
        ...blank,
        id: number,
        kind: 'tourism_dirham' as const,
        day: span.to,
        amount: month.total,
        currency: month.currency,
        home: '',
        number,
        narration: `${number} ${dirhamKindLabels.tourism_dirham} for ${month.month} (${nights} bedroom-nights)`,
        lines,
      };
    }),
    ...facts.paidOver.map((paid) => {
      const side = sideOf(accounts, paid.currency);
      const number = `TDP-${paid.month}`;
      const lines: JournalLine[] = [side('tourism_dirham_payable', true, paid.total), side('bank', false, paid.total)];
      return {
        ...blank,
        id: number,
        kind: 'tourism_dirham_paid' as const,
        day: paid.paid_on,
        amount: paid.total,
        currency: paid.currency,
        home: '',
        number,
        narration: `${number} ${dirhamKindLabels.tourism_dirham_paid} for ${paid.month} (${paid.reference})`,
        lines,
      };
    }),
  ];
}
