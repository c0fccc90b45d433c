import { TZDate } from '@date-fns/tz';

/**
 * Calendar dates (`YYYY-MM-DD`) as the API uses them: days of the company's time zone. Date arithmetic is
 * done on UTC midnights, where every day has 24 hours; only "now" and check-in instants involve the zone.
 */
const dayMs = 86_400_000;

export function parseDate(date: string): number {
  return Date.parse(`${date}T00:00:00Z`);
}

export function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return formatDate(parseDate(date) + days * dayMs);
}

/** Whole days from `a` to `b` (negative when b is earlier). */
export function daysBetween(a: string, b: string): number {
  return Math.round((parseDate(b) - parseDate(a)) / dayMs);
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const monthLengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeap(year) ? 29 : (monthLengths[month - 1] ?? 31);
}

/** A date's year, month (1–12) and day. */
export function dateParts(date: string): [number, number, number] {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return [y, m, d];
}

/** `date` plus `months` calendar months, the day kept or clamped to the month's last (01-31 + 1 month = 02-28). */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = dateParts(date);
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(Math.min(d, daysInMonth(year, month)), 2)}`;
}

/** The first and the last day of the month a date is in. */
export function monthAround(date: string): { first: string; last: string } {
  const first = `${date.slice(0, 8)}01`;
  return { first, last: addDays(addMonths(first, 1), -1) };
}

/** The weekday of a date: 0 is Monday … 6 is Sunday. */
export function weekdayOf(date: string): number {
  return (new Date(parseDate(date)).getUTCDay() + 6) % 7;
}

/** Today's date in a time zone. */
export function todayIn(timeZone: string, now: Date): string {
  return new TZDate(now.getTime(), timeZone).toISOString().slice(0, 10);
}

/** The instant of a local date and time (`HH:MM` or `HH:MM:SS`) in a time zone. */
export function zonedInstant(date: string, time: string, timeZone: string): Date {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const [hh, mm] = time.split(':').map(Number) as [number, number];
  return new Date(new TZDate(y, m - 1, d, hh, mm, timeZone).getTime());
}

/** Every date in [from, to). */
export function eachDate(from: string, to: string): string[] {
  const out: string[] = [];
  for (let day = from; day < to; day = addDays(day, 1)) out.push(day);
  return out;
}

/**
 * An instant as the API writes it: ISO 8601 UTC with milliseconds (null stays null). Every instant the API or a
 * webhook shows is formatted here, from a Date, a driver's timestamp text or epoch milliseconds.
 */
export function iso(value: Date | string | number): string;
export function iso(value: Date | string | number | null): string | null;
export function iso(value: Date | string | number | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}
