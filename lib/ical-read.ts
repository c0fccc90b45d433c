import ICAL from 'ical.js';
import { addDays, todayIn } from './dates';

/**
 * Reading an imported iCalendar feed (RFC 5545) as nights, bounded (issue 32, defect 1): whatever a feed says, the work
 * is bounded in bytes, events, rule steps and occurrences, and only the import window (today in the home's zone to
 * {@link feedBounds}.horizonDays later) is expanded. A feed over a bound is a failure of its import alone, never an
 * exception: {@link readFeedBounded} answers `{ ok: false, code, message }`. Pure JavaScript (ical.js, no Node
 * built-ins): the Node server runs it in a worker thread with a heap and time limit (lib/node/feed-reader.ts), Workers
 * in the request, whose CPU limit bounds it.
 *
 * Reading: one block per event, keyed by its UID (a recurrence's occurrences by `UID#start`). An all-day event is its
 * dates ([DTSTART, DTEND), no DTEND: one night). A timed event (UTC, a TZID with its VTIMEZONE, or floating, read in the
 * home's zone) takes the nights from its start's date to its end's date, at least one. STATUS:CANCELLED events are left
 * out, and so are events that end before today or start after the horizon, whatever their dates.
 */

export const feedBounds = {
  /** The body, read as a stream (functions/stay/calendar-feeds.ts). */
  maxBytes: 2 * 1024 * 1024,
  /** VEVENT components (masters and RECURRENCE-ID exceptions), counted on the text before it is parsed. */
  maxEvents: 20_000,
  /** Blocks (events and occurrences within the window) one feed may give. */
  maxBlocks: 5_000,
  /** Occurrences within the window one RRULE/RDATE set may give (a daily rule gives at most 731). */
  maxOccurrencesPerRule: 1_000,
  /** Steps of one RRULE's iterator (each candidate date it tries, matching or not), from DTSTART to the horizon. */
  maxStepsPerRule: 20_000,
  /** Steps of every rule of the feed together. */
  maxSteps: 200_000,
  /** Days from today that are expanded. */
  horizonDays: 730,
  /** A UID longer than this (characters) fails the import (the key of its blocks). */
  maxUidLength: 255,
  /** Years a kept event's dates must lie within (an event wholly outside the window is left out whatever its dates). */
  years: [1900, 2999] as const,
  /** Node: the worker thread's heap (MB) and time (ms); past either it is terminated (lib/node/feed-reader.ts). */
  heapMb: 64,
  timeMs: 10_000,
};

/** The codes `last_error` starts with when a feed passes a bound. */
export type FeedProblem =
  | 'not_icalendar'
  | 'too_many_events'
  | 'too_many_blocks'
  | 'too_many_occurrences'
  | 'rule_too_costly'
  | 'rule_unsupported'
  | 'date_out_of_range'
  | 'uid_too_long'
  | 'too_slow'
  | 'too_much_memory';

/** One imported block: the event's UID (with the occurrence's start for a recurrence) and its nights [start, end). */
export type FeedEvent = { uid: string; starts_on: string; ends_on: string };
/** What a reader is given: the feed's text, the home's time zone and the sync's clock (ISO instant). */
export type FeedInput = { text: string; timeZone: string; now: string };
export type FeedRead = { ok: true; events: FeedEvent[] } | { ok: false; code: FeedProblem; message: string };
/** Reads a feed somewhere bounded: in a worker thread (Node) or in process (Workers, tests of the rule itself). */
export type FeedReader = (input: FeedInput) => Promise<FeedRead>;

/** A feed over a bound, thrown inside the reader and answered as a {@link FeedRead} failure. */
class Bound extends Error {
  constructor(
    readonly code: FeedProblem,
    message: string,
  ) {
    super(message);
  }
}

/** The in-process reader (no worker threads: Workers, where the request's CPU limit bounds the work). */
export const inProcessFeedReader: FeedReader = async (input) => readFeedBounded(input);

/** Reads a feed within {@link feedBounds}; never throws. */
export function readFeedBounded(input: FeedInput): FeedRead {
  try {
    return { ok: true, events: readFeed(input.text, input.timeZone, new Date(input.now)) };
  } catch (error) {
    if (error instanceof Bound) return { ok: false, code: error.code, message: error.message };
    return { ok: false, code: 'not_icalendar', message: `The feed is not a valid iCalendar: ${(error as Error).message}` };
  }
}

const subDaily = new Set(['SECONDLY', 'MINUTELY', 'HOURLY']);

