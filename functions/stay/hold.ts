import { type OperationNodeSource, sql } from 'kysely';
import { lockHomeCalendar, staysHoldingQuery } from '../../lib/calendar';
import { randomToken, sha256 } from '../../lib/crypto';
import type { Db, Executor, Trx } from '../../lib/db/index';
import { type CausedBy, eventCtes, eventsCtes, newEventId } from '../../lib/events';
import { personCtes, wantedPerson } from '../../lib/people';
import { newReference } from '../../lib/references';
import type { Company } from '../../schema/platform/db';
import type { SeasonRow, StoredQuote } from '../../schema/stay/db';
import { type NewBooking, defaultHoldHours, lapsedAt, transactionForNights } from './bookings';
import { blocksWithin, mergeRanges, type Range } from './calendar';
import { type BookableHome, bookableHomeOf, bookableHomeQuery, homeNotFound } from './homes';
import { priceStay } from './pricing';
import { assertStayAllowed, type Stay } from './rules';

/**
 * Booking requests in two round trips: what the stay needs is read in one statement (stayFacts), checked and
 * priced here (so a date mistake is refused before the spam check), and the hold written in one statement
 * (holdStay) that locks the home's terms row and writes only if the home's calendar_version is still the one read.
 * Every write to the calendar bumps that version under the same row lock (bookings, blocks, seasons, the terms
 * themselves: migration 0006), and the lock's row is the latest committed version even after waiting for it, so an
 * unchanged version proves that nothing the check read has changed since. A moved version (another request of the
 * home came first) takes the locked path: the terms row locked, the facts read again, then the same write.
 */

/** What a stay of one home is checked, priced and held with, read in one statement. */
export type StayFacts = {
  home: BookableHome;
  /** Nights of the stay's window taken by holding stays and blocks (merged). */
  taken: Range[];
  /** The home's holds and payment windows that ran out by `now`: released by the hold's statement. */
  lapsed: Array<{ id: string; reference: string }>;
  /** The home's calendar_version when read. */
  version: string;
};

/** The rows of `query` as one JSON array (empty: `[]`), for a column of a larger statement. */
const jsonRows = <T>(query: OperationNodeSource) =>
  sql<T[]>`coalesce((select json_agg(row_to_json(x)) from (${query}) as x), '[]')`;

/** The home by slug (404 unless it takes bookings), its terms and seasons, the stay's taken nights and lapsed holds. */
export async function stayFacts(executor: Executor, company: Company, slug: string, stay: Stay, now: Date): Promise<StayFacts> {
  const listing = sql<string>`l.id`;
  const row = await bookableHomeQuery(executor, company, slug)
    .select([
      sql<SeasonRow[]>`coalesce((
        select json_agg(to_jsonb(s) || jsonb_build_object('nightly_price', s.nightly_price::text,
          'weekend_price', s.weekend_price::text) order by s.starts_on)
        from holiday_home_seasons s where s.listing_id = l.id), '[]')`.as('season_rows'),
      jsonRows<Range>(staysHoldingQuery(executor, listing, stay.checkIn, stay.checkOut, now)).as('holding'),
      jsonRows<Range>(blocksWithin(executor, listing, stay.checkIn, stay.checkOut)).as('blocks'),
      jsonRows<{ id: string; reference: string }>(
        executor.selectFrom('bookings').select(['id', 'reference']).where('listing_id', '=', listing).where(lapsedAt(now)),
      ).as('lapsed'),
    ])
    .executeTakeFirst();
  if (!row) throw homeNotFound(slug);
  const { season_rows, holding, blocks, lapsed, ...home } = row;
  return {
    home: bookableHomeOf(home, season_rows),
    taken: mergeRanges([...holding, ...blocks], stay.checkIn, stay.checkOut),
    lapsed,
    version: String(home.calendar_version),
  };
}

/** The price of a stay the home can take; otherwise the rule's 400. The same code serves quotes and bookings. */
export function quoteOf(company: Company, facts: StayFacts, stay: Stay, now: Date): StoredQuote {
  assertStayAllowed(facts.home, stay, company.time_zone, now, facts.taken);
  return priceStay(facts.home, stay.checkIn, stay.checkOut, company.currency);
}

export type Hold = { booking: { id: string; reference: string; hold_expires_at: Date }; token: string };

/** Booking events carry the booking's id and reference and the listing's id, never the guest. */
const bookingData = (alias: string) =>
  sql`jsonb_build_object('booking_id', ${sql.ref(`${alias}.id`)}, 'reference', ${sql.ref(`${alias}.reference`)},
    'listing_id', ${sql.ref(`${alias}.listing_id`)})`;

