import Big from 'big.js';
import { type OperationNodeSource, type RawBuilder, sql } from 'kysely';
import { lapsedAt } from '../bookings';
import {
  blocksWithin,
  closedWithin,
  type HoldingStay,
  mergeRanges,
  type Range,
  staysHoldingQuery,
  type TakenBlock,
  takenNights,
} from '../calendar';
import type { Executor } from '../db/index';
import { prepared } from '../db/prepared';
import type { TaxRate } from '../tax';
import type { Company } from '../../schema/platform/db';
import type { TaxCategory } from '../../schema/common/tax';
import type { NightRule, SeasonRow, TaxedQuote } from '../../schema/stay/db';
import {
  type BookableHome,
  bookableHomeOf,
  bookableHomeQuery,
  bookableHomesQuery,
  type HomeRow,
  homeNotFound,
  requireBookings,
} from './homes';
import { priceStay, type StayTaxFacts, taxQuote } from './pricing';
import { nightRulesQuery } from './rates';
import { assertStayAllowed, type Stay, stayProblems } from './rules';

/**
 * Quotes, and the read every booking request starts with: what a stay of one home needs (the home, its terms and
 * seasons, the nights a new stay may not use by the one calendar rule, the holds that lapsed) is read in one statement
 * (stayFacts), then checked and priced here (quoteOf), so a date mistake is refused before the spam check. A quote
 * stops there; a booking request goes on to the hold (hold.ts), which writes only if the home's `rules_version` is
 * still the one read here.
 */

/** What a stay of one home is checked, priced and held with, read in one statement. */
export type StayFacts = {
  home: BookableHome;
  /** Nights of the stay's window a new stay may not use: holding stays, blocks and turnover (lib/calendar.ts; merged). */
  taken: Range[];
  /** The home's holds and payment windows that ran out by `now`: released by the hold's statement. */
  lapsed: Array<{ id: string; reference: string }>;
  /** The home's rules_version when read. */
  version: string;
  /** The listing's own tax category and the rates in force on the check-in day (issue 35), the company's settings apart. */
  tax: { listing: StayTaxFacts['listing']; rates: Array<TaxRate & { id: string }> };
};

/** The rows of `query` as one JSON array (empty: `[]`), for a column of a larger statement. */
const jsonRows = <T>(query: OperationNodeSource) =>
  sql<T[]>`coalesce((select json_agg(row_to_json(x)) from (${query}) as x), '[]')`;

type FactsValues = { company_id: string; slug: string; check_in: string; check_out: string; now: string };
type FactsRow = HomeRow & {
  tax_category: TaxCategory | null;
  tax_rates: Array<TaxRate & { id: string }>;
  season_rows: SeasonRow[];
  rate_rows: NightRule[];
  holding: Range[];
  blocks: TakenBlock[];
  lapsed: Array<{ id: string; reference: string }>;
};

/**
 * The columns of a home's row (`l`, its terms `t`) a stay of [checkIn, checkOut) needs at `now`: the tax rates of the
 * check-in day, the seasons, the nights' own rules (daily rates), the stays, blocks and closed nights around it, the
 * lapsed holds.
 */
function factsColumns(db: Executor, checkIn: unknown, checkOut: unknown, at: unknown) {
  const listing = sql<string>`l.id`;
  const now = sql<Date>`${at}::timestamptz`;
  // The stay's nights and the home's turnover days on each side: a stay whose turnover reaches the new one, or the next
  // stay the new one's turnover would reach (lib/calendar.ts takenNights).
  const [from, to] = [sql<string>`${checkIn}::date - t.turnover_days`, sql<string>`${checkOut}::date + t.turnover_days`];
  return [
    'l.tax_category',
    // The rates in force on the check-in day, the day the stay is supplied (issue 35; docs "Tax").
    sql<Array<TaxRate & { id: string }>>`coalesce((
      select json_agg(json_build_object('id', r.id, 'category', r.category, 'rate', r.rate::text, 'valid_from', r.valid_from::text,
        'valid_to', r.valid_to::text))
      from tax_rates r where r.valid_from <= ${checkIn}::date and (r.valid_to is null or ${checkIn}::date <= r.valid_to)),
      '[]')`.as('tax_rates'),
    sql<SeasonRow[]>`coalesce((
      select json_agg(to_jsonb(s) || jsonb_build_object('nightly_price', s.nightly_price::text,
        'weekend_price', s.weekend_price::text) order by s.starts_on)
      from holiday_home_seasons s where s.listing_id = l.id), '[]')`.as('season_rows'),
    jsonRows<Range>(staysHoldingQuery(db, listing, from, to, now)).as('holding'),
    // Blocks, and the nights a date's own rule closes (lib/calendar.ts closedWithin).
    jsonRows<TakenBlock>(blocksWithin(db, listing, from, to).unionAll(closedWithin(db, listing, from, to))).as('blocks'),
    // The stay's nights' own rules and its check-out day's (issue 37, lib/stay/rates.ts).
    jsonRows<NightRule>(nightRulesQuery(db, listing, sql<string>`${checkIn}::date`, sql<string>`${checkOut}::date`)).as(
      'rate_rows',
    ),
    jsonRows<{ id: string; reference: string }>(
      db.selectFrom('bookings').select(['id', 'reference']).where('listing_id', '=', listing).where(lapsedAt(now)),
    ).as('lapsed'),
  ] as const;
}

