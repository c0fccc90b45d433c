import ical, { ICalEventBusyStatus, ICalEventTransparency } from 'ical-generator';
import type { Range } from '../../lib/calendar';

const midnight = (date: string) => new Date(`${date}T00:00:00Z`);

/**
 * A TEXT value (RFC 5545, 3.3.11) on one line: control characters, line breaks included, as one space; `\`, `;`
 * and `,` escaped. ical-generator writes the calendar's NAME as given, so a title with a line break would
 * otherwise start calendar lines of its own (an event, a property) in every importer.
 */
export function icalText(value: string): string {
  return value
    .replace(/\p{Cc}+/gu, ' ')
    .trim()
    .replace(/[\\;,]/g, (c) => `\\${c}`);
}

/**
 * A home's taken ranges as an iCalendar feed (RFC 5545): one all-day "Not available" event per range, its UID the
 * range and the home's id (stable for a range), nothing about guests; every line ends with CRLF. `window`: the dates
 * the feed covers (a feed without ranges says it is free over them).
 */
export function presentCalendarFeed(
  home: { id: string },
  name: string,
  ranges: Range[],
  window: Range,
  now: Date,
  host: string,
): string {
  const calendar = ical({
    name,
    prodId: { company: 'Property API', product: 'availability', language: 'EN' },
  });
  for (const range of ranges) {
    calendar.createEvent({
      // The listing's id and the range: the same range keeps its UID in every export.
      id: `${range.start}-${range.end}.${home.id}@${host}`,
      start: midnight(range.start),
      end: midnight(range.end),
      allDay: true,
      summary: 'Not available',
      stamp: now,
      transparency: ICalEventTransparency.OPAQUE,
      busystatus: ICalEventBusyStatus.BUSY,
    });
  }
  // RFC 5545 §3.1: every content line ends with CRLF, the last one too; ical-generator leaves the last one bare.
  let lines = calendar.toString();
  if (!lines.endsWith('\r\n')) lines = `${lines}\r\n`;
  return ranges.length > 0 ? lines : withFreeBusy(lines, home, window, now, host);
}

/**
 * A calendar with no taken range still has a component (RFC 5545 §3.4: `icalbody = calprops component`, `component =
 * 1*(eventc / todoc / journalc / freebusyc / timezonec / …)`): one VFREEBUSY (§3.6.4) over the window with no FREEBUSY
 * period, which says in the format's own terms that no time of the window is busy. Importers that read only VEVENTs
 * pass over it, as the RFC has them pass over components they do not handle; an event would block a night.
 * ical-generator writes no VFREEBUSY, so it is put before END:VCALENDAR here; its DTSTART and DTEND are UTC, as §3.6.4
 * requires, at the window's first and last dates.
 */
function withFreeBusy(lines: string, home: { id: string }, window: Range, now: Date, host: string): string {
  const utc = (date: Date) => `${date.toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`;
  const freeBusy = [
    'BEGIN:VFREEBUSY',
    `UID:free.${window.start}-${window.end}.${home.id}@${host}`,
    `DTSTAMP:${utc(now)}`,
    `DTSTART:${utc(midnight(window.start))}`,
    `DTEND:${utc(midnight(window.end))}`,
    'END:VFREEBUSY',
  ].join('\r\n');
  return lines.replace(/END:VCALENDAR\r\n$/, `${freeBusy}\r\nEND:VCALENDAR\r\n`);
}
