import { jsonObjectFrom } from 'kysely/helpers/postgres';
import { sha256, timingSafeEqual } from '../../lib/crypto';
import type { Executor } from '../../lib/db/index';
import { notFound } from '../../lib/errors';
import { type ListingBase, listingSelection } from '../../lib/listings';
import type { LocalisedText } from '../../schema/common/columns';
import type { Furnishing, OffPlanSaleType, Portal } from '../../schema/common/permits';
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

/**
 * Bump when a feed's XML changes for the same data: every ETag changes with it. 2: JPEG photos, the prices a company
 * hides left out, Bayut's `Off_plan` and capitalised rent frequencies, the fields of migration 0033.
 */
export const feedFormat = 2;

/**
 * The ETag of a feed: the company's catalogue version (bumped by the database on any change to listings, photos,
 * places, team or settings), the deployment (RELEASE, media base URL), the format, and the company's day (a permit
 * ends at midnight there). All of it is known before any statement: a revalidation reads nothing.
 */
export function feedEtag(company: Company, portal: Portal, today: string, deployment: string): string {
  return `W/"${portal}-${company.catalogue_version}-${deployment}-${feedFormat}-${today}"`;
}

/**
 * A listing as a feed writes it: the listing select the catalogue shares (lib/listings.ts), with its description,
 * and what only the portals send: the agent (a team profile with its licence number), the furnishing, cheques,
 * service charge and off-plan details (migration 0033).
 */
export type FeedListing = ListingBase & {
  description: LocalisedText;
  furnished: Furnishing | null;
  cheques: number | null;
  service_charge: string | null;
  offplan_sale_type: OffPlanSaleType | null;
  offplan_dld_waiver: number | null;
  offplan_original_price: string | null;
  offplan_amount_paid: string | null;
  agent: { id: string; name: string; email: string; phone: string; photo_url: string | null; licence_number: string | null };
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
  const rows = await db
    .selectFrom('listings as l')
    .select((eb) => [
      ...listingSelection(eb, { description: true, photos: 'all' }),
      inFeedSql(company, portal, today).as('in_feed'),
      'l.furnished',
      'l.cheques',
      'l.service_charge',
      'l.offplan_sale_type',
      'l.offplan_dld_waiver',
      'l.offplan_original_price',
      'l.offplan_amount_paid',
      jsonObjectFrom(
        eb
          .selectFrom('team_profiles as t')
          .select(['t.id', 't.name', 't.email', 't.phone', 't.photo_url', 't.licence_number'])
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
