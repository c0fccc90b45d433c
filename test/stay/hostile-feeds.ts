/**
 * The feeds of issue 32's probes (defects 1 and 2), written from RFC 5545 (§3.6.1 VEVENT, §3.3.10 RECUR, §3.8.4.4
 * RECURRENCE-ID, §3.8.4.7 UID, §3.3.4 DATE): each is a valid iCalendar whose expansion, left unbounded, would take
 * the server's time or memory, or whose values are out of any calendar's range.
 */
const lines = (all: string[]) => `${all.join('\r\n')}\r\n`;
const compact = (date: string) => date.replaceAll('-', '');
const calendar = (...events: string[][]) =>
  lines(['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Probe//Hostile feeds//EN'].concat(events.flat(), ['END:VCALENDAR']));
const event = (uid: string, ...props: string[]) => ['BEGIN:VEVENT', `UID:${uid}`, ...props, 'END:VEVENT'];

/** A daily rule that can never match: February has no 30th (§3.3.10: BYMONTH and BYMONTHDAY limit a DAILY rule). */
export const neverMatching = (start: string) =>
  calendar(event('never@probe', `DTSTART;VALUE=DATE:${compact(start)}`, 'RRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30'));

/** A rule that repeats every second, without end. */
export const everySecond = (start: string) =>
  calendar(event('second@probe', `DTSTART:${compact(start)}T000000Z`, 'DTEND:20990101T000001Z', 'RRULE:FREQ=SECONDLY'));

/** `count` one-night events from `start` on, one after the other (21,000 take about 2 MiB). */
export function manyNights(start: string, count: number): string {
  const first = Date.parse(`${start}T00:00:00Z`);
  const day = (n: number) => new Date(first + n * 86_400_000).toISOString().slice(0, 10);
  const events = Array.from({ length: count }, (_, n) =>
    event(`n${n}@probe`, `DTSTART;VALUE=DATE:${compact(day(n))}`, `DTEND;VALUE=DATE:${compact(day(n + 1))}`),
  );
  return calendar(events.flat());
}

/**
 * `count` weekly events, each with one RECURRENCE-ID exception (its first occurrence moved a day on): related one by
 * one against every exception, as before, this is count² comparisons.
 */
export function manyExceptions(start: string, count: number): string {
  const begin = compact(start);
  const moved = compact(new Date(Date.parse(`${start}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10));
  const events = Array.from({ length: count }, (_, n) => [
    ...event(`s${n}@probe`, `DTSTART;VALUE=DATE:${begin}`, 'RRULE:FREQ=WEEKLY;COUNT=2'),
    ...event(`s${n}@probe`, `RECURRENCE-ID;VALUE=DATE:${begin}`, `DTSTART;VALUE=DATE:${moved}`),
  ]);
  return calendar(events.flat());
}

/** One event with the given DTSTART and DTEND values (dates as written: 00000101, 99991231). */
export const datedEvent = (uid: string, start: string, end: string) =>
  calendar(event(uid, `DTSTART;VALUE=DATE:${start}`, `DTEND;VALUE=DATE:${end}`));

/** One event whose UID is `length` characters long. */
export const longUid = (length: number, start: string, end: string) =>
  calendar(
    event(`${'u'.repeat(length - 10)}@probe.io`, `DTSTART;VALUE=DATE:${compact(start)}`, `DTEND;VALUE=DATE:${compact(end)}`),
  );
