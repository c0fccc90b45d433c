import { sql } from 'kysely';
import { lockHomeCalendar } from '../../lib/calendar';
import type { Db, Executor, Trx } from '../../lib/db/index';
import { homeTermsIn, setHomeTermsAt } from '../../lib/homes';
import { writeLockedWhenStale } from '../../lib/locked-write';
import { stale } from '../../lib/write';
import type { HomeTermsValue } from '../../schema/common/homes';
import { notFound } from '../../lib/errors';
import { type BookableHome, bookableHomeOf, bookableHomeQuery, homeNotFound, requireBookings } from '../../lib/stay/homes';
import type { Company } from '../../schema/platform/db';

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