function readFeed(text: string, timeZone: string, now: Date): FeedEvent[] {
  if (text.length > feedBounds.maxBytes)
    throw new Bound('too_many_events', `The feed is larger than ${feedBounds.maxBytes} bytes.`);
  // Counted before parsing, so a feed of too many events costs one scan of its text.
  const components = text.match(/^BEGIN:VEVENT\r?$/gim)?.length ?? 0;
  if (components > feedBounds.maxEvents) {
    throw new Bound('too_many_events', `The feed has ${components} events (VEVENT); at most ${feedBounds.maxEvents} are read.`);
  }
  const root = new ICAL.Component(ICAL.parse(text) as unknown[]);
  if (root.name !== 'vcalendar') throw new Error('The feed is not a VCALENDAR.');
  for (const zone of root.getAllSubcomponents('vtimezone')) {
    const tzid = zone.getFirstPropertyValue('tzid');
    if (typeof tzid === 'string' && !ICAL.TimezoneService.has(tzid)) ICAL.TimezoneService.register(zone);
  }
  const today = todayIn(timeZone, now);
  const horizon = addDays(today, feedBounds.horizonDays);
  const [minYear, maxYear] = feedBounds.years;
  const found = new Map<string, FeedEvent>();
  let steps = 0;

  /** The nights of [start, end) if they touch the window; out-of-range dates of a kept event fail the import. */
  const add = (uid: string, start: ICAL.Time, end: ICAL.Time | null) => {
    const last = end ?? start;
    if (start.year > maxYear || last.year < minYear) return; // wholly after the horizon or before today
    if (start.year < minYear || last.year > maxYear) {
      throw new Bound('date_out_of_range', `The event ${shown(uid)} has a date outside the years ${minYear}–${maxYear}.`);
    }
    const from = dateOf(start, timeZone);
    let to: string;
    if (start.isDate) to = end ? dateOf(end, timeZone) : addDays(from, 1);
    else {
      const until = end ? dateOf(end, timeZone) : from;
      to = until > from ? until : addDays(from, 1);
    }
    if (to <= from || to <= today || from >= horizon || found.has(uid)) return;
    if (found.size >= feedBounds.maxBlocks) {
      throw new Bound(
        'too_many_blocks',
        `The feed gives more than ${feedBounds.maxBlocks} blocks within ${feedBounds.horizonDays} days.`,
      );
    }
    found.set(uid, { uid, starts_on: from, ends_on: to });
  };
  const cancelled = (v: ICAL.Component) => String(v.getFirstPropertyValue('status') ?? '').toUpperCase() === 'CANCELLED';

  const vevents = root.getAllSubcomponents('vevent');
  // RECURRENCE-ID exceptions by UID, so relating them is linear in the feed (not masters × exceptions).
  const exceptions = new Map<string, ICAL.Component[]>();
  for (const vevent of vevents) {
    if (!vevent.hasProperty('recurrence-id')) continue;
    const uid = String(vevent.getFirstPropertyValue('uid') ?? '');
    const list = exceptions.get(uid);
    if (list) list.push(vevent);
    else exceptions.set(uid, [vevent]);
  }
  for (const vevent of vevents) {
    if (vevent.hasProperty('recurrence-id')) continue;
    const given = String(vevent.getFirstPropertyValue('uid') ?? '');
    // Its own exceptions given (ical.js would otherwise scan every VEVENT of the feed for each event, and relate
    // other UIDs' exceptions too).
    const event = new ICAL.Event(vevent, { exceptions: exceptions.get(given) ?? [], strictExceptions: true });
    if (given.length > feedBounds.maxUidLength) {
      throw new Bound(
        'uid_too_long',
        `An event's UID has ${given.length} characters; at most ${feedBounds.maxUidLength} are kept.`,
      );
    }
    if (!event.startDate) throw new Error(`The event ${shown(given)} has no DTSTART.`);
    const uid = given || `${dateOf(event.startDate, timeZone)}-${(event.summary ?? '').slice(0, 200)}`;
    if (!event.isRecurring()) {
      if (!cancelled(vevent)) add(uid, event.startDate, event.endDate);
      continue;
    }
    // Occurrences that ended before today cost steps only: kept from the longest an occurrence lasts before today.
    const days = Math.ceil(Math.max(0, event.duration?.toSeconds() ?? 0) / 86_400) + 1;
    const window = { earliest: addDays(today, -days), horizon };
    for (const start of occurrences(vevent, event.startDate, window, timeZone, uid, (n) => {
      steps += n;
      if (steps > feedBounds.maxSteps) {
        throw new Bound('rule_too_costly', `The feed's recurrence rules need more than ${feedBounds.maxSteps} steps.`);
      }
    })) {
      const details = event.getOccurrenceDetails(start);
      if (cancelled(details.item.component)) continue;
      add(`${uid}#${start.toString()}`, details.startDate, details.endDate);
    }
  }
  return [...found.values()].sort((a, b) => (a.starts_on < b.starts_on ? -1 : a.starts_on > b.starts_on ? 1 : 0));
}

