import { describe, expect, it } from 'vitest';
import type { FeedInput } from '../../lib/ical-read';
import { nodeFeedReader } from '../../lib/node/feed-reader';

/**
 * The Node server's feed reader keeps its worker threads for the next feed (issue 39); each feed is still read as by a
 * thread of its own: a timezone another feed defined before (ical.js keeps them in one registry per thread) never
 * applies to it. A feed that names `Test/Far` without defining it reads its times as written (the stay's dates as
 * sent); feed A defines `Test/Far` at +14:00, where 05:00 is the evening before in Dubai.
 */
const far = [
  'BEGIN:VTIMEZONE',
  'TZID:Test/Far',
  'BEGIN:STANDARD',
  'DTSTART:19700101T000000',
  'TZOFFSETFROM:+1400',
  'TZOFFSETTO:+1400',
  'TZNAME:FAR',
  'END:STANDARD',
  'END:VTIMEZONE',
];
const feed = (zones: string[], uid: string) =>
  [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//feed reader//EN',
    ...zones,
    'BEGIN:VEVENT',
    `UID:${uid}`,
    'DTSTAMP:20270101T000000Z',
    'DTSTART;TZID=Test/Far:20270110T050000',
    'DTEND;TZID=Test/Far:20270112T050000',
    'SUMMARY:Reserved',
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
const read = (text: string) =>
  nodeFeedReader({ text, timeZone: 'Asia/Dubai', now: '2027-01-01T00:00:00.000Z' } satisfies FeedInput);

describe('the feed reader (Node, worker threads kept)', () => {
  it('reads a feed without the timezones a feed read before defined', async () => {
    const alone = await read(feed([], 'b@test'));
    expect(alone).toEqual({ ok: true, events: [{ uid: 'b@test', starts_on: '2027-01-10', ends_on: '2027-01-12' }] });
    expect(await read(feed(far, 'a@test'))).toEqual({
      ok: true,
      events: [{ uid: 'a@test', starts_on: '2027-01-09', ends_on: '2027-01-11' }],
    });
    expect(await read(feed([], 'b@test'))).toEqual(alone);
  });

  it('reads feeds one after another and several at once, each answered', async () => {
    const texts = Array.from({ length: 6 }, (_, i) => feed(i % 2 ? far : [], `n${i}@test`));
    const reads = await Promise.all(texts.map(read));
    expect(reads.map((r) => r.ok && r.events[0]?.starts_on)).toEqual([
      '2027-01-10',
      '2027-01-09',
      '2027-01-10',
      '2027-01-09',
      '2027-01-10',
      '2027-01-09',
    ]);
  });
});
