import ICAL from 'ical.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { demo } from '../support/harness';
import {
  addBlock,
  anonymousOf,
  availability,
  book,
  calendarFeed,
  day,
  newHome,
  setup,
  step,
  useStay,
  villa,
  villaAr,
} from './support';
import { importCatalogue } from '../support/world';

/** GET /listings/{slug}/calendar.ics, read back with an iCalendar parser (ical.js) and compared with availability. */
const ctx = useStay();
let home: string;
const guest = { name: 'Layla Guest', phone: '+971501234567' };
let references: string[] = [];

beforeAll(async () => {
  home = await newHome(ctx);
  const held = await book(ctx, home, day(10), day(13), guest);
  const confirmed = await book(ctx, home, day(13), day(15), guest);
  expect((await step(ctx, confirmed.reference, 'confirm')).status).toBe(200);
  expect((await addBlock(ctx, home, day(22), day(25))).status).toBe(201);
  expect((await addBlock(ctx, home, day(40), day(41), 'maintenance')).status).toBe(201);
  references = [held.reference, confirmed.reference];
});

const feed = (slug: string, o: { headers?: Record<string, string>; query?: string } = {}) => calendarFeed(ctx, slug, o);

/** The all-day events of a calendar, as [first night, day after the last night], with their UIDs. */
function events(text: string) {
  const calendar = new ICAL.Component(ICAL.parse(text));
  expect(calendar.name).toBe('vcalendar');
  return calendar.getAllSubcomponents('vevent').map((vevent) => {
    const start = vevent.getFirstPropertyValue('dtstart') as ICAL.Time;
    const end = vevent.getFirstPropertyValue('dtend') as ICAL.Time;
    expect([start.isDate, end.isDate]).toEqual([true, true]);
    return { start: start.toString(), end: end.toString(), uid: String(vevent.getFirstPropertyValue('uid')) };
  });
}

