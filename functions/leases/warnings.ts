import Big from 'big.js';
import { addDays, daysBetween } from '../../lib/dates';
import { fixedTo, percentText } from '../../lib/money';
import type { NoticeIntent, NoticeParty, Warning } from '../../schema/leases/db';
import type { LeaseRules } from './rules';
import { annualRent, type Rent, type Term } from './term';

/**
 * The lease warnings (the spec's codes): company rules a write breaks, never a refusal. Each is a pure function of the
 * lease, the company's rules (its settings) and, for a notice given without a date, today.
 */

export type Notice = {
  given_on: string;
  given_by: NoticeParty;
  intent: NoticeIntent;
  /** A vacate notice's day of leaving; null: the term's last day. */
  vacate_on: string | null;
};

/** The facts the warnings read: the lease's home and terms, the rent of the lease it renews, and its notices. */
export type LeaseFacts = {
  /** The home's slug and listing type (`lease`, `sale`, `holiday_home`). */
  home: { slug: string; type: string };
  term: Term;
  rent: Rent;
  deposit: string;
  notice_days: number;
  renews: { rent: Rent } | null;
};

/** The notice as recorded: given today unless the client says when. */
export function noticeGiven(input: Omit<Notice, 'given_on'> & { given_on?: string | null }, today: string): Notice {
  return { ...input, given_on: input.given_on ?? today };
}

/** The last day a notice about the term's end may be given: the term's last day minus the notice period. */
export function noticeDeadline(term: Term, noticeDays: number): string {
  return addDays(term.end, -noticeDays);
}

/** `rent_above_cap`: a renewal whose yearly rent rises above the old one by more than the company's cap. */
export function rentCapWarning(lease: LeaseFacts, rules: LeaseRules): Warning[] {
  if (lease.renews === null || rules.rentCapPercent === null) return [];
  const before = annualRent(lease.renews.rent);
  const after = annualRent(lease.rent);
  const cap = before.times(rules.rentCapPercent.plus(100)).div(100);
  if (after.lte(cap)) return [];
  const rise = before.eq(0) ? 'from nothing' : `by ${percentText(after.div(before).minus(1).times(100))}`;
  return [
    {
      code: 'rent_above_cap',
      message: `The renewal raises the rent ${rise}, above the company's cap of ${percentText(rules.rentCapPercent)}.`,
    },
  ];
}

/** `deposit_above_default`: a deposit above the company's percentage of a year's rent. */
export function depositWarning(lease: LeaseFacts, rules: LeaseRules): Warning[] {
  if (rules.depositPercent === null) return [];
  const limit = annualRent(lease.rent).times(rules.depositPercent).div(100);
  if (new Big(lease.deposit).lte(limit)) return [];
  return [
    {
      code: 'deposit_above_default',
      message: `The deposit is above ${percentText(rules.depositPercent)} of a year's rent (${fixedTo(limit, rules.digits)}).`,
    },
  ];
}

/**
 * A notice's warnings against the contract's notice period (`notice_days`):
 * - `vacate_notice_short`: a vacate notice given less than the period before its day of leaving (the term's last day
 *   unless it says another);
 * - `notice_late`: a notice to renew or to change the rent given after the last day the period allowed (the term's
 *   last day minus the period).
 */
export function noticeWarnings(notice: Notice, lease: Pick<LeaseFacts, 'term' | 'notice_days'>): Warning[] {
  if (notice.intent === 'vacate') {
    const leaving = notice.vacate_on ?? lease.term.end;
    const given = daysBetween(notice.given_on, leaving);
    if (given >= lease.notice_days) return [];
    return [
      {
        code: 'vacate_notice_short',
        message: `${given} days' notice to vacate on ${leaving}; the contract asks for ${lease.notice_days}.`,
      },
    ];
  }
  const deadline = noticeDeadline(lease.term, lease.notice_days);
  if (notice.given_on <= deadline) return [];
  return [
    {
      code: 'notice_late',
      message: `Notice given on ${notice.given_on}; the contract's ${lease.notice_days}-day notice period required it by ${deadline}.`,
    },
  ];
}

const offered: Record<string, string> = { sale: 'for sale', holiday_home: 'as a holiday home' };

/** `not_a_lease_listing`: the home is a listing the company offers otherwise than for lease (its own catalogue's rule). */
export function homeWarning(lease: LeaseFacts): Warning[] {
  if (lease.home.type === 'lease') return [];
  const how = offered[lease.home.type] ?? `as a ${lease.home.type} listing`;
  return [{ code: 'not_a_lease_listing', message: `The home ${lease.home.slug} is offered ${how}, not for lease.` }];
}

/**
 * Every warning standing on a lease: its home's listing type, its rent against the renewal cap, its deposit, its schedule's total (computed
 * with the schedule, see schedule.ts) and each notice given. The same warning twice is listed once.
 */
export function leaseWarnings(lease: LeaseFacts, notices: Notice[], scheduleWarnings: Warning[], rules: LeaseRules): Warning[] {
  const all = [
    ...homeWarning(lease),
    ...scheduleWarnings,
    ...rentCapWarning(lease, rules),
    ...depositWarning(lease, rules),
    ...notices.flatMap((notice) => noticeWarnings(notice, lease)),
  ];
  return all.filter((w, i) => all.findIndex((o) => o.code === w.code && o.message === w.message) === i);
}
