import type { Services } from '../../lib/env';
import { type FeedEvent, type FeedReader, feedBounds, inProcessFeedReader } from '../../lib/ical-read';
import { type Environment, guardedText, type HostResolver, type OutboundFetch } from '../../lib/outbound/guard';

/**
 * A channel's iCalendar feed, fetched and read (issue 24). Fetching: a conditional GET (If-None-Match /
 * If-Modified-Since from the last good answer), a timeout, a size limit, at most 3 redirects followed by hand, every
 * address checked by the outbound rules (lib/outbound/guard.ts: on production no loopback, private or link-local
 * targets; a development workspace may use them). Reading: lib/ical-read.ts, within its bounds, by the runtime's
 * reader (Node: a worker thread; Workers: in the request). The sync engine (calendar-sync.ts) asks {@link loadFeed}
 * once and writes what it answers; this file imports nothing of it.
 */

export const feedLimits = {
  maxBytes: feedBounds.maxBytes,
  timeoutMs: 15_000,
  maxRedirects: 3,
};

/** What a sync loads: nothing new (304), a failure (as `last_error` shows it), or the feed's events. */
export type LoadedFeed =
  | { kind: 'unchanged' }
  | { kind: 'failed'; error: string }
  | { kind: 'events'; events: FeedEvent[]; validators: FeedValidators };

/**
 * Fetches a feed (conditional GET) and reads it as nights in the home's time zone from today (by `now`) to the horizon,
 * off the request's thread where the runtime can. Never throws for the feed's faults.
 */
export async function loadFeed(
  services: Services,
  feed: { url: string; environment: Environment; time_zone: string; validators: FeedValidators },
  now: Date,
): Promise<LoadedFeed> {
  const fetched = await fetchFeed(
    services.webhooks.fetch,
    feed.url,
    feed.environment,
    feed.validators,
    services.webhooks.resolveHost,
  );
  if (fetched.kind !== 'body') return fetched;
  return readFeedText(
    services.feedReader,
    { text: fetched.text, time_zone: feed.time_zone, validators: fetched.validators },
    now,
  );
}

/**
 * A fetched feed's body read as nights in the home's time zone (the test events' fixture reads a text of its own with it):
 * its events, or the failure a body that does not parse or passes a bound records.
 */
export async function readFeedText(
  reader: FeedReader | undefined,
  body: { text: string; time_zone: string; validators: FeedValidators },
  now: Date,
): Promise<LoadedFeed> {
  const read = await (reader ?? inProcessFeedReader)({ text: body.text, timeZone: body.time_zone, now: now.toISOString() });
  // The bounds' failures say their code first; a body that does not parse keeps its plain message.
  if (!read.ok) return { kind: 'failed', error: read.code === 'not_icalendar' ? read.message : `${read.code}: ${read.message}` };
  return { kind: 'events', events: read.events, validators: body.validators };
}

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
  const headers: Record<string, string> = { Accept: 'text/calendar, */*;q=0.5', 'User-Agent': 'PropertyAPI-Calendars/1.0' };
  if (previous.etag) headers['If-None-Match'] = previous.etag;
  if (previous.last_modified) headers['If-Modified-Since'] = previous.last_modified;
  const got = await guardedText({ fetch: fetcher, resolveHost: resolve }, environment, url, headers, {
    what: 'feed',
    ...feedLimits,
  });
  if (got.kind !== 'body') return got;
  return {
    kind: 'body',
    text: got.text,
    validators: { etag: got.headers.get('etag'), last_modified: got.headers.get('last-modified') },
  };
}
