import { LRUCache } from 'lru-cache';
import { defineRoute } from '../../lib/access';
import { createRouter } from '../../lib/app';
import { addDays, daysBetween, todayIn } from '../../lib/dates';
import { ApiError } from '../../lib/errors';
import { etagOf, ifNoneMatch } from '../../lib/etag';
import { AvailabilityQuery, AvailabilitySchema, slugParam } from '../../schema/stay/bookings';
import { takenRanges } from './calendar';
import { findBookableHome } from './homes';
import { json } from '../../schema/common/api';

const maxWindowDays = 400;

const route = defineRoute({
  method: 'get',
  path: '/listings/{slug}/availability',
  tags: ['Bookings'],
  summary: "A holiday home's taken nights and rules",
  description:
    'The window is [from, to), at most 400 days; by default the year ahead. 404 unless the listing is a published holiday home and the company has bookings switched on. Answers carry an ETag and `Cache-Control: no-cache`: revalidate, a 304 is cheap, and no answer outlives a booking change.',
  access: { kind: 'public', scopes: ['read:listings'] },
  revalidate: true,
  request: { params: slugParam, query: AvailabilityQuery },
  responses: {
    200: json(AvailabilitySchema, 'Taken nights and rules'),
    304: { description: 'Not modified (If-None-Match)' },
  },
});

/**
 * Rendered answers by home, calendar version and window. The version is bumped by triggers on any booking,
 * block, season or terms change, so a cached answer is never one a change has made wrong; an entry also ends
 * when the first hold or payment window in it lapses. `expiresAt` is counted from the same `now` the answer
 * was computed with and checked against the request's `now`, so an entry never outlives what it shows (the
 * cache's own timer would start after the queries, a request's duration late).
 */
const rendered = new LRUCache<string, { body: string; etag: string; expiresAt: number }>({ max: 5000 });

export const availability = createRouter().openapi(route, async (c) => {
  const { slug } = c.req.valid('param');
  const query = c.req.valid('query');
  const { db, config } = c.var.services;
  const company = c.var.company;
  // One instant for the whole answer: the default window, which holds still count, and the cache's expiry.
  const now = c.var.services.now();
  const from = query.from ?? todayIn(company.time_zone, now);
  const to = query.to ?? addDays(from, 365);
  if (to <= from) {
    throw new ApiError('invalid_request', '`to` must be after `from`.', {
      errors: [{ path: 'to', code: 'too_small', message: '`to` must be after `from`.' }],
    });
  }
  if (daysBetween(from, to) > maxWindowDays) {
    throw new ApiError('window_too_long', `The window is at most ${maxWindowDays} days.`, {
      errors: [{ path: 'to', code: 'window_too_long', message: `At most ${maxWindowDays} days after \`from\`.` }],
    });
  }
  const home = await findBookableHome(db, company, slug, { seasons: false });
  const key = `${home.id} ${String(home.terms.calendar_version)} ${from} ${to}`;
  let entry = config.AVAILABILITY_CACHE_SECONDS > 0 ? rendered.get(key) : undefined;
  if (entry && entry.expiresAt <= now.getTime()) {
    rendered.delete(key);
    entry = undefined;
  }
  if (!entry) {
    const { ranges, validUntil } = await takenRanges(db, home.id, from, to, now);
    const { terms } = home;
    const body = JSON.stringify({
      listing: home.slug,
      from,
      to,
      blocked: ranges,
      min_nights: terms.min_nights,
      max_nights: terms.max_nights,
      closed_arrival_days: terms.closed_arrival_days,
      advance_days: terms.advance_days,
      notice_hours: terms.notice_hours,
      available_from: terms.available_from,
      available_to: terms.available_to,
      check_in_time: terms.check_in_time,
      check_out_time: terms.check_out_time,
    });
    const etag = await etagOf(body);
    const expiresAt = Math.min(now.getTime() + config.AVAILABILITY_CACHE_SECONDS * 1000, validUntil?.getTime() ?? Infinity);
    entry = { body, etag, expiresAt };
    if (expiresAt > now.getTime()) rendered.set(key, entry);
  }
  const headers = { ETag: entry.etag, 'Cache-Control': 'no-cache' };
  if (ifNoneMatch(c.req.header('If-None-Match'), entry.etag)) {
    return c.body(null, 304, headers);
  }
  return c.body(entry.body, 200, { ...headers, 'Content-Type': 'application/json' });
});
