import { sql } from 'kysely';
import { auditCte } from '../../lib/audit';
import { lockedTermsCte, staysHoldingQuery } from '../../lib/calendar';
import { addDays, daysBetween, todayIn } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { type CausedBy, eventCtes, newEventId } from '../../lib/events';
import { ApiError, type FieldError } from '../../lib/errors';
import { optionalAmountIn } from '../../lib/money';
import { nightRulesQuery, type RateRange, rateRanges, rateWindowDays } from '../../lib/stay/rates';
import type { Company } from '../../schema/platform/db';
import type { NightRule } from '../../schema/stay/db';
import type { RateRangeValue } from '../../schema/stay/rates';
import { holidayHomeNotFound, holidayHomeQuery } from './homes';

/**
 * Daily rates and restrictions of a holiday home (issue 37; docs/api-reference.md, "Daily rates"), as staff
 * (admin API), an integration (a server key with `write:listings`) and a pricing tool's push (rate-push.ts) write and
 * read them. The rule of a night is read in one place, lib/stay/rates.ts; this file checks and writes changes: each in
 * one statement with its event (`listing.rates_changed`) and its audit row.
 */

/** Where a range's fields are named in a 400: the admin and server routes' `rates.<i>.<field>`, a push's own. */
export type RangePaths = { starts: (i: number) => string; ends: (i: number) => string; field: (i: number, f: string) => string };

export const ratesPaths: RangePaths = {
  starts: (i) => `rates.${i}.starts_on`,
  ends: (i) => `rates.${i}.ends_on`,
  field: (i, f) => `rates.${i}.${f}`,
};

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const invalid = (path: string, code: string, message: string) =>
  new ApiError('invalid_request', message, { errors: [{ path, code, message }] });

/**
 * The ranges of a change, checked before anything is written (400 at the field, nothing changed): none inverted,
 * none overlapping another, none before today (the company's zone) or ending after today + 730 days, at most 730
 * nights from the first night to the last, each minimum stay at most its maximum, and each price an amount of the
 * company's currency (its digits). Answers them sorted, their prices as stored, and the span they cover.
 */
export function checkedRanges(
  ranges: readonly RateRangeValue[],
  company: Company,
  now: Date,
  paths: RangePaths = ratesPaths,
): { ranges: RateRangeValue[]; starts_on: string; ends_on: string } {
  const today = todayIn(company.time_zone, now);
  const last = addDays(today, rateWindowDays);
  const errors: FieldError[] = [];
  ranges.forEach((range, i) => {
    if (range.ends_on <= range.starts_on) errors.push({ path: paths.ends(i), code: 'too_small', message: 'After starts_on.' });
    if (range.starts_on < today) {
      errors.push({ path: paths.starts(i), code: 'too_small', message: `Not before today (${today}).` });
    }
    if (range.ends_on > last) {
      errors.push({ path: paths.ends(i), code: 'too_big', message: `At most ${rateWindowDays} days ahead (${last}).` });
    }
    if (range.min_nights !== null && range.max_nights !== null && range.min_nights > range.max_nights) {
      errors.push({ path: paths.field(i, 'max_nights'), code: 'too_small', message: 'At least min_nights.' });
    }
  });
  const sorted = ranges.map((range, i) => ({ range, i })).sort((a, b) => (a.range.starts_on < b.range.starts_on ? -1 : 1));
  sorted.forEach(({ range }, n) => {
    const next = sorted[n + 1];
    if (next && next.range.starts_on < range.ends_on && range.ends_on > range.starts_on) {
      errors.push({ path: paths.starts(next.i), code: 'custom', message: 'Ranges may not overlap.' });
    }
  });
  if (errors.length > 0) throw new ApiError('invalid_request', errors[0]?.message ?? 'Invalid ranges.', { errors });
  const starts_on = sorted[0]?.range.starts_on ?? today;
  const ends_on = sorted.reduce((end, { range }) => (range.ends_on > end ? range.ends_on : end), starts_on);
  if (daysBetween(starts_on, ends_on) > rateWindowDays) {
    const widest = sorted.reduce((a, b) => (b.range.ends_on > a.range.ends_on ? b : a));
    throw invalid(paths.ends(widest.i), 'too_big', `At most ${rateWindowDays} nights from the first night to the last.`);
  }
  return {
    ranges: sorted.map(({ range, i }) => ({
      ...range,
      price: optionalAmountIn(range.price, company.currency, paths.field(i, 'price')),
    })),
    starts_on,
    ends_on,
  };
}

