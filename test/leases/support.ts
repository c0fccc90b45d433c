import fc from 'fast-check';

/**
 * Calendar dates for the lease tests, computed apart from lib/dates and functions/leases/term.ts (so the tests do not
 * check the code with itself): JavaScript's own UTC calendar.
 */
const dayMs = 86_400_000;
const first = Date.UTC(1900, 0, 1);
const last = Date.UTC(2999, 11, 31);

export const dateOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const msOf = (date: string) => Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));

export const plusDays = (date: string, days: number) => dateOf(msOf(date) + days * dayMs);
export const daysFrom = (a: string, b: string) => Math.round((msOf(b) - msOf(a)) / dayMs);

/** `date` plus `months`, the day clamped to the last of the month. */
export function plusMonths(date: string, months: number): string {
  const y = Number(date.slice(0, 4));
  const m = Number(date.slice(5, 7)) - 1 + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return dateOf(Date.UTC(y, m, Math.min(Number(date.slice(8, 10)), lastDay)));
}

/** Any date from 1900-01-01 to 2999-12-31, leap days and the very edges more often than chance. */
export const anyDate = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: (last - first) / dayMs }).map((d) => dateOf(first + d * dayMs)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('1900-01-01', '1900-02-28', '1900-03-01', '2000-02-29', '2028-02-29', '2999-12-31', '2999-12-01'),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1900, max: 2999 })
      .map((y) => `${y}-02-${y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28}`),
  },
);

/** Any term within the years 1900 to 2999: a start and an end on or after it. */
export const anyTerm = fc.tuple(anyDate, anyDate).map(([a, b]) => (a <= b ? { start: a, end: b } : { start: b, end: a }));

/** A decimal string with `digits` digits after the point, up to `max` whole units. */
export const anyAmount = (digits: number, max = 999_999_999_999) =>
  fc
    .tuple(fc.bigInt({ min: 0n, max: BigInt(max) }), fc.integer({ min: 0, max: 10 ** digits - 1 }))
    .map(([whole, minor]) => (digits === 0 ? `${whole}` : `${whole}.${String(minor).padStart(digits, '0')}`));

/** An amount in minor units (cents), exactly, for sums the tests compare. */
export const minorUnits = (amount: string, digits: number): bigint => {
  const [whole = '0', fraction = ''] = amount.split('.');
  return BigInt(whole) * 10n ** BigInt(digits) + BigInt((fraction.padEnd(digits, '0') || '0').slice(0, digits));
};
