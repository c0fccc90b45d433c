import { addDays, todayIn } from '../../lib/dates';
import type { Services } from '../../lib/env';
import { etagOf } from '../../lib/etag';
import type { Company } from '../../schema/platform/db';
import { takenRanges } from './calendar';
import { icalText, presentCalendarFeed } from './calendar.present';
import { findBookableHome } from './homes';

/**
 * A home's export feed: the ranges availability answers for its default window (today in the company's zone and the
 * 365 days after), its weak ETag (the home's name and slug, the window and the ranges, not the request's DTSTAMP),
 * and the calendar text, made only when asked (`text()`), so a 304 costs no rendering.
 */
export async function calendarFeedOf(services: Services, company: Company, slug: string, host: string) {
  const { db } = services;
  const now = services.now();
  const from = todayIn(company.time_zone, now);
  const to = addDays(from, 365);
  const home = await findBookableHome(db, company, slug, { seasons: false });
  const { ranges } = await takenRanges(db, home.id, from, to, now);
  const name = icalText(home.title.en ?? home.slug);
  const etag = `W/${await etagOf(JSON.stringify([home.slug, name, from, to, ranges]))}`;
  return { slug: home.slug, etag, text: () => presentCalendarFeed(home, name, ranges, now, host) };
}
