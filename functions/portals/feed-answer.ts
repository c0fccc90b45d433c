import type { Context } from 'hono';
import { keepServicesUntil } from '../../lib/request-lifecycle';
import { todayIn } from '../../lib/dates';
import type { AppEnv } from '../../lib/env';
import { ifNoneMatch } from '../../lib/etag';
import { pricesHidden } from '../../lib/listings';
import { mediaBaseOf } from '../../lib/media';
import type { Portal } from '../../schema/common/permits';
import { checkFeedToken, feedBatch, feedBatchSize, feedCount, feedEtag } from './feeds';
import { type FeedContext, feedFormats } from './feeds.present';
import { xmlOf } from './xml';

const utf8 = new TextEncoder();

/**
 * A portal's feed as the portal fetches it: 404 for any token but the company's current one; 304 when its ETag
 * matches (no statement: the company row, with its catalogue version, is kept in memory); otherwise the count, then
 * the listings streamed in batches of {@link feedBatchSize} (a batch is read once the previous one was taken by the
 * client), so memory stays flat whatever the number of listings. A failure mid-way aborts the body: the portal gets
 * a truncated document, which it refuses, never a shorter valid one.
 */
export async function feedAnswer(c: Context<AppEnv>, portal: Portal, token: string): Promise<Response> {
  const company = c.var.company;
  await checkFeedToken(company, token);
  const { db, config, now: clock } = c.var.services;
  const now = clock();
  const today = todayIn(company.time_zone, now);
  const etag = feedEtag(company, portal, today, `${config.RELEASE}-${mediaBaseOf(company, config.MEDIA_BASE_URL)}`);
  const headers = { ETag: etag, 'Cache-Control': 'no-cache' };
  if (ifNoneMatch(c.req.header('If-None-Match'), etag)) return c.body(null, 304, headers);

  const format = feedFormats[portal];
  const context: FeedContext = {
    companyId: company.id,
    timeZone: company.time_zone,
    media: mediaBaseOf(company, config.MEDIA_BASE_URL),
    hidePrices: pricesHidden(company),
    currency: company.currency,
  };
  const count = await feedCount(db, company, portal, today);
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  const write = async (text: string) => {
    await writer.ready;
    await writer.write(utf8.encode(text));
  };
  const streamed = (async () => {
    try {
      await write(`${format.open(count, now, context)}\n`);
      for (let after = ''; ; ) {
        const batch = await feedBatch(db, company, portal, today, after);
        const taken = batch.filter((listing) => listing.in_feed);
        if (taken.length > 0) await write(taken.map((listing) => `${xmlOf(format.element(listing, context))}\n`).join(''));
        if (batch.length < feedBatchSize) break;
        after = (batch.at(-1) as { id: string }).id;
      }
      await write(format.close);
      await writer.close();
    } catch (error) {
      console.error(`request ${c.var.requestId}: the ${portal} feed stopped:`, error);
      await writer.abort(error).catch(() => {});
    }
  })();
  keepServicesUntil(c, streamed);
  return c.body(readable, 200, { ...headers, 'Content-Type': 'application/xml; charset=utf-8' });
}
