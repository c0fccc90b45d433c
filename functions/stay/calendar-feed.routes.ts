import { z } from '@hono/zod-openapi';
import ical, { ICalEventBusyStatus, ICalEventTransparency } from 'ical-generator';
import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { addDays, todayIn } from '../../lib/dates';
import { etagOf, ifNoneMatch } from '../../lib/etag';
import { slugParam } from '../../schema/stay/bookings';
import { takenRanges } from './calendar';
import { findBookableHome } from './homes';

const route = defineRoute({
  method: 'get',
  path: '/listings/{slug}/calendar.ics',
  operationId: 'getListingCalendarFeed',
  tags: ['Bookings'],
  summary: "A holiday home's taken nights as an iCalendar feed",
  description:
    'For channel managers (Airbnb, Booking.com, …) that import a calendar by URL: the blocked ranges `GET /listings/{slug}/availability` answers for its default window (today in the company’s time zone and the 365 days after), one all-day event per range (`DTSTART;VALUE=DATE` the first night, `DTEND;VALUE=DATE` the day after the last), summary "Not available", nothing about guests. `UID`s are stable for a range; a range that grows or shrinks is a new event. 404 like availability. A weak ETag (the home’s name and ranges, not the DTSTAMP of the request) and `Cache-Control: no-cache`: a 304 is cheap.',
  access: { kind: 'public', scopes: ['read:listings'] },
  request: { params: slugParam, query: z.strictObject({}) },
  responses: {
    200: {
      description: 'The calendar (RFC 5545)',
      content: { 'text/calendar': { schema: z.string().openapi({ example: 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\n…' }) } },
    },
    304: { description: 'Not modified (If-None-Match)' },
  },
});

const midnight = (date: string) => new Date(`${date}T00:00:00Z`);

/**
 * A TEXT value (RFC 5545, 3.3.11) on one line: control characters, line breaks included, as one space; `\`, `;`
 * and `,` escaped. ical-generator writes the calendar's NAME as given, so a title with a line break would
 * otherwise start calendar lines of its own (an event, a property) in every importer.
 */
function icalText(value: string): string {
  return value
    .replace(/\p{Cc}+/gu, ' ')
    .trim()
    .replace(/[\\;,]/g, (c) => `\\${c}`);
}

export const calendarFeed = createRouter().openapi(route, async (c) => {
  const { slug } = c.req.valid('param');
  const { db } = c.var.services;
  const company = c.var.company;
  const now = c.var.services.now();
  const from = todayIn(company.time_zone, now);
  const to = addDays(from, 365);
  const home = await findBookableHome(db, company, slug, { seasons: false });
  const { ranges } = await takenRanges(db, home.id, from, to, now);
  const name = icalText(home.title.en ?? home.slug);
  // What the calendar says, without the DTSTAMP of the request: the home's name and slug, the window, the ranges.
  const etag = `W/${await etagOf(JSON.stringify([home.slug, name, from, to, ranges]))}`;
  const headers = { ETag: etag, 'Cache-Control': 'no-cache' };
  if (ifNoneMatch(c.req.header('If-None-Match'), etag)) return c.body(null, 304, headers);

  const calendar = ical({
    name,
    prodId: { company: 'Property API', product: 'availability', language: 'EN' },
  });
  const host = new URL(c.req.url).hostname;
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
  return c.body(lines.endsWith('\r\n') ? lines : `${lines}\r\n`, 200, {
    ...headers,
    'Content-Type': 'text/calendar; charset=utf-8',
    'Content-Disposition': `inline; filename="${home.slug}.ics"`,
  });
});
