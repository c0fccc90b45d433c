import { type RawBuilder, sql } from 'kysely';
import type { Executor } from '../db/index';
import type { NightRule } from '../../schema/stay/db';

/**
 * Daily rates and restrictions of a holiday home (issue 37; docs/api-reference.md, "Daily rates"): the one reading of
 * a night's own rule, over the terms and seasons (a date's own rule wins). Quotes, booking requests and the free-dates
 * search read the rules of a stay's nights with its facts (lib/stay/quote.ts) and apply them here (prices:
 * lib/stay/pricing.ts; stay rules: lib/stay/rules.ts); a closed night is a taken night of the one calendar rule
 * (lib/calendar.ts closedWithin), so availability and the iCalendar feeds show it as blocked.
 *
 * - price: the night's price, over the seasonal, weekend and base price.
 * - min_nights, max_nights: the stay arriving that day takes at least / at most so many nights (over the terms').
 * - closed_to_arrival: no stay starts that day; closed_to_departure: no stay ends that day (its check-out).
 * - closed: no stay uses that night.
 */

/** The furthest a rule may be set: this many days after today, the most a change or push covers. */
export const rateWindowDays = 730;

/** The rules of a home's nights in [from, to] (both ends: the check-out day's rule counts for departures), by night. */
export function nightRulesQuery(
  executor: Executor,
  listingId: string | RawBuilder<string>,
  from: string | RawBuilder<string>,
  to: string | RawBuilder<string>,
) {
  return executor
    .selectFrom('holiday_home_rates')
    .select([
      sql<string>`night::text`.as('night'),
      sql<string | null>`price::text`.as('price'),
      'min_nights',
      'max_nights',
      'closed_to_arrival',
      'closed_to_departure',
      'closed',
    ])
    .where('listing_id', '=', listingId)
    .where('night', '>=', from)
    .where('night', '<=', to)
    .orderBy('night');
}

/** The rule of `date` among `rules` (undefined: the terms and seasons alone). */
export function ruleOn(rules: readonly NightRule[], date: string): NightRule | undefined {
  return rules.find((rule) => rule.night === date);
}

/** The stay limits of an arrival on `checkIn`: the day's own minimum and maximum over the terms'. */
export function stayLimits(
  rules: readonly NightRule[],
  checkIn: string,
  terms: { min_nights: number; max_nights: number },
): { min: number; max: number } {
  const rule = ruleOn(rules, checkIn);
  return { min: rule?.min_nights ?? terms.min_nights, max: rule?.max_nights ?? terms.max_nights };
}

/** A rule as the API shows a range of nights: [starts_on, ends_on) with the same rule. */
export type RateRange = Omit<NightRule, 'night'> & { starts_on: string; ends_on: string };

/** The rules of consecutive nights merged into ranges where they are the same (`rules` in night order). */
export function rateRanges(rules: readonly NightRule[], addDay: (date: string) => string): RateRange[] {
  const ranges: RateRange[] = [];
  for (const { night, ...rule } of rules) {
    const last = ranges[ranges.length - 1];
    if (last && last.ends_on === night && sameRule(last, rule)) {
      last.ends_on = addDay(night);
    } else {
      ranges.push({ starts_on: night, ends_on: addDay(night), ...rule });
    }
  }
  return ranges;
}

function sameRule(a: Omit<NightRule, 'night'>, b: Omit<NightRule, 'night'>): boolean {
  return (
    a.price === b.price &&
    a.min_nights === b.min_nights &&
    a.max_nights === b.max_nights &&
    a.closed_to_arrival === b.closed_to_arrival &&
    a.closed_to_departure === b.closed_to_departure &&
    a.closed === b.closed
  );
}

/** A stay rule of dates (no price, not closed) as availability shows it. */
export type RestrictionRange = Omit<RateRange, 'price' | 'closed'>;

/**
 * The stay rules of `rules` (in night order) as availability shows them: the dates with a minimum or maximum stay of
 * their own or closed to arrival or departure, consecutive ones with the same rule merged; prices and closed nights
 * (blocked) left out.
 */
export function restrictionRanges(rules: readonly NightRule[], addDay: (date: string) => string): RestrictionRange[] {
  const kept = rules
    .map((rule) => ({ ...rule, price: null, closed: false }))
    .filter((r) => r.min_nights !== null || r.max_nights !== null || r.closed_to_arrival || r.closed_to_departure);
  return rateRanges(kept, addDay).map(({ price: _, closed: __, ...range }) => range);
}