describe('the iCalendar feed of a holiday home', () => {
  it('has one all-day event per blocked range of availability, and nothing about the guests', async () => {
    const res = await feed(home);
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/calendar; charset=utf-8');
    const blocked = (await availability(ctx, home)).json.blocked as Array<{ start: string; end: string }>;
    expect(blocked).toEqual([
      { start: day(10), end: day(15) },
      { start: day(22), end: day(25) },
      { start: day(40), end: day(41) },
    ]);
    expect(events(res.text).map(({ start, end }) => ({ start, end }))).toEqual(blocked);
    expect(res.text).toMatch(/\r\nDTSTART;VALUE=DATE:\d{8}\r\n/);
    for (const secret of ['Layla', 'Guest', '501234567', 'example.com', ...references]) expect(res.text).not.toContain(secret);
  });

  it('ends every content line with CRLF, the last one included (RFC 5545 §3.1), on the bytes sent', async () => {
    const sent = await anonymousOf(ctx).GET('/api/v1/listings/{slug}/calendar.ics', {
      params: { path: { slug: home } },
      parseAs: 'arrayBuffer',
    });
    expect(sent.response.status).toBe(200);
    const bytes = new Uint8Array(sent.data as ArrayBuffer);
    const text = new TextDecoder().decode(bytes);
    expect(text.endsWith('END:VCALENDAR\r\n'), JSON.stringify(text.slice(-20))).toBe(true);
    expect([...bytes.slice(-2)]).toEqual([0x0d, 0x0a]);
    const bareLineFeeds = [...bytes.keys()].filter((i) => bytes[i] === 0x0a && bytes[i - 1] !== 0x0d);
    expect(bareLineFeeds).toEqual([]);
  });

  it('keeps UIDs across exports, gives a new range its own, and answers 304 to its weak ETag', async () => {
    const first = await feed(home);
    const again = await feed(home);
    expect(events(again.text)).toEqual(events(first.text));
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"[0-9a-f]{24}"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const unchanged = await feed(home, { headers: { 'If-None-Match': etag } });
    expect([unchanged.status, unchanged.text]).toEqual([304, '']);

    expect((await addBlock(ctx, home, day(60), day(62))).status).toBe(201);
    const changed = await feed(home, { headers: { 'If-None-Match': etag } });
    expect(changed.status).toBe(200);
    const uids = events(first.text).map((e) => e.uid);
    const now = events(changed.text);
    expect(now.slice(0, uids.length).map((e) => e.uid)).toEqual(uids);
    expect(now.at(-1)).toMatchObject({ start: day(60), end: day(62) });
    expect(new Set(now.map((e) => e.uid)).size).toBe(now.length);
  });

  it('answers by the Arabic slug too, and 404 (problem+json) for a listing that is not a bookable holiday home', async () => {
    expect((await feed(villaAr)).status).toBe(200);
    for (const slug of ['marina-gate-2br-sea-view', 'no-such-home']) {
      const res = await feed(slug);
      expect(res.status, slug).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const off = await setup({ api: ctx.api, settings: { bookings_enabled: false } });
    const closed = await calendarFeed(off, villa);
    expect(closed.status).toBe(404);
  });

  it('gives a renamed home a new ETag: the calendar carries its name', async () => {
    const slug = await newHome(ctx);
    const first = await feed(slug);
    expect(first.text).toContain('NAME:');
    const villaListing = demo.listings.find((l) => l.slug.en === villa)!;
    const renamed = { ...villaListing, slug: { en: slug, ar: `بيت-${slug}` }, title: { en: 'Renamed beach villa' } };
    await importCatalogue(ctx.api, ctx.company.id, { listings: [renamed] });
    const again = await feed(slug, { headers: { 'If-None-Match': first.headers.get('etag')! } });
    expect(again.status).toBe(200);
    expect(again.text).toContain('\r\nNAME:Renamed beach villa\r\n');
    expect(again.headers.get('etag')).not.toBe(first.headers.get('etag'));
  });

  it('keeps a title with line breaks, commas and semicolons inside the NAME: no line of it becomes calendar content', async () => {
    const slug = await newHome(ctx);
    const title =
      'Villa; sea, sun\\\r\nBEGIN:VEVENT\r\nUID:x\r\nDTSTART;VALUE=DATE:20270101\r\nSUMMARY:Layla Guest\r\nEND:VEVENT\nX-EVIL:1';
    const villaListing = demo.listings.find((l) => l.slug.en === villa)!;
    const listing = { ...villaListing, slug: { en: slug, ar: `بيت-${slug}` }, title: { en: title } };
    await importCatalogue(ctx.api, ctx.company.id, { listings: [listing] });
    expect((await addBlock(ctx, slug, day(5), day(7))).status).toBe(201);
    const res = await feed(slug);
    expect(res.status).toBe(200);
    expect(res.text).not.toMatch(/\r\n(BEGIN:VEVENT\r\nUID:x|SUMMARY:Layla|X-EVIL)/);
    expect(events(res.text).map(({ start, end }) => ({ start, end }))).toEqual([{ start: day(5), end: day(7) }]);
    const calendar = new ICAL.Component(ICAL.parse(res.text));
    // One line: the breaks read as spaces; read as TEXT (RFC 7986 NAME; ical.js does not know it), the title's own
    // characters come back unescaped.
    const name = String(calendar.getFirstPropertyValue('name'));
    expect(ICAL.design.icalendar.value.text.fromICAL(name)).toBe(
      'Villa; sea, sun\\ BEGIN:VEVENT UID:x DTSTART;VALUE=DATE:20270101 SUMMARY:Layla Guest END:VEVENT X-EVIL:1',
    );
  });

  it("never answers for another company's home, nor for a home that is not published", async () => {
    // Another company with bookings on and the same demo catalogue: this test's home is not its own.
    const other = await setup({ api: ctx.api });
    const foreign = await calendarFeed(other, home);
    expect(foreign.status).toBe(404);
    expect(foreign.text).not.toContain('VCALENDAR');
    const draft = await newHome(ctx, { status: 'draft' });
    expect((await feed(draft)).status).toBe(404);
  });

  it('has a component when no night is taken (RFC 5545 §3.4 `icalbody = calprops component`): a VFREEBUSY of the window', async () => {
    const empty = await newHome(ctx);
    const res = await feed(empty);
    expect(res.status, res.text).toBe(200);
    // The grammar, read from RFC 5545: §3.4 `icalobject = "BEGIN" ":" "VCALENDAR" CRLF icalbody "END" ":" "VCALENDAR"
    // CRLF`, `component = 1*(eventc / todoc / journalc / freebusyc / timezonec / iana-comp / x-comp)`; §3.6.4
    // `fbprop`: DTSTAMP and UID required, once; DTSTART and DTEND at most once, in UTC ("MUST be specified in the UTC
    // time format"); §3.1 every content line ends with CRLF.
    const lines = res.text.split('\r\n');
    expect(lines.at(-1)).toBe('');
    expect(lines[0]).toBe('BEGIN:VCALENDAR');
    expect(lines.at(-2)).toBe('END:VCALENDAR');
    const components = ['VEVENT', 'VTODO', 'VJOURNAL', 'VFREEBUSY', 'VTIMEZONE'];
    const begun = lines.filter((l) => l.startsWith('BEGIN:') && components.includes(l.slice(6)));
    expect(begun.length).toBeGreaterThanOrEqual(1);
    // Read back with an iCalendar parser: one VFREEBUSY, no event (no night is blocked by it), its properties as §3.6.4.
    const calendar = new ICAL.Component(ICAL.parse(res.text));
    expect(calendar.getAllSubcomponents('vevent')).toEqual([]);
    const [freeBusy, ...more] = calendar.getAllSubcomponents('vfreebusy');
    expect(more).toEqual([]);
    for (const name of ['dtstamp', 'uid', 'dtstart', 'dtend']) expect(freeBusy!.getAllProperties(name), name).toHaveLength(1);
    expect(freeBusy!.getAllProperties('freebusy')).toEqual([]);
    const start = freeBusy!.getFirstPropertyValue('dtstart') as ICAL.Time;
    const end = freeBusy!.getFirstPropertyValue('dtend') as ICAL.Time;
    expect([start.zone?.tzid, end.zone?.tzid]).toEqual(['UTC', 'UTC']);
    // The window of availability's default answer: today and the 365 days after.
    expect([start.toString().slice(0, 10), end.toString().slice(0, 10)]).toEqual([day(0), day(365)]);
    // A calendar with events has no VFREEBUSY: its events are its components.
    expect((await feed(home)).text).not.toContain('VFREEBUSY');
  });

  it('refuses query parameters it does not know (400, not a calendar)', async () => {
    const res = await feed(home, { query: '?from=2026-01-01' });
    expect(res.status).toBe(400);
    expect(res.json.errors).toEqual([expect.objectContaining({ path: 'from', code: 'unknown_field' })]);
  });
});
