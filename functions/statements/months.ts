import { addDays, todayIn } from '../../lib/dates';
import type { Company, CompanySettings } from '../../schema/platform/db';

/**
 * Months of the company's calendar, and when one closes. A month's lines are final from its last day: every line's
 * day is the day it was booked, always "today" in the company's time zone, so nothing is booked into a month that is
 * over. The company's `statement_grace_days` (default 5) only delay its `closed` status and `owner_statement.ready`,
 * so the office can review the month before owners are told.
 */
export const statementDefaults = { statement_grace_days: 5 } as const;

export type MonthSpan = { month: string; from: string; to: string; next: string };

/** `YYYY-MM` as its first day, last day and the next month's first day. */
export function monthSpan(month: string): MonthSpan {
  const year = Number(month.slice(0, 4));
  const index = Number(month.slice(5, 7));
  const from = `${month}-01`;
  const next = index === 12 ? `${year + 1}-01-01` : `${month.slice(0, 5)}${String(index + 1).padStart(2, '0')}-01`;
  return { month, from, to: addDays(next, -1), next };
}

/** The month `YYYY-MM` of a day `YYYY-MM-DD`. */
export const monthOf = (day: string) => day.slice(0, 7);

export function graceDays(company: { settings: CompanySettings }): number {
  return company.settings.statement_grace_days ?? statementDefaults.statement_grace_days;
}

export type Closing = { status: 'open' | 'closed'; closes_on: string };

/** When a month closes (the next month's first day plus the grace days) and whether it has, at `now`. */
export function closingOf(company: Pick<Company, 'time_zone' | 'settings'>, month: string, now: Date): Closing {
  const closes_on = addDays(monthSpan(month).next, graceDays(company));
  return { status: todayIn(company.time_zone, now) >= closes_on ? 'closed' : 'open', closes_on };
}

/** The first month still open at `now`: every earlier month is closed. */
export function firstOpenMonth(company: Pick<Company, 'time_zone' | 'settings'>, now: Date): string {
  return monthOf(addDays(todayIn(company.time_zone, now), -graceDays(company)));
}
