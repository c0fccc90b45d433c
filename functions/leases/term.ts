import Big from 'big.js';
import { addDays, addMonths, dateParts as parts, daysBetween } from '../../lib/dates';
import { roundTo } from '../../lib/money';
import { firstDate, lastDate } from '../../schema/common/api';
import type { RentPeriod } from '../../schema/leases/db';

/**
 * A lease's term and what it costs: pure functions of calendar dates (`YYYY-MM-DD`, years 1900 to 2999) and decimal
 * strings. A term counts both its days: `{start: 2027-01-01, end: 2027-12-31}` is one year.
 */
export type Term = { start: string; end: string };
export type Rent = { amount: string; period: RentPeriod };

/** Days in a term, both ends counted. */
export function termDays(term: Term): number {
  return daysBetween(term.start, term.end) + 1;
}

/**
 * The whole months a term lasts, or null when it is not whole months. A term of N months ends the day before the
 * start's N-month anniversary (2027-03-01 to 2027-03-31), or on the anniversary of the day before its start
 * (2028-02-29 to 2029-02-28; 2027-01-31 to 2027-02-28).
 */
export function termMonths(term: Term): number | null {
  const [sy, sm] = parts(term.start);
  const [ey, em] = parts(term.end);
  const span = ey * 12 + em - (sy * 12 + sm);
  const eve = addDays(term.start, -1);
  for (const months of [span - 1, span, span + 1]) {
    if (months < 1) continue;
    if (addDays(addMonths(term.start, months), -1) === term.end || addMonths(eve, months) === term.end) return months;
  }
  return null;
}

/**
 * A renewal's default term: from the day after the old term's end, as long as the old term (the same whole months,
 * else the same number of days), ending on 2999-12-31 at the latest. Null when the old term ends on 2999-12-31.
 */
export function renewalTerm(old: Term): Term | null {
  if (old.end >= lastDate) return null;
  const start = addDays(old.end, 1);
  const months = termMonths(old);
  const end = months === null ? addDays(start, termDays(old) - 1) : addDays(addMonths(start, months), -1);
  return { start, end: end > lastDate ? lastDate : end };
}

/** A year's rent: a monthly rent times 12. */
export function annualRent(rent: Rent): Big {
  return rent.period === 'year' ? new Big(rent.amount) : new Big(rent.amount).times(12);
}

/**
 * The rent of a whole term, rounded half-up to `digits`: a term of whole months pays a month's rent per month (a
 * yearly rent is twelve months' rent); any other term pays a year's rent per 365 days, pro rata.
 */
export function termRent(rent: Rent, term: Term, digits: number): Big {
  const months = termMonths(term);
  const total =
    months === null
      ? annualRent(rent).times(termDays(term)).div(365)
      : rent.period === 'month'
        ? new Big(rent.amount).times(months)
        : new Big(rent.amount).times(months).div(12);
  return roundTo(total, digits);
}

/** Whether a date lies in the years the API takes (1900 to 2999). */
export function inRange(date: string): boolean {
  return date >= firstDate && date <= lastDate;
}
