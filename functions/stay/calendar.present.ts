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
 * range and the home's id (stable for a range), nothing about guests; every line ends with CRLF.
 */
export function presentCalendarFeed(home: { id: string }, name: string, ranges: Range[], now: Date, host: string): string {
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
  const lines = calendar.toString();
  return lines.endsWith('\r\n') ? lines : `${lines}\r\n`;
}