/**
 * The hold, in one statement: the home's terms row locked; if its calendar_version is still `facts.version` and the
 * listing still as read, the lapsed holds released (each with `booking.cancelled` from `system`), the guest matched
 * or added (lib/people.ts personCtes), the booking inserted with `booking.requested`. Undefined when the version
 * moved: nothing was written. Two holds of overlapping nights that get past this meet on the exclusion constraint.
 */
export async function holdStay(
  executor: Executor,
  company: Company,
  facts: StayFacts,
  quote: StoredQuote,
  input: NewBooking,
  causedBy: CausedBy,
  now: Date,
): Promise<Hold | undefined> {
  const { home } = facts;
  const holdHours = company.settings.booking_hold_hours ?? defaultHoldHours;
  const token = randomToken(32);
  const id = crypto.randomUUID();
  const reference = newReference('B');
  const c = sql`${company.id}::uuid`;
  const wanted = wantedPerson(company, input);
  const lapsedIds = facts.lapsed.map((b) => b.id);
  const { rows } = await sql<{ id: string; reference: string; hold_expires_at: Date }>`
    with terms as (
      select calendar_version from holiday_home_terms where listing_id = ${home.id}::uuid for no key update
    ),
    unchanged as (
      select from terms where calendar_version = ${facts.version}::bigint and exists (
        select from listings l where l.id = ${home.id}::uuid and l.status = 'published'
          and l.listing_type = 'holiday_home' and l.price_period = 'night' and l.price = ${home.nightlyPrice}::numeric
          and l.bedrooms is not distinct from ${home.bedrooms}::integer
          and l.max_guests is not distinct from ${home.maxGuests}::integer)
    ),
    released as (
      update bookings set status = 'cancelled', cancelled_at = ${now}::timestamptz,
        cancel_reason = case status when 'held' then 'hold_expired' else 'payment_overdue' end,
        updated_at = clock_timestamp()
      where id = any (${lapsedIds}::uuid[]) and status in ('held', 'confirmed') and exists (select from unchanged)
      returning id, reference, listing_id
    ),
    ${eventsCtes(
      'released',
      { companyId: company.id, type: 'booking.cancelled', causedBy: 'system' },
      sql`select e.event_id as id, ${bookingData('r')} as data
        from released r join unnest(${lapsedIds}::uuid[], ${lapsedIds.map(() => newEventId())}::text[])
          as e (booking_id, event_id) on e.booking_id = r.id`,
    )},
    ${personCtes(company, wanted, causedBy, { touch: false, gate: 'unchanged' })},
    booking as (
      insert into bookings (id, company_id, reference, listing_id, contact_id, status, check_in, check_out, guests,
        language, message, quote, currency, total, deposit, stay_token_hash, consent_version, consent_at,
        consent_address, hold_expires_at, caused_by)
      select ${id}::uuid, ${c}, ${reference}, ${home.id}::uuid, person.id, 'held', ${input.checkIn}::date,
        ${input.checkOut}::date, ${input.guests}::integer, ${input.language ?? null}, ${input.message ?? null},
        ${JSON.stringify(quote)}::jsonb, ${quote.currency}, ${quote.total}::numeric, ${quote.deposit}::numeric,
        ${await sha256(token)}::bytea, ${input.consentVersion}, ${now}::timestamptz, ${input.consentAddress},
        ${new Date(now.getTime() + holdHours * 3_600_000)}::timestamptz, ${causedBy}
      -- The lapsed holds are released first (their nights are then free for the exclusion constraint).
      from person, unchanged, (select count(*) from released) as first
      returning id, reference, listing_id, hold_expires_at
    ),
    ${eventCtes('booking', newEventId(), { companyId: company.id, type: 'booking.requested', causedBy, data: {} }, 'booking', bookingData('happened'))}
    select id, reference, hold_expires_at from booking
  `.execute(executor);
  const booking = rows[0];
  return booking && { booking: { ...booking, hold_expires_at: new Date(booking.hold_expires_at) }, token };
}

/**
 * The locked path, when the calendar moved since the stay was read (or a concurrent add of the same guest met the
 * contacts' unique index): in a transaction, the home's terms row locked, the facts read again (a new statement, so
 * it sees every write committed before the lock), the stay checked and priced again, then the same hold.
 */
export function holdStayLocked(
  db: Db,
  company: Company,
  listingId: string,
  slug: string,
  input: NewBooking,
  causedBy: CausedBy,
  now: Date,
): Promise<Hold & { quote: StoredQuote }> {
  return transactionForNights(db, async (trx: Trx) => {
    await lockHomeCalendar(trx, listingId);
    const facts = await stayFacts(trx, company, slug, input, now);
    const quote = quoteOf(company, facts, input, now);
    const hold = await holdStay(trx, company, facts, quote, input, causedBy, now);
    if (!hold) throw new Error('the calendar moved while its terms row was locked');
    return { ...hold, quote };
  });
}