/**
 * The starts of a recurring event's occurrences up to the horizon: its RRULEs (each iterator's steps counted and
 * bounded, so a rule that never matches stops at the bound), its RDATEs, less its EXDATEs; at most
 * {@link feedBounds}.maxOccurrencesPerRule of them in the window. Sub-daily rules are refused: a night is the unit of a
 * calendar block, and an hourly rule from years ago costs tens of thousands of steps per year.
 */
function occurrences(
  vevent: ICAL.Component,
  dtstart: ICAL.Time,
  { earliest, horizon }: { earliest: string; horizon: string },
  timeZone: string,
  uid: string,
  spend: (steps: number) => void,
): ICAL.Time[] {
  const [minYear] = feedBounds.years;
  if (dtstart.year < minYear) {
    throw new Bound('date_out_of_range', `The recurring event ${shown(uid)} starts before ${minYear}.`);
  }
  const starts = new Map<string, ICAL.Time>();
  const keep = (time: ICAL.Time) => {
    if (starts.size >= feedBounds.maxOccurrencesPerRule) {
      throw new Bound(
        'too_many_occurrences',
        `The recurring event ${shown(uid)} has more than ${feedBounds.maxOccurrencesPerRule} occurrences within ${feedBounds.horizonDays} days.`,
      );
    }
    starts.set(time.toString(), time.clone());
  };
  const beyond = (time: ICAL.Time) => time.year > feedBounds.years[1] || dateOf(time, timeZone) >= horizon;
  for (const property of vevent.getAllProperties('rrule')) {
    const rule = property.getFirstValue() as ICAL.Recur;
    if (subDaily.has(rule.freq)) {
      throw new Bound(
        'rule_unsupported',
        `The recurring event ${shown(uid)} repeats ${rule.freq}; rules of a day or longer are read.`,
      );
    }
    const iterator = rule.iterator(dtstart) as ICAL.RecurIterator & { check_contracting_rules(): boolean };
    let ruleSteps = 0;
    const check = iterator.check_contracting_rules.bind(iterator);
    // Every candidate the iterator tries passes here (ical.js loops inside next() until one matches).
    iterator.check_contracting_rules = () => {
      spend(1);
      if (++ruleSteps > feedBounds.maxStepsPerRule) {
        throw new Bound(
          'rule_too_costly',
          `The recurrence rule of ${shown(uid)} needs more than ${feedBounds.maxStepsPerRule} steps to reach ${horizon} (a rule that never matches, or one that starts long ago).`,
        );
      }
      return check();
    };
    for (let next = iterator.next(); next; next = iterator.next()) {
      if (beyond(next)) break;
      if (dateOf(next, timeZone) >= earliest) keep(next);
    }
  }
  for (const property of vevent.getAllProperties('rdate')) {
    for (const value of property.getValues()) {
      const time = value instanceof ICAL.Period ? value.start : (value as ICAL.Time);
      if (time && !beyond(time) && time.year >= minYear && dateOf(time, timeZone) >= earliest) keep(time);
    }
  }
  for (const property of vevent.getAllProperties('exdate')) {
    for (const value of property.getValues()) {
      const time = value as ICAL.Time;
      starts.delete(time.toString());
      // An EXDATE of a date removes the occurrence on that date (RFC 5545 §3.8.5.1, as ical.js compares them).
      if (time.isDate) for (const [key, start] of starts) if (sameDate(start, time)) starts.delete(key);
    }
  }
  return [...starts.values()].sort((a, b) => a.compare(b));
}

function sameDate(a: ICAL.Time, b: ICAL.Time): boolean {
  return a.year === b.year && a.month === b.month && a.day === b.day;
}

/** A UID as a message shows it (a long one cut). */
function shown(uid: string): string {
  return uid.length > 60 ? `"${uid.slice(0, 57)}…"` : `"${uid}"`;
}

/** The calendar date of a time in `timeZone`: a DATE as it is; UTC or zoned as that instant there; floating as written. */
function dateOf(time: ICAL.Time, timeZone: string): string {
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const written = `${pad(time.year, 4)}-${pad(time.month)}-${pad(time.day)}`;
  if (time.isDate || time.zone === ICAL.Timezone.localTimezone || !time.zone) return written;
  return todayIn(timeZone, time.toJSDate());
}
