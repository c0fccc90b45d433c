import { type RawBuilder, sql } from 'kysely';
import { lockHomeCalendar } from '../../lib/calendar';
import type { Db, Executor, Trx } from '../../lib/db/index';
import { homeTermsIn, setHomeTermsAt } from '../../lib/homes';
import { writeLockedWhenStale } from '../../lib/locked-write';
import { stale } from '../../lib/write';
import type { HomeTermsValue } from '../../schema/common/homes';
import { notFound } from '../../lib/errors';
import type { HolidayHomeTerms, SeasonRow } from '../../schema/stay/db';
import type { Company } from '../../schema/platform/db';

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
    .where((eb) => eb.or([eb('l.slug_en', '=', slug), eb('l.slug_ar', '=', slug)]))
    .where('l.status', '=', 'published')
    .where('l.listing_type', '=', 'holiday_home')
    .where('l.price_period', '=', 'night')
    .where('l.price', 'is not', null);
}

export type HomeRow = NonNullable<Awaited<ReturnType<ReturnType<typeof bookableHomeQuery>['executeTakeFirst']>>>;

/** The 404 of a home that is not there or takes no bookings. */
export const homeNotFound = (slug: string) => notFound(`The holiday home "${slug}"`);

/** The home of a row of {@link bookableHomeQuery}. */
export function bookableHomeOf(row: HomeRow, seasons: SeasonRow[]): BookableHome {
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
  };
}

/**
 * Finds a home by its English or Arabic slug. Availability, quotes and booking requests answer 404 unless the
 * company has bookings switched on and the listing is a published holiday home with a nightly price. It locks
 * nothing: writers lock the home's terms row alone (lib/calendar.ts), never through this join.
 */
export async function findBookableHome(
  executor: Executor,
  company: Company,
  slug: string,
  options: { seasons?: boolean } = {},
): Promise<BookableHome> {
  requireBookings(company);
  const row = await bookableHomeQuery(executor, company.id, slug).executeTakeFirst();
  if (!row) throw homeNotFound(slug);
  // Availability needs no prices: it skips the seasons' query.
  const seasons =
    options.seasons === false
      ? []
      : await executor
          .selectFrom('holiday_home_seasons')
          .selectAll()
          .where('listing_id', '=', row.id)
          .orderBy('starts_on')
          .execute();
  return bookableHomeOf(row, seasons);
}

/** `15:00:00` → `15:00`. */
const hhmm = (time: string) => time.slice(0, 5);

/** A company's holiday home by its English or Arabic slug, whatever its status (`l`): callers add columns. */
export function holidayHomeQuery(executor: Executor, companyId: string, slug: string) {
  return executor
    .selectFrom('listings as l')
    .where('l.company_id', '=', companyId)
    .where((eb) => eb.or([eb('l.slug_en', '=', slug), eb('l.slug_ar', '=', slug)]))
    .where('l.listing_type', '=', 'holiday_home');
}

/** The 404 of a holiday home that is not there. */
export const holidayHomeNotFound = (slug: string) => notFound(`The holiday home "${slug}"`);

/** The id of a company's holiday home by its English or Arabic slug, whatever its status (404 when none). */
export async function holidayHomeId(executor: Executor, companyId: string, slug: string): Promise<string> {
  const row = await holidayHomeQuery(executor, companyId, slug).select('l.id').executeTakeFirst();
  if (!row) throw holidayHomeNotFound(slug);
  return row.id;
}

/** A write's lock when it ran again (lib/locked-write.ts): the home's terms row (lib/calendar.ts), the home by its slug. */
export async function lockHomeBySlug(trx: Trx, companyId: string, slug: string): Promise<void> {
  await lockHomeCalendar(trx, await holidayHomeId(trx, companyId, slug));
}

/**
 * Replaces a holiday home's booking terms and seasons in two round trips: the home and its `rules_version` read, then
 * one statement that writes them if the version is still the one read (lib/homes.ts setHomeTermsAt); when it moved, the
 * write runs again, then with the home's terms row locked first (lib/locked-write.ts).
 */
export function replaceHomeTerms(db: Db, companyId: string, slug: string, terms: HomeTermsValue): Promise<void> {
  return writeLockedWhenStale(
    { db },
    (trx) => lockHomeBySlug(trx, companyId, slug),
    async (attempt) => {
      const home = await holidayHomeQuery(attempt.db, companyId, slug)
        .innerJoin('holiday_home_terms as t', 't.listing_id', 'l.id')
        .select([
          'l.id',
          sql<string>`t.rules_version::text`.as('rules_version'),
          sql<string>`(select c.currency from companies c where c.id = l.company_id)`.as('currency'),
        ])
        .executeTakeFirst();
      if (!home) throw holidayHomeNotFound(slug);
      const taken = homeTermsIn(terms, home.currency);
      return (await setHomeTermsAt(attempt.db, home.id, home.rules_version, taken)) ? undefined : stale;
    },
  );
}
