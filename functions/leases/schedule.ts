import Big from 'big.js';
import { addDays, addMonths } from '../../lib/dates';
import { fitsDigits, fixedTo, maxStoredAmount, splitAmount } from '../../lib/money';
import type { Warning } from '../../schema/leases/db';
import { type Term, termDays, termMonths } from './term';

/**
 * A lease's payment schedule: each row becomes a rent payment. Given as a number of payments (the term's rent split
 * into equal payments) or as explicit rows (post-dated cheques: one row per cheque, with its number and bank).
 */
export type Cheque = { number: string; bank: string };
export type ScheduleRow = { due_on: string; amount: string; cheque: Cheque | null };
export type ScheduleInput = { payments: number } | { rows: Array<{ due_on: string; amount: string; cheque?: Cheque | null }> };

/** A field the client must correct (a `400 invalid_request` entry). */
export type Problem = { path: string; code: string; message: string };

export type Schedule = { rows: ScheduleRow[]; count: number | null; warnings: Warning[] };

/**
 * The due dates of `count` equal payments over a term: every term/count months from the start when the term is whole
 * months that `count` divides (a year in 4 payments: start, +3, +6, +9 months), else every term/count days (rounded
 * down), the first on the term's first day.
 */
export function dueDates(term: Term, count: number): string[] {
  const months = termMonths(term);
  if (months !== null && months % count === 0) {
    const step = months / count;
    return Array.from({ length: count }, (_, i) => addMonths(term.start, i * step));
  }
  const days = termDays(term);
  return Array.from({ length: count }, (_, i) => addDays(term.start, Math.floor((i * days) / count)));
}

/** `total` split into `count` payments that sum to it exactly (lib/money.ts `splitAmount`: no minor unit lost). */
export { splitAmount };

/** `schedule_total_differs`: explicit rows that sum further than the company's tolerance from the term's rent. */
export function scheduleTotalWarning(rows: ScheduleRow[], rent: Big, tolerance: Big, digits: number): Warning[] {
  const sum = rows.reduce((total, row) => total.plus(row.amount), new Big(0));
  if (sum.minus(rent).abs().lte(tolerance)) return [];
  return [
    {
      code: 'schedule_total_differs',
      message: `The payments sum to ${fixedTo(sum, digits)}; the term's rent is ${fixedTo(rent, digits)}.`,
    },
  ];
}

/**
 * The schedule of a term whose rent is `rent` (already rounded to `digits`), or the problems of the input: an amount
 * with more decimals than the currency has, or a payment larger than a money column holds.
 */
export function buildSchedule(
  input: ScheduleInput,
  term: Term,
  rent: Big,
  rules: { digits: number; tolerance: Big },
): Schedule | { problems: Problem[] } {
  const { digits } = rules;
  if ('payments' in input) {
    const dates = dueDates(term, input.payments);
    const amounts = splitAmount(rent, input.payments, digits);
    const largest = maxStoredAmount(digits);
    if (new Big(amounts[0] ?? 0).gt(largest)) {
      const message = `A payment of ${amounts[0]} is above the largest amount kept (${fixedTo(largest, digits)}): use more payments.`;
      return { problems: [{ path: 'schedule.payments', code: 'amount_out_of_range', message }] };
    }
    const rows = dates.map((due_on, i) => ({ due_on, amount: amounts[i] as string, cheque: null }));
    return { rows, count: input.payments, warnings: [] };
  }
  const problems: Problem[] = [];
  input.rows.forEach((row, i) => {
    if (!fitsDigits(row.amount, digits)) {
      const message = `At most ${digits} digits after the point in this currency.`;
      problems.push({ path: `schedule.rows.${i}.amount`, code: 'currency_digits', message });
    }
  });
  if (problems.length > 0) return { problems };
  const rows = input.rows.map((row) => ({
    due_on: row.due_on,
    amount: fixedTo(row.amount, digits),
    cheque: row.cheque ?? null,
  }));
  return { rows, count: null, warnings: scheduleTotalWarning(rows, rent, rules.tolerance, digits) };
}
