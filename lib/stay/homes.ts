import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../db/index';
import { notFound } from '../errors';
import type { HolidayHomeTerms, NightRule, SeasonRow } from '../../schema/stay/db';
import type { Company } from '../../schema/platform/db';

/**
 * A holiday home as stays are checked and priced against it (issue 36 moved it here from functions/stay, so the
 * catalogue's free-dates search applies the one calendar rule the bookings apply).
 */

/** A holiday home that takes bookings: its listing's price and size, its terms and its seasons. */
export type BookableHome = {
  id: string;
  slug: string;
  title: Record<string, string>;
  nightlyPrice: string;
  bedrooms: number | null;
  maxGuests: number | null;
  terms: HolidayHomeTerms;
  seasons: SeasonRow[];
  /** The own rules (daily rates and restrictions, lib/stay/rates.ts) of the nights read with it: a stay's and its check-out day. */
  rates: NightRule[];
};

/** 404 unless the company has bookings switched on. */
export function requireBookings(company: Company): void {
  if (company.settings.bookings_enabled !== true) throw notFound('Bookings are switched off, so this home');
}

/**
 * The row of a home by its English or Arabic slug, with its terms, when it takes bookings: a published holiday home
 * with a nightly price (otherwise no row). Callers add columns; the values may be SQL (a prepared statement's slots).
 */
export function bookableHomeQuery(executor: Executor, companyId: string | RawBuilder<string>, slug: string | RawBuilder<string>) {
  return bookableHomesQuery(executor, companyId).where((eb) => eb.or([eb('l.slug_en', '=', slug), eb('l.slug_ar', '=', slug)]));
}

/** The rows of a company's homes that take bookings, as {@link bookableHomeQuery} (callers choose which). */
export function bookableHomesQuery(executor: Executor, companyId: string | RawBuilder<string>) {
  return executor
    .selectFrom('listings as l')
    .innerJoin('holiday_home_terms as t', 't.listing_id', 'l.id')
    .selectAll('t')
    .select([
      'l.id',
      'l.slug_en',
      'l.title',
      'l.price',
      'l.bedrooms',
      'l.max_guests',
      sql<string>`t.check_in_time::text`.as('check_in_time'),
      sql<string>`t.check_out_time::text`.as('check_out_time'),
    ])
    .where('l.company_id', '=', companyId)
    .where('l.status', '=', 'published')
    .where('l.listing_type', '=', 'holiday_home')
    .where('l.price_period', '=', 'night')
    .where('l.price', 'is not', null);
}

export type HomeRow = NonNullable<Awaited<ReturnType<ReturnType<typeof bookableHomeQuery>['executeTakeFirst']>>>;

/** The 404 of a home that is not there or takes no bookings. */
export const homeNotFound = (slug: string) => notFound(`The holiday home "${slug}"`);

/** The home of a row of {@link bookableHomeQuery}. */
export function bookableHomeOf(row: HomeRow, seasons: SeasonRow[], rates: NightRule[] = []): BookableHome {
  const { id, slug_en, title, price, bedrooms, max_guests, ...terms } = row;
  return {
    id,
    slug: slug_en,
    title: title as Record<string, string>,
    nightlyPrice: price as string,
    bedrooms,
    maxGuests: max_guests,
    terms: { ...terms, check_in_time: hhmm(terms.check_in_time), check_out_time: hhmm(terms.check_out_time) },
    seasons,
    rates,
  };
}

/** `15:00:00` → `15:00`. */
const hhmm = (time: string) => time.slice(0, 5);
