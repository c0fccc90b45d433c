import { addDays, todayIn } from '../../lib/dates';
import { notFound } from '../../lib/errors';
import type { Services } from '../../lib/env';
import { etagOf } from '../../lib/etag';
import type { Company } from '../../schema/platform/db';
import { takenRanges } from './calendar';
import { icalText, presentCalendarFeed } from './calendar.present';
import { findBookableHome } from './homes';

/**
 * A home's export feed: the ranges availability answers for its default window (today in the company's zone and the
 * 365 days after), its weak ETag (the home's name and slug, the window and the ranges, not the request's DTSTAMP),
 * and the calendar text, made only when asked (`text()`), so a 304 costs no rendering. With `channel` (an import of
 * this home, else 404): without the blocks that came from that import, so the channel never re-imports its own.
 */
export async function calendarFeedOf(services: Services, company: Company, slug: string, host: string, channel?: string) {
  const { db } = services;
  const now = services.now();
  const from = todayIn(company.time_zone, now);
  const to = addDays(from, 365);
  const home = await findBookableHome(db, company, slug, { seasons: false });
  if (channel !== undefined) {
    // The per-channel feed: the import must be this home's (another home's or company's is as unknown as none).
    const own = await db
      .selectFrom('calendar_imports')
      .select('id')
      .where('id', '=', channel)
      .where('listing_id', '=', home.id)
      .where('company_id', '=', company.id)
      .executeTakeFirst();
    if (!own) throw notFound(`The calendar import "${channel}" of this holiday home`);
  }
  const { ranges } = await takenRanges(db, home.id, from, to, now, {
    turnoverDays: home.terms.turnover_days,
    exceptImport: channel,
    exported: true,
  });
  const name = icalText(home.title.en ?? home.slug);
  const etag = `W/${await etagOf(JSON.stringify([home.slug, name, from, to, ranges]))}`;
  return { slug: home.slug, etag, text: () => presentCalendarFeed(home, name, ranges, { start: from, end: to }, now, host) };
}
