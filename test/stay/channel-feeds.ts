import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/**
 * A test channel on a loopback HTTP server (issue 24): it serves iCalendar feeds shaped like the channels' exports,
 * written from RFC 5545 and the channels' published descriptions (docs/calendar-imports.md cites them), with ETag and
 * Last-Modified, answering 304 to a matching conditional GET, and counting requests.
 */
export type Channel = {
  url: (path: string) => string;
  /** Sets what `path` serves (a feed's text, or an HTTP status with a body). */
  serve: (path: string, body: string, status?: number) => void;
  /** Requests to `path`, with their If-None-Match headers. */
  requests: (path: string) => Array<{ ifNoneMatch: string | undefined }>;
  close: () => Promise<void>;
};

export async function testChannel(): Promise<Channel> {
  const feeds = new Map<string, { body: string; status: number; etag: string }>();
  const seen = new Map<string, Array<{ ifNoneMatch: string | undefined }>>();
  let version = 0;
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    const list = seen.get(path) ?? [];
    list.push({ ifNoneMatch: req.headers['if-none-match'] });
    seen.set(path, list);
    const feed = feeds.get(path);
    if (!feed) {
      res.writeHead(404).end('not found');
      return;
    }
    if (feed.status !== 200) {
      res.writeHead(feed.status).end(feed.body);
      return;
    }
    if (req.headers['if-none-match'] === feed.etag) {
      res.writeHead(304, { ETag: feed.etag }).end();
      return;
    }
    res
      .writeHead(200, {
        'Content-Type': 'text/calendar; charset=utf-8',
        ETag: feed.etag,
        'Last-Modified': 'Thu, 26 Nov 2026 10:00:00 GMT',
      })
      .end(feed.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    serve: (path, body, status = 200) => {
      feeds.set(path, { body, status, etag: `"v${++version}"` });
    },
    requests: (path) => seen.get(path) ?? [],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A test channel made before the file's tests and closed after them: `const channel = useChannel();`. */
export function useChannel(): Channel {
  const channel = {} as Channel;
  beforeAll(async () => {
    Object.assign(channel, await testChannel());
  });
  afterAll(() => channel.close?.());
  return channel;
}

const compact = (date: string) => date.replaceAll('-', '');
const lines = (...all: string[]) => `${all.join('\r\n')}\r\n`;

/**
 * Airbnb's export: all-day events (DTSTART;VALUE=DATE / DTEND;VALUE=DATE, DTEND the checkout day), a reservation
 * ("Reserved", with a reservation link in DESCRIPTION) and host-blocked windows ("Airbnb (Not available)"), UIDs
 * ending "@airbnb.com".
 */
export function airbnbFeed(events: Array<{ uid: string; start: string; end: string; blocked?: boolean }>): string {
  return lines(
    'BEGIN:VCALENDAR',
    'PRODID:-//Airbnb Inc//Hosting Calendar 1.0//EN',
    'CALSCALE:GREGORIAN',
    'VERSION:2.0',
    ...events.flatMap((e) => [
      'BEGIN:VEVENT',
      `DTEND;VALUE=DATE:${compact(e.end)}`,
      `DTSTART;VALUE=DATE:${compact(e.start)}`,
      `UID:${e.uid}@airbnb.com`,
      e.blocked ? 'SUMMARY:Airbnb (Not available)' : 'SUMMARY:Reserved',
      ...(e.blocked
        ? []
        : [
            'DESCRIPTION:Reservation URL: https://www.airbnb.com/hosting/reservations/details/HMABC123\\nPhone Number (Last 4 Digits): 1234',
          ]),
      'END:VEVENT',
    ]),
    'END:VCALENDAR',
  );
}

/** Booking.com's export: all-day "CLOSED - Not available" events with a DTSTAMP, UIDs of its own. */
export function bookingComFeed(events: Array<{ uid: string; start: string; end: string }>): string {
  return lines(
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Booking.com//Booking.com Calendar//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    ...events.flatMap((e) => [
      'BEGIN:VEVENT',
      'DTSTAMP:20261126T100000Z',
      `DTSTART;VALUE=DATE:${compact(e.start)}`,
      `DTEND;VALUE=DATE:${compact(e.end)}`,
      `UID:${e.uid}`,
      'SUMMARY:CLOSED - Not available',
      'END:VEVENT',
    ]),
    'END:VCALENDAR',
  );
}

/**
 * A channel manager's export (RFC 5545 §3.6.1, §3.6.5, §3.8.5.3): a timed stay in Europe/London with its VTIMEZONE
 * (15:00 → 11:00), a weekly one-night owner block (RRULE, COUNT=3), and a CANCELLED reservation (§3.8.1.11).
 */
export function channelManagerFeed(o: { stay: [string, string]; weekly: string; cancelled: [string, string] }): string {
  return lines(
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Example Channel Manager//Sync 3.2//EN',
    'BEGIN:VTIMEZONE',
    'TZID:Europe/London',
    'BEGIN:STANDARD',
    'DTSTART:19701025T020000',
    'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU',
    'TZOFFSETFROM:+0100',
    'TZOFFSETTO:+0000',
    'TZNAME:GMT',
    'END:STANDARD',
    'BEGIN:DAYLIGHT',
    'DTSTART:19700329T010000',
    'RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=-1SU',
    'TZOFFSETFROM:+0000',
    'TZOFFSETTO:+0100',
    'TZNAME:BST',
    'END:DAYLIGHT',
    'END:VTIMEZONE',
    'BEGIN:VEVENT',
    'UID:res-1001@cm.example',
    'DTSTAMP:20261126T100000Z',
    `DTSTART;TZID=Europe/London:${compact(o.stay[0])}T150000`,
    `DTEND;TZID=Europe/London:${compact(o.stay[1])}T110000`,
    'SUMMARY:Reservation 1001',
    'STATUS:CONFIRMED',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:owner-weekly@cm.example',
    'DTSTAMP:20261126T100000Z',
    `DTSTART;VALUE=DATE:${compact(o.weekly)}`,
    'DURATION:P1D',
    'RRULE:FREQ=WEEKLY;COUNT=3',
    'SUMMARY:Owner stay',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:res-1002@cm.example',
    'DTSTAMP:20261126T100000Z',
    `DTSTART;VALUE=DATE:${compact(o.cancelled[0])}`,
    `DTEND;VALUE=DATE:${compact(o.cancelled[1])}`,
    'SUMMARY:Reservation 1002',
    'STATUS:CANCELLED',
    'END:VEVENT',
    'END:VCALENDAR',
  );
}