/** The statement of {@link stayFacts}. */
const selectFacts = prepared<FactsValues, FactsRow>((p, db) =>
  bookableHomeQuery(db, p.company_id, p.slug).select(factsColumns(db, p.check_in, p.check_out, p.now)),
);

/**
 * The facts of a row of {@link selectFacts} (or of {@link homesFacts}' statement) for `stay`; the stay of the booking
 * `except` (a reference: a booking's own change) takes none of its nights.
 */
function factsOf(row: FactsRow, stay: Stay, except?: string): StayFacts {
  const { season_rows, rate_rows, holding, blocks, lapsed, tax_category, tax_rates, ...home } = row;
  const stays = except === undefined ? holding : (holding as HoldingStay[]).filter((s) => s.reference !== except);
  const taken = takenNights({ stays, blocks }, home.turnover_days);
  return {
    home: bookableHomeOf(home, season_rows, rate_rows),
    taken: mergeRanges(taken, stay.checkIn, stay.checkOut),
    lapsed,
    version: String(home.rules_version),
    tax: { listing: tax_category, rates: tax_rates },
  };
}

/**
 * The stay facts of several homes of the company (by listing id) in one statement, for the catalogue's free-dates
 * search (issue 36): those of the homes that take bookings, by id (the others are not in the map).
 */
export async function homesFacts(
  executor: Executor,
  company: Company,
  listingIds: readonly string[],
  stay: Stay,
  now: Date,
): Promise<Map<string, StayFacts>> {
  if (listingIds.length === 0) return new Map();
  const rows = (await bookableHomesQuery(executor, company.id)
    .where('l.id', 'in', listingIds)
    .select(factsColumns(executor, stay.checkIn, stay.checkOut, now.toISOString()))
    .execute()) as unknown as FactsRow[];
  return new Map(rows.map((row) => [row.id, factsOf(row, stay)]));
}

/** The quote of `stay` when the home takes it (every rule of the one calendar rule met), else null: no 400. */
export function freeStayQuote(company: Company, facts: StayFacts, stay: Stay, now: Date): TaxedQuote | null {
  if (stayProblems(facts.home, stay, company.time_zone, now, facts.taken).length > 0) return null;
  return quoteOf(company, facts, stay, now);
}

/** The home by slug (404 unless it takes bookings), its terms and seasons, the stay's taken nights and lapsed holds. */
export async function stayFacts(executor: Executor, company: Company, slug: string, stay: Stay, now: Date): Promise<StayFacts> {
  requireBookings(company);
  const [row] = await selectFacts(executor, {
    company_id: company.id,
    slug,
    check_in: stay.checkIn,
    check_out: stay.checkOut,
    now: now.toISOString(),
  });
  if (!row) throw homeNotFound(slug);
  return factsOf(row, stay);
}

/**
 * {@link stayFacts} of a home by slug or id, with `columns` read in the same statement (an integration's write reads
 * its booking's own with them: what was paid online, a channel id recorded before); the stay of the booking `except`
 * (its reference) takes none of its nights, as its own change needs. Undefined when the home takes no bookings.
 */
export async function stayFactsWith<C extends string>(
  executor: Executor,
  company: Company,
  home: { slug: string } | { id: string },
  stay: Stay,
  now: Date,
  options: { except?: string; columns: Record<C, RawBuilder<unknown>> },
): Promise<{ facts: StayFacts; columns: Record<C, unknown> } | undefined> {
  requireBookings(company);
  const homes =
    'slug' in home
      ? bookableHomeQuery(executor, company.id, home.slug)
      : bookableHomesQuery(executor, company.id).where('l.id', '=', home.id);
  const names = Object.keys(options.columns) as C[];
  const row = (await homes
    .select(factsColumns(executor, stay.checkIn, stay.checkOut, now.toISOString()))
    .select(names.map((name) => (options.columns[name] as RawBuilder<unknown>).as(name)))
    .executeTakeFirst()) as (FactsRow & Record<C, unknown>) | undefined;
  if (!row) return undefined;
  const columns = Object.fromEntries(names.map((name) => [name, row[name]])) as Record<C, unknown>;
  const facts = { ...row } as Record<string, unknown>;
  for (const name of names) delete facts[name];
  return { facts: factsOf(facts as FactsRow, stay, options.except), columns };
}

/**
 * The price of a stay the home can take, with its tax (pricing.ts taxQuote); otherwise the rule's 400. The same code
 * serves quotes and bookings, so a booking keeps the tax its guest was quoted.
 */
export function quoteOf(
  company: Company,
  facts: StayFacts,
  stay: Stay,
  now: Date,
  waived: Parameters<typeof assertStayAllowed>[5] = [],
): TaxedQuote {
  assertStayAllowed(facts.home, stay, company.time_zone, now, facts.taken, waived);
  const price = priceStay(facts.home, stay.checkIn, stay.checkOut, company.currency);
  return taxQuote(price, stay.checkIn, { settings: company.settings, ...facts.tax });
}

/** A free-dates search's stay (GET /listings, a saved search): price_min and price_max apply to the quote's total. */
export type FreeDatesAsk = Stay & { total: { min?: string; max?: string } };

/** Whether a free home's quote is within the search's total. */
export function withinTotal(quote: TaxedQuote, total: FreeDatesAsk['total']): boolean {
  if (total.min !== undefined && new Big(quote.total).lt(total.min)) return false;
  if (total.max !== undefined && new Big(quote.total).gt(total.max)) return false;
  return true;
}
