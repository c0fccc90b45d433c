import { z } from '@hono/zod-openapi';
import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { ifNoneMatch } from '../../lib/etag';
import type { Handler } from '../../lib/routes';
import { slugParam } from '../../schema/stay/bookings';
import { calendarFeedOf } from './calendar-feed';

const route = defineRoute({
  method: 'get',
  path: '/listings/{slug}/calendar.ics',
  operationId: 'getListingCalendarFeed',
  tags: ['Bookings'],
  summary: "A holiday home's taken nights as an iCalendar feed",
  description:
    'For channel managers (Airbnb, Booking.com, …) that import a calendar by URL: the blocked ranges `GET /listings/{slug}/availability` answers for its default window (today in the company’s time zone and the 365 days after; the home’s turnover days are kept around its bookings, not around stays imported from channels), one all-day event per range (`DTSTART;VALUE=DATE` the first night, `DTEND;VALUE=DATE` the day after the last), summary "Not available", nothing about guests. `UID`s are stable for a range; a range that grows or shrinks is a new event. 404 like availability. A weak ETag (the home’s name and ranges, not the DTSTAMP of the request) and `Cache-Control: no-cache`: a 304 is cheap. `channel`: the feed for one channel, without the blocks imported from that import (so a channel never re-imports its own events); an `import_id` that is not this home’s is 404.',
  access: { kind: 'public', scopes: ['read:listings'] },
  request: {
    params: slugParam,
    query: z.strictObject({
      channel: z.string().uuid().optional().openapi({
        description: 'An `import_id` of this home: its feed without what came from that channel.',
      }),
    }),
  },
  responses: {
    200: {
      description: 'The calendar (RFC 5545)',
      content: { 'text/calendar': { schema: z.string().openapi({ example: 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\n…' }) } },
    },
    304: { description: 'Not modified (If-None-Match)' },
  },
});

const getCalendarFeed: Handler<typeof route> = async (c) => {
  const host = new URL(c.req.url).hostname;
  const { channel } = c.req.valid('query');
  const feed = await calendarFeedOf(c.var.services, c.var.company, c.req.valid('param').slug, host, channel);
  const headers = { ETag: feed.etag, 'Cache-Control': 'no-cache' };
  if (ifNoneMatch(c.req.header('If-None-Match'), feed.etag)) return c.body(null, 304, headers);
  return c.body(feed.text(), 200, {
    ...headers,
    'Content-Type': 'text/calendar; charset=utf-8',
    'Content-Disposition': `inline; filename="${feed.slug}.ics"`,
  });
};

export const calendarFeed = createRouter().openapi(route, getCalendarFeed);
