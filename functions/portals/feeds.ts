import { sql } from 'kysely';
import { jsonArrayFrom, jsonObjectFrom } from 'kysely/helpers/postgres';
import { sha256, timingSafeEqual } from '../../lib/crypto';
import type { Executor } from '../../lib/db/index';
import { notFound } from '../../lib/errors';
import type { LocalisedText } from '../../schema/common/columns';
import type { Portal } from '../../schema/common/permits';
import type { Company } from '../../schema/platform/db';
import { inFeedSql } from './rules';

/**
 * The portal feeds' data (issue 25): which company a token opens, the feed's ETag, and its listings in batches by id,
 * each with everything the portal's element needs in the same statement (places, ready photos, the agent).
 */

/** A fetch names the company's token; any other (a rotated one included) is not found, as an unknown path is. */
export async function checkFeedToken(company: Company, token: string): Promise<void> {
  const stored = company.portal_feed_token_hash;
  const sent = await sha256(token);
  if (!stored || !timingSafeEqual(new Uint8Array(stored), sent)) throw notFound('The feed');
}

/** Bump when a feed's XML changes for the same data: every ETag changes with it. */
export const feedFormat = 1;

/**
 * The ETag of a feed: the company's catalogue version (bumped by the database on any change to listings, photos,
 * places, team or settings), the deployment (RELEASE, media base URL), the format, and the company's day (a permit
 * ends at midnight there). All of it is known before any statement: a revalidation reads nothing.
 */
export function feedEtag(company: Company, portal: Portal, today: string, deployment: string): string {
  return `W/"${portal}-${company.catalogue_version}-${deployment}-${feedFormat}-${today}"`;
}

export type FeedListing = {
  id: string;
  listing_type: 'sale' | 'lease' | 'holiday_home';
  title: LocalisedText;
  description: LocalisedText;
  price: string;
  price_period: 'total' | 'year' | 'month' | 'night';
  property_type: string;
  bedrooms: number | null;
  bathrooms: number | null;
  size_sqm: string | null;
  completion: 'ready' | 'off_plan' | null;
  latitude: number | null;
  longitude: number | null;
  updated_at: Date | string;
  permit_number: string | null;
  permit_authority: 'dld' | 'dtcm' | 'other' | null;
  permit_url: string | null;
  city: LocalisedText | null;
  area: LocalisedText | null;
  project: LocalisedText | null;
  photos: Array<{ storage_key: string }>;
  agent: { id: string; name: string; email: string; phone: string; photo_url: string | null };
};

/** How many listings the portal's feed carries now (its root says so before the listings stream). */
export async function feedCount(db: Executor, company: Company, portal: Portal, today: string): Promise<number> {
  const row = await db
    .selectFrom('listings as l')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('l.company_id', '=', company.id)
    .where(inFeedSql(company, portal, today))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Listings per statement of a streaming feed: a batch's XML is written before the next is read. */
export const feedBatchSize = 200;

/**
 * The company's next {@link feedBatchSize} published listings after `after` (an id; '' for the first), in id order,
 * each with `in_feed` (whether the portal takes it) and what its element needs. The rules are evaluated for these rows
 * only: as a filter they would be evaluated for every later listing before the keyset's order and limit could stop
 * the scan (seen at 10,000 listings: 330 ms a batch).
 */
export async function feedBatch(db: Executor, company: Company, portal: Portal, today: string, after: string) {
  const place = (column: 'l.city_id' | 'l.area_id' | 'l.project_id') =>
    sql<LocalisedText | null>`(select a.name from areas a where a.id = ${sql.ref(column)})`;
  const rows = await db
    .selectFrom('listings as l')
    .select((eb) => [
      'l.id',
      inFeedSql(company, portal, today).as('in_feed'),
      'l.listing_type',
      'l.title',
      'l.description',
      'l.price',
      'l.price_period',
      'l.property_type',
      'l.bedrooms',
      'l.bathrooms',
      'l.size_sqm',
      'l.completion',
      'l.latitude',
      'l.longitude',
      'l.updated_at',
      'l.permit_number',
      'l.permit_authority',
      'l.permit_url',
      place('l.city_id').as('city'),
      place('l.area_id').as('area'),
      place('l.project_id').as('project'),
      jsonArrayFrom(
        eb
          .selectFrom('listing_photos as p')
          .select('p.storage_key')
          .whereRef('p.listing_id', '=', 'l.id')
          .where('p.ready', '=', true)
          .orderBy('p.position'),
      ).as('photos'),
      jsonObjectFrom(
        eb
          .selectFrom('team_profiles as t')
          .select(['t.id', 't.name', 't.email', 't.phone', 't.photo_url'])
          .whereRef('t.id', '=', 'l.agent_id'),
      ).as('agent'),
    ])
    .where('l.company_id', '=', company.id)
    .where('l.status', '=', 'published')
    .$if(after !== '', (qb) => qb.where('l.id', '>', after))
    .orderBy('l.id')
    .limit(feedBatchSize)
    .execute();
  return rows as unknown as Array<FeedListing & { in_feed: boolean }>;
}
