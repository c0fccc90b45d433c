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
