import ICAL from 'ical.js';
import { addDays, todayIn } from '../../lib/dates';
import { type Environment, guardedFetch, type HostResolver, type OutboundFetch } from '../../lib/outbound/guard';

/**
 * A channel's iCalendar feed, fetched and read (issue 24). Fetching: a conditional GET (If-None-Match /
 * If-Modified-Since from the last good answer), a timeout, a size limit, at most 3 redirects followed by hand, every
 * address checked by the outbound rules (lib/outbound/guard.ts: on production no loopback, private or link-local
 * targets; a development workspace may use them). Reading: ical.js (RFC 5545: recurrences, time zones), one block
 * per event, keyed by its UID (a recurrence's occurrences by UID and start), cancelled events left out.
 */

export const feedLimits = {
  maxBytes: 2 * 1024 * 1024,
  timeoutMs: 15_000,
  maxRedirects: 3,
  maxOccurrences: 500,
  horizonDays: 730,
};

export type FeedValidators = { etag: string | null; last_modified: string | null };
export type FetchedFeed =
  | { kind: 'unchanged' }
  | { kind: 'body'; text: string; validators: FeedValidators }
  | { kind: 'failed'; error: string };

/** Fetches a feed; never throws (a failure is `failed` with what went wrong, as `last_error` shows it). */
export async function fetchFeed(
  fetcher: OutboundFetch,
  url: string,
  environment: Environment,
  previous: FeedValidators,
  resolve?: HostResolver,
): Promise<FetchedFeed> {
  let target = url;
  try {
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> = { Accept: 'text/calendar, */*;q=0.5', 'User-Agent': 'PropertyAPI-Calendars/1.0' };
      if (previous.etag) headers['If-None-Match'] = previous.etag;
      if (previous.last_modified) headers['If-Modified-Since'] = previous.last_modified;
      const init = { headers, signal: AbortSignal.timeout(feedLimits.timeoutMs) };
      const sent = await guardedFetch({ fetch: fetcher, resolveHost: resolve }, environment, target, init);
      if ('refused' in sent) return { kind: 'failed', error: `The feed address is refused: ${sent.refused}` };
      const res = sent.response;
      if (res.status >= 300 && res.status < 400 && res.status !== 304) {
        await res.body?.cancel();
        const location = res.headers.get('location');
        if (!location) return { kind: 'failed', error: `HTTP ${res.status} without a Location.` };
        if (hop >= feedLimits.maxRedirects) return { kind: 'failed', error: `More than ${feedLimits.maxRedirects} redirects.` };
        target = new URL(location, target).toString();
        continue;
      }
      if (res.status === 304) return { kind: 'unchanged' };
      if (!res.ok) {
        await res.body?.cancel();
        return { kind: 'failed', error: `HTTP ${res.status} from the feed.` };
      }
      const text = await limitedText(res, feedLimits.maxBytes);
      if (text === undefined) return { kind: 'failed', error: `The feed is larger than ${feedLimits.maxBytes} bytes.` };
      return {
        kind: 'body',
        text,
        validators: { etag: res.headers.get('etag'), last_modified: res.headers.get('last-modified') },
      };
    }
  } catch (error) {
    const name = (error as { name?: string }).name;
    if (name === 'TimeoutError' || name === 'AbortError') return { kind: 'failed', error: 'The feed did not answer in time.' };
    return { kind: 'failed', error: `The feed could not be fetched: ${(error as Error).message}` };
  }
}

/** The body as text, or undefined once it passes `max` bytes (read as a stream, so a huge body is not held). */
async function limitedText(res: Response, max: number): Promise<string | undefined> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}

/** One imported block: the event's UID (with the occurrence's start for a recurrence) and its nights [start, end). */
export type FeedEvent = { uid: string; starts_on: string; ends_on: string };

/**
 * The events of a feed as nights in the home's time zone, from today (by `now`) to the horizon. An all-day event is
 * its dates ([DTSTART, DTEND), DTEND absent: one night). A timed event (UTC, a TZID with its VTIMEZONE, or floating,
 * read in the home's zone) takes the nights from its start's date to its end's date (a stay from 15:00 on the 1st to
 * 11:00 on the 3rd: the 1st and 2nd), at least one. STATUS:CANCELLED events are left out. Throws when the text is
 * not an iCalendar (the caller keeps the last good blocks).
 */
export function readFeed(text: string, timeZone: string, now: Date): FeedEvent[] {
  const root = new ICAL.Component(ICAL.parse(text) as unknown[]);
  if (root.name !== 'vcalendar') throw new Error('The feed is not a VCALENDAR.');
  for (const zone of root.getAllSubcomponents('vtimezone')) {
    const tzid = zone.getFirstPropertyValue('tzid');
    if (typeof tzid === 'string' && !ICAL.TimezoneService.has(tzid)) ICAL.TimezoneService.register(zone);
  }
  const today = todayIn(timeZone, now);
  const horizon = addDays(today, feedLimits.horizonDays);
  const nights = (start: ICAL.Time, end: ICAL.Time | null): [string, string] => {
    const from = dateOf(start, timeZone);
    if (start.isDate) return [from, end ? dateOf(end, timeZone) : addDays(from, 1)];
    const to = end ? dateOf(end, timeZone) : from;
    return [from, to > from ? to : addDays(from, 1)];
  };
  const found = new Map<string, FeedEvent>();
  const add = (uid: string, [starts_on, ends_on]: [string, string]) => {
    if (ends_on <= starts_on || ends_on <= today || starts_on >= horizon || found.has(uid)) return;
    found.set(uid, { uid, starts_on, ends_on });
  };
  const vevents = root.getAllSubcomponents('vevent');
  const exceptions = vevents.filter((v) => v.hasProperty('recurrence-id'));
  for (const vevent of vevents) {
    if (vevent.hasProperty('recurrence-id')) continue;
    const event = new ICAL.Event(vevent);
    const uid = event.uid || `${dateOf(event.startDate, timeZone)}-${event.summary ?? ''}`;
    for (const exception of exceptions) if (exception.getFirstPropertyValue('uid') === uid) event.relateException(exception);
    const cancelled = (v: ICAL.Component) => String(v.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED';
    if (!event.isRecurring()) {
      if (!cancelled(vevent)) add(uid, nights(event.startDate, event.endDate));
      continue;
    }
    const occurrences = event.iterator();
    for (let n = 0, next = occurrences.next(); next && n < feedLimits.maxOccurrences; n++, next = occurrences.next()) {
      const details = event.getOccurrenceDetails(next);
      if (dateOf(details.startDate, timeZone) >= horizon) break;
      if (cancelled(details.item.component)) continue;
      add(`${uid}#${next.toString()}`, nights(details.startDate, details.endDate));
    }
  }
  return [...found.values()].sort((a, b) => (a.starts_on < b.starts_on ? -1 : a.starts_on > b.starts_on ? 1 : 0));
}

/** The calendar date of a time in `timeZone`: a DATE as it is; UTC or zoned as that instant there; floating as written. */
function dateOf(time: ICAL.Time, timeZone: string): string {
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const written = `${pad(time.year, 4)}-${pad(time.month)}-${pad(time.day)}`;
  if (time.isDate || time.zone === ICAL.Timezone.localTimezone || !time.zone) return written;
  return todayIn(timeZone, time.toJSDate());
}