/** Who wrote a change: the event's `caused_by` and the rows' `source`; a push's own id (kept, and its repeat found by it). */
export type RateSource = { causedBy: CausedBy; pushId?: string };

export type RatesWritten = {
  listing: string;
  /** False: a push already recorded (its id), nothing written. */
  recorded: boolean;
  nights: number;
  starts_on: string;
  ends_on: string;
  warnings: Array<{ code: string; message: string }>;
};

/**
 * Writes a change of a home's rates in one statement (`home`: its English or Arabic slug, or its id for a push): the
 * home's terms row locked first (as every calendar write, lib/calendar.ts), a push recorded by its id (a repeat writes
 * nothing), every own rule of the ranges' nights deleted, then the ranges' rules inserted (a rule with nothing set
 * stays deleted), `listing.rates_changed` (the listing's id), the audit row (the span, the nights, the push's id), and
 * the bookings that hold a night the change closes: the `rates_over_booking` warning, the bookings kept. The rows'
 * trigger moves the home's rules and calendar versions (migration 0057). 404 for another company's or no home.
 */
export async function writeRates(
  db: Executor,
  company: Company,
  home: string,
  change: { ranges: RateRangeValue[]; starts_on: string; ends_on: string },
  source: RateSource,
  now: Date,
): Promise<RatesWritten> {
  // The home by its English or Arabic slug, or by its id (a push's `listing_id` may be either).
  const byId = uuidPattern.test(home);
  const homeQuery = db
    .selectFrom('listings as l')
    .select(['l.id', 'l.slug_en'])
    .where('l.company_id', '=', company.id)
    .where('l.listing_type', '=', 'holiday_home')
    .where((eb) => eb.or([eb('l.slug_en', '=', home), eb('l.slug_ar', '=', home), ...(byId ? [eb('l.id', '=', home)] : [])]));
  const input = JSON.stringify(change.ranges);
  const nights = change.ranges.reduce((sum, range) => sum + daysBetween(range.starts_on, range.ends_on), 0);
  const at = sql`${now.toISOString()}::timestamptz`;
  const listing = sql<string>`(select listing_id from go)`;
  const holding = staysHoldingQuery(db, listing, change.starts_on, change.ends_on, now);
  const pushed =
    source.pushId === undefined
      ? sql`pushed as (select listing_id from terms)`
      : sql`pushed as (
          insert into rate_pushes (company_id, push_id, listing_id, starts_on, ends_on, received_at)
          select ${company.id}::uuid, ${source.pushId}, listing_id, ${change.starts_on}::date, ${change.ends_on}::date, ${at}
          from terms
          on conflict (company_id, push_id) do nothing
          returning listing_id
        )`;
  const { rows } = await sql<{ id: string | null; slug: string | null; went: number; held: string[] }>`
    with home as (${homeQuery}),
    ${lockedTermsCte('terms', sql<string>`(select id from home)`)},
    ${pushed},
    go as (select terms.listing_id, terms.company_id from terms join pushed using (listing_id)),
    input as (
      select * from jsonb_to_recordset(${input}::jsonb) as r (starts_on date, ends_on date, price numeric, min_nights int,
        max_nights int, closed_to_arrival boolean, closed_to_departure boolean, closed boolean)
    ),
    nights as (
      select g::date as night, r.* from input r, generate_series(r.starts_on, r.ends_on - 1, interval '1 day') as g
    ),
    gone as (
      delete from holiday_home_rates x using go, input r
      where x.listing_id = go.listing_id and x.night >= r.starts_on and x.night < r.ends_on
      returning 1
    ),
    added as (
      insert into holiday_home_rates (listing_id, night, price, min_nights, max_nights, closed_to_arrival,
        closed_to_departure, closed, source, source_id)
      select go.listing_id, n.night, n.price, n.min_nights, n.max_nights, n.closed_to_arrival, n.closed_to_departure,
        n.closed, ${source.causedBy}, ${source.pushId ?? null}
      from go, nights n, (select count(*) from gone) as first
      where n.price is not null or n.min_nights is not null or n.max_nights is not null or n.closed_to_arrival
        or n.closed_to_departure or n.closed
      returning 1
    ),
    held as (
      select s.reference, s.start from (${holding}) as s
      where exists (select from go) and exists (select from nights n where n.closed and n.night >= s.start and n.night < s."end")
    ),
    ${eventCtes('rates', newEventId(), { companyId: company.id, type: 'listing.rates_changed', causedBy: source.causedBy }, 'go', sql`jsonb_build_object('listing_id', happened.listing_id)`)},
    ${auditCte('audited', 'go', {
      actor: source.causedBy,
      action: 'listing.rates_changed',
      subject: 'listing_id',
      details: {
        starts_on: change.starts_on,
        ends_on: change.ends_on,
        nights,
        ...(source.pushId ? { push_id: source.pushId } : {}),
      },
    })}
    select (select id from home) as id, (select slug_en from home) as slug, (select count(*) from go)::int as went,
      coalesce((select json_agg(reference order by start) from held), '[]') as held`.execute(db);
  const [answer] = rows;
  if (!answer?.id || answer.slug === null) throw holidayHomeNotFound(home);
  const warnings =
    answer.held.length === 0
      ? []
      : [
          {
            code: 'rates_over_booking',
            message: `Bookings hold nights this change closes: ${answer.held.join(', ')}. They are kept; no new stay may use those nights.`,
          },
        ];
  return {
    listing: answer.slug,
    recorded: answer.went > 0,
    nights,
    starts_on: change.starts_on,
    ends_on: change.ends_on,
    warnings,
  };
}

