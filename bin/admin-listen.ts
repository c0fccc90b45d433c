import { systemClock } from '../lib/clock';
import { signedHeaders } from '../lib/webhooks/attempt';
import { newSigningSecret } from '../lib/webhooks/secrets';

/**
 * `events listen`: a company's events forwarded to a local URL as they are committed, as `stripe listen --forward-to`
 * does (issue 38; docs/api-reference.md, "Events through the API"). It follows the API's event feed (the admin API's,
 * or a server key's with `read:events`: never a database link, so it works against a deployed Worker as well),
 * re-signs each event with a secret of this session (Standard Webhooks, as deliveries are signed), posts it, and
 * prints one line per event with the answer's status. One event at a time, in the feed's order (order of commit).
 */
export const listenUsage = `  events listen <company> --forward-to URL [--after evt_…] [--interval MS] [--count N]
                                            forward the company's events as they are committed to URL (the admin
                                            API), signed with a session secret it prints; one line per event
  events listen --key sk_… --url API --forward-to URL [--after evt_…] [--interval MS] [--count N]
                                            the same with a server key holding read:events, against the API at URL`;

export type ListenOptions = {
  'forward-to'?: string;
  key?: string;
  url?: string;
  after?: string;
  interval?: string;
  count?: string;
};

/** Where the feed is read: its URL (without query) and the Authorization header. */
export type FeedSource = { feedUrl: string; authorization: string };

type Envelope = { id: string; type: string; created_at: string; caused_by: string; data: unknown };
type FeedAnswer = { results: Envelope[]; next_cursor: string };

const pageSize = 100;
const forwardTimeoutMs = 10_000;
export const listenUserAgent = 'PropertyAPI-Listen/1.0';

function whole(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^[0-9]{1,9}$/.test(value) || Number(value) < 1) throw new Error(`${name} takes a whole number above 0.`);
  return Number(value);
}

/** The feed of the admin API (`base`: its origin) for a company, or of the API at `--url` with `--key`. */
export function feedSource(opts: ListenOptions, admin: { base: string; token: string; company: string } | undefined): FeedSource {
  if (opts.key !== undefined) {
    if (!opts.url) throw new Error('events listen --key needs --url, the API’s address (https://api.example.com).');
    return { feedUrl: `${opts.url.replace(/\/+$/, '')}/api/v1/events/feed`, authorization: `Bearer ${opts.key}` };
  }
  if (!admin) throw new Error('Missing <company>.');
  return {
    feedUrl: `${admin.base}/admin/v1/companies/${encodeURIComponent(admin.company)}/events/feed`,
    authorization: `Bearer ${admin.token}`,
  };
}

async function readFeed(source: FeedSource, place: { cursor?: string; after?: string }): Promise<FeedAnswer> {
  const query = new URLSearchParams({ page_size: String(pageSize) });
  if (place.cursor !== undefined) query.set('cursor', place.cursor);
  else if (place.after !== undefined) query.set('after', place.after);
  const res = await fetch(`${source.feedUrl}?${query}`, { headers: { Authorization: source.authorization } }).catch(
    (error: Error) => {
      const cause = error.cause instanceof Error ? error.cause.message : error.message;
      throw Object.assign(new Error(`Cannot reach the API at ${source.feedUrl} (${cause}).`), { transient: true });
    },
  );
  const text = await res.text();
  if (!res.ok) {
    // A refusal (a bad key, scope or place) will not pass by waiting; a server's trouble may.
    throw Object.assign(new Error(`The event feed answered ${res.status}: ${text}`), { transient: res.status >= 500 });
  }
  return JSON.parse(text) as FeedAnswer;
}

/** Posts one event, signed with the session's secret: the answer's status, or why there was none. */
async function forward(url: string, secret: string, event: Envelope): Promise<string> {
  const body = JSON.stringify(event);
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: signedHeaders([secret], event.id, systemClock(), body, listenUserAgent),
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(forwardTimeoutMs),
    });
    await res.body?.cancel().catch(() => {});
    return String(res.status);
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
    return `failed (${cause})`;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Follows the feed until stopped (Ctrl-C), or until `--count` events were forwarded: then answers how many. Starts
 * after `--after` (an event id) or at the moment it starts. A full page is followed at once; otherwise it polls every
 * `--interval` milliseconds (1000). An unreachable API is retried at that pace; a refusal ends it.
 */
export async function listen(opts: ListenOptions, source: FeedSource, print: (line: string) => void) {
  const target = opts['forward-to'];
  if (!target || !/^https?:\/\//.test(target)) throw new Error('events listen needs --forward-to, an http(s) URL.');
  const interval = whole(opts.interval, '--interval', 1000);
  const count = opts.count === undefined ? Number.POSITIVE_INFINITY : whole(opts.count, '--count', 1);
  const secret = newSigningSecret();
  let place: { cursor?: string; after?: string } = { after: opts.after };
  // The starting place is taken before the ready line: an event committed after that line is forwarded.
  let page = await readFeed(source, place);
  print(`Ready: forwarding to ${target}. This session's signing secret: ${secret}`);
  let forwarded = 0;
  for (;;) {
    for (const event of page.results) {
      const status = await forward(target, secret, event);
      print(`${event.created_at}  ${event.type}  ${event.id}  -> ${status}`);
      forwarded += 1;
      if (forwarded >= count) return { forwarded };
    }
    place = { cursor: page.next_cursor };
    if (page.results.length < pageSize) await pause(interval);
    for (;;) {
      try {
        page = await readFeed(source, place);
        break;
      } catch (error) {
        if (!(error as { transient?: boolean }).transient) throw error;
        print(`${(error as Error).message} Retrying.`);
        await pause(interval);
      }
    }
  }
}
