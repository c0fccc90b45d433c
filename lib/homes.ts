import { sql } from 'kysely';
import type { Executor, Trx } from './db/index';
import type { HomeTermsValue } from '../schema/common/homes';
import { ApiError } from './errors';
import { amountIn, optionalAmountIn } from './money';
import { detCurrency } from './tourism-dirham';

/**
 * Replaces the terms and seasons of several holiday homes (each row exists: a trigger adds it with every holiday home)
 * in one statement, as an import's batch needs (it made three statements per home): each terms row is set to the
 * fields its home gives (a field left out keeps its value), then every season of these homes is deleted and the new
 * ones inserted (after the delete, for the seasons' exclusion constraint, as {@link setHomeTermsAt} does).
 */
export async function setHomesTerms(trx: Trx, homes: Array<{ listingId: string; terms: HomeTermsValue }>): Promise<void> {
  if (homes.length === 0) return;
  const rows = homes.map(({ listingId, terms: { seasons: _seasons, ...rest } }) => ({ listing_id: listingId, terms: rest }));
  const seasons = homes.flatMap(({ listingId, terms }) => terms.seasons.map((season) => ({ ...season, listing_id: listingId })));
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row.terms)))];
  const set = columns.map(
    (column) =>
      sql`${sql.ref(column)} = case when v.terms ? ${column} then (v.given).${sql.ref(column)} else t.${sql.ref(column)} end`,
  );
  await sql`
    with v as (
      select v.listing_id, v.terms, jsonb_populate_record(null::holiday_home_terms, v.terms) as given
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as v (listing_id uuid, terms jsonb)
    ),
    terms as (
      update holiday_home_terms t set ${sql.join(set)} from v where t.listing_id = v.listing_id returning t.listing_id
    ),
    gone as (delete from holiday_home_seasons where listing_id in (select listing_id from v) returning 1),
    added as (
      insert into holiday_home_seasons (listing_id, name, starts_on, ends_on, nightly_price, weekend_price)
      select s.listing_id, s.name, s.starts_on, s.ends_on, s.nightly_price, s.weekend_price
      from (select count(*) from gone) as first, (select count(*) from terms) as updated,
        jsonb_to_recordset(${JSON.stringify(seasons)}::jsonb)
          as s (listing_id uuid, name text, starts_on date, ends_on date, nightly_price numeric, weekend_price numeric)
      returning 1
    )
    select count(*) from added`.execute(trx);
}

/**
 * Replaces a holiday home's terms and seasons in one statement, if its `rules_version` is still `rulesVersion` (the one
 * read before): the update locks the terms row, and the locked row is the latest committed version even after waiting,
 * so an unchanged version proves no terms, season or block changed since the read (each bumps it under the same lock).
 * The seasons are deleted, then the new ones inserted (after the delete, for the seasons' exclusion constraint).
 * False when the version moved: nothing was written.
 */
export async function setHomeTermsAt(
  executor: Executor,
  listingId: string,
  rulesVersion: string,
  terms: HomeTermsValue,
): Promise<boolean> {
  const { seasons, ...rest } = terms;
  const update = executor
    .updateTable('holiday_home_terms')
    .set(rest)
    .where('listing_id', '=', listingId)
    .where('rules_version', '=', rulesVersion)
    .returning('listing_id');
  const { rows } = await sql`
    with terms as (${update}),
    gone as (delete from holiday_home_seasons where listing_id = (select listing_id from terms) returning 1),
    added as (
      insert into holiday_home_seasons (listing_id, name, starts_on, ends_on, nightly_price, weekend_price)
      select terms.listing_id, s.name, s.starts_on, s.ends_on, s.nightly_price, s.weekend_price
      from terms, (select count(*) from gone) as first,
        jsonb_to_recordset(${JSON.stringify(seasons)}::jsonb)
          as s (name text, starts_on date, ends_on date, nightly_price numeric, weekend_price numeric)
      returning 1
    )
    select listing_id from terms`.execute(executor);
  return rows.length > 0;
}

/**
 * A holiday home's terms with their amounts taken in through lib/money.ts (`amountIn`): each kept to the currency's
 * digits, one with more digits is 400 `currency_digits` at its field under `path` (`booking.` in an import's listing).
 */
export function homeTermsIn(terms: HomeTermsValue, currency: string, path = ''): HomeTermsValue {
  const amount = (value: string, field: string) => amountIn(value, currency, `${path}${field}`);
  if (terms.det_class !== null && currency !== detCurrency) {
    const message = `The Tourism Dirham is charged in ${detCurrency}: a DET class needs a company whose currency is ${detCurrency}.`;
    throw new ApiError('invalid_request', message, { errors: [{ path: `${path}det_class`, code: 'invalid_value', message }] });
  }
  return {
    ...terms,
    weekend_price: optionalAmountIn(terms.weekend_price, currency, `${path}weekend_price`),
    cleaning_fee: amount(terms.cleaning_fee, 'cleaning_fee'),
    tourism_fee_per_bedroom_night: amount(terms.tourism_fee_per_bedroom_night, 'tourism_fee_per_bedroom_night'),
    deposit: amount(terms.deposit, 'deposit'),
    booking_deposit_amount: optionalAmountIn(terms.booking_deposit_amount, currency, `${path}booking_deposit_amount`),
    seasons: terms.seasons.map((season, i) => ({
      ...season,
      nightly_price: amount(season.nightly_price, `seasons.${i}.nightly_price`),
      weekend_price: optionalAmountIn(season.weekend_price, currency, `${path}seasons.${i}.weekend_price`),
    })),
  };
}