/** The default window of a read: today (the company's zone) and 365 days; at most {@link rateWindowDays}. */
const defaultReadDays = 365;

/**
 * A home's own rules of the nights of [from, to) (by default today and 365 days; at most 730), merged into ranges of
 * the same rule, in one statement. 404 for another company's or no holiday home.
 */
export async function homeRates(
  db: Executor,
  company: Company,
  slug: string,
  query: { from?: string; to?: string },
  now: Date,
): Promise<{ listing: string; from: string; to: string; rates: RateRange[] }> {
  const from = query.from ?? todayIn(company.time_zone, now);
  const to = query.to ?? addDays(from, defaultReadDays);
  if (to <= from) throw invalid('to', 'too_small', '`to` must be after `from`.');
  if (daysBetween(from, to) > rateWindowDays) {
    throw invalid('to', 'too_big', `At most ${rateWindowDays} days after \`from\`.`);
  }
  const rules = nightRulesQuery(db, sql<string>`l.id`, from, sql<string>`${addDays(to, -1)}::date`);
  const row = await holidayHomeQuery(db, company.id, slug)
    .select(['l.slug_en', sql<NightRule[]>`coalesce((select json_agg(row_to_json(r)) from (${rules}) as r), '[]')`.as('rules')])
    .executeTakeFirst();
  if (!row) throw holidayHomeNotFound(slug);
  return { listing: row.slug_en, from, to, rates: rateRanges(row.rules, (date) => addDays(date, 1)) };
}
