import { LRUCache } from 'lru-cache';
import { addDays, daysBetween, todayIn } from '../../lib/dates';
import type { Services } from '../../lib/env';
import { ApiError } from '../../lib/errors';
import { etagOf } from '../../lib/etag';
import type { Company } from '../../schema/platform/db';
import { takenRanges } from './calendar';
import { findBookableHome } from './homes';
import { nightRulesQuery, restrictionRanges } from '../../lib/stay/rates';

const maxWindowDays = 400;

/**
 * Rendered answers by home, calendar version and window. The version is bumped by triggers on any booking,
 * block, season or terms change, so a cached answer is never one a change has made wrong; an entry also ends
 * when the first hold or payment window in it lapses. `expiresAt` is counted from the same `now` the answer
 * was computed with and checked against the request's `now`, so an entry never outlives what it shows (the
 * cache's own timer would start after the queries, a request's duration late).
 */
const rendered = new LRUCache<string, { body: string; etag: string; expiresAt: number }>({ max: 5000 });

/**
 * A home's availability answer for [from, to) (by default the year ahead from today in the company's zone), as its
 * JSON text and ETag, from the cache while the home's calendar version and every hold in it still stand.
 */
export async function availabilityAnswer(
  services: Services,
  company: Company,
  slug: string,
  query: { from?: string; to?: string },
): Promise<{ body: string; etag: string }> {
  const { db, config } = services;
  // One instant for the whole answer: the default window, which holds still count, and the cache's expiry.
  const now = services.now();
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
    const { ranges, validUntil } = await takenRanges(db, home.id, from, to, now, {
      turnoverDays: home.terms.turnover_days,
    });
    // The dates' own stay rules (issue 37, lib/stay/rates.ts): read with the version the cache entry is keyed by.
    const rules = await nightRulesQuery(db, home.id, from, addDays(to, -1)).execute();
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
      restrictions: restrictionRanges(rules, (date) => addDays(date, 1)),
    });
    const etag = await etagOf(body);
    const expiresAt = Math.min(now.getTime() + config.AVAILABILITY_CACHE_SECONDS * 1000, validUntil?.getTime() ?? Infinity);
    entry = { body, etag, expiresAt };
    if (expiresAt > now.getTime()) rendered.set(key, entry);
  }
  return entry;
}
