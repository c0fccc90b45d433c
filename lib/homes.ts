import type { Trx } from './db/index';
import type { HomeTermsValue } from '../schema/common/homes';

/** Replaces a holiday home's terms and seasons (the row exists: a trigger adds it with every holiday home). */
export async function setHomeTerms(trx: Trx, listingId: string, terms: HomeTermsValue): Promise<void> {
  const { seasons, ...rest } = terms;
  await trx.updateTable('holiday_home_terms').set(rest).where('listing_id', '=', listingId).execute();
  await trx.deleteFrom('holiday_home_seasons').where('listing_id', '=', listingId).execute();
  if (seasons.length > 0) {
    await trx
      .insertInto('holiday_home_seasons')
      .values(seasons.map((season) => ({ ...season, listing_id: listingId })))
      .execute();
  }
}
