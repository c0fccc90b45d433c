import { type RawBuilder, sql } from 'kysely';
import { lockedTermsCte, lockHomeCalendar } from '../../lib/calendar';
import { randomToken, sha256 } from '../../lib/crypto';
import type { Db, Executor, Trx } from '../../lib/db/index';
import { prepared, type Slots } from '../../lib/db/prepared';
import { type CausedBy, eventCtes, eventsCtes, newEventId } from '../../lib/events';
import { type PersonValues, personCtes, personValues, sentDetails, wantedPerson } from '../../lib/people';
import { ApiError } from '../../lib/errors';
import { newReference } from '../../lib/references';
import type { Company } from '../../schema/platform/db';
import type { StoredQuote, TaxedQuote } from '../../schema/stay/db';
import { defaultHoldHours, type NewBooking, transactionForNights } from './bookings';
import { quoteOf, type StayFacts, stayFacts } from '../../lib/stay/quote';
import { stamp } from '../../lib/clock';
import { bookingPaymentTerms } from '../../lib/bookings';

/**
 * Booking requests in two round trips: what the stay needs is read in one statement and checked and priced
 * (quote.ts: stayFacts, quoteOf; so a date mistake is refused before the spam check), and the hold written in one statement
 * (holdStay) that locks the home's terms row and writes only if the home's `rules_version` is still the one read.
 * Every change to the terms, seasons and blocks bumps that version under the same row lock (migration 0018), and the
 * locked row is the latest committed version even after waiting for the lock (a statement's own snapshot is not), so
 * an unchanged version proves that nothing the check read has changed since, bookings apart: a booking of some of the
 * same nights committed meanwhile is refused by the exclusion constraint (`unavailable`), one of other nights does not
 * matter — except in a home with turnover days, where a booking of other nights may still clash (within a turnover):
 * there every new booking bumps the version too (migration 0025). A moved version takes the locked path: the terms
 * row locked, the facts read again, then the same write.
 */

export type Hold = { booking: { id: string; reference: string; hold_expires_at: Date }; token: string };

/** Booking events carry the booking's id and reference and the listing's id, never the guest. */
const bookingData = (alias: string) =>
  sql`jsonb_build_object('booking_id', ${sql.ref(`${alias}.id`)}, 'reference', ${sql.ref(`${alias}.reference`)},
    'listing_id', ${sql.ref(`${alias}.listing_id`)})`;

type ReleasedValues = { company_id: string; lapsed_ids: string[]; lapsed_events: string[]; now: string };

/**
 * The CTEs `released` (its rows the bookings released) and its events: the home's holds and payment windows that had
 * lapsed when read (`lapsed_ids`) released if still lapsed at `now` and `gate` holds, each with `booking.cancelled` from
 * `system` (its event id at the same place of `lapsed_events`). A booking's insert after it reads
 * `(select count(*) from released)`, so the released nights are free for the exclusion constraint first.
 */
export function releasedCtes(p: Slots<ReleasedValues>, gate: RawBuilder<boolean>): RawBuilder<unknown> {
  return sql`released as (
      update bookings set status = 'cancelled', cancelled_at = ${p.now}::timestamptz,
        cancel_reason = case status when 'held' then 'hold_expired' else 'payment_overdue' end,
        updated_at = ${stamp}
      where id = any (${p.lapsed_ids}::uuid[]) and ${gate}
        and (status = 'held' and hold_expires_at <= ${p.now}::timestamptz
          or status = 'confirmed' and payment_due_at <= ${p.now}::timestamptz)
      returning id, reference, listing_id
    ),
    ${eventsCtes(
      'released',
      { companyId: p.company_id, type: 'booking.cancelled', causedBy: 'system' },
      sql`select e.event_id as id, ${bookingData('r')} as data
        from released r join unnest(${p.lapsed_ids}::uuid[], ${p.lapsed_events}::text[])
          as e (booking_id, event_id) on e.booking_id = r.id`,
    )}`;
}

type HoldValues = PersonValues & {
  home_id: string;
  version: string;
  price: string;
  bedrooms: number | null;
  max_guests: number | null;
  lapsed_ids: string[];
  rate_ids: string[];
  tax_category: string | null;
  lapsed_events: string[];
  now: string;
  booking_id: string;
  reference: string;
  check_in: string;
  check_out: string;
  guests: number;
  language: string | null;
  message: string | null;
  quote: string;
  currency: string;
  total: string;
  deposit: string;
  booking_deposit: string;
  balance_due_days: number | null;
  deposit_confirms: boolean;
  free_cancellation_days: number;
  late_cancellation_refund_percent: number;
  token_hash: Uint8Array;
  consent_version: string;
  consent_address: string | null;
  hold_expires_at: string;
  booking_event: string;
  sent_name: string | null;
  sent_email: string | null;
  sent_phone: string | null;
};

/** The hold's statement (see {@link holdStay}). */
const insertHold = prepared<HoldValues, { id: string; reference: string; hold_expires_at: Date | string }>(
  (p) => sql`
    with ${lockedTermsCte('terms', p.home_id)},
    unchanged as (
      select from terms where rules_version = ${p.version}::bigint and exists (
        select from listings l where l.id = ${p.home_id}::uuid and l.status = 'published'
          and l.listing_type = 'holiday_home' and l.price_period = 'night' and l.price = ${p.price}::numeric
          and l.bedrooms is not distinct from ${p.bedrooms}::integer
          and l.max_guests is not distinct from ${p.max_guests}::integer
          and l.tax_category is not distinct from ${p.tax_category}::text)
        -- The tax rates the quote read are still the ones in force on its check-in day (a closed rate no longer
        -- covering it means another may: the quote's tax would be stale).
        and (select count(*) from tax_rates r where r.id = any (${p.rate_ids}::uuid[]) and r.valid_from <= ${p.check_in}::date
          and (r.valid_to is null or ${p.check_in}::date <= r.valid_to)) = cardinality(${p.rate_ids}::uuid[])
    ),
    ${releasedCtes(p, sql`exists (select from unchanged)`)},
    ${personCtes(p, { gate: 'unchanged' })},
    booking as (
      insert into bookings (id, company_id, reference, listing_id, contact_id, status, check_in, check_out, guests,
        language, message, quote, currency, total, deposit, stay_token_hash, consent_version, consent_at,
        consent_address, hold_expires_at, caused_by, sent_name, sent_email, sent_phone, booking_deposit, balance_due_days,
        deposit_confirms, free_cancellation_days, late_cancellation_refund_percent)
      select ${p.booking_id}::uuid, ${p.company_id}::uuid, ${p.reference}::text, ${p.home_id}::uuid, person.id, 'held',
        ${p.check_in}::date, ${p.check_out}::date, ${p.guests}::integer, ${p.language}::text, ${p.message}::text,
        ${p.quote}::jsonb, ${p.currency}::text, ${p.total}::numeric, ${p.deposit}::numeric, ${p.token_hash}::bytea,
        ${p.consent_version}::text, ${p.now}::timestamptz, ${p.consent_address}::text,
        ${p.hold_expires_at}::timestamptz, ${p.caused_by}::text, ${p.sent_name}::text, ${p.sent_email}::text,
        ${p.sent_phone}::text, ${p.booking_deposit}::numeric, ${p.balance_due_days}::integer, ${p.deposit_confirms}::boolean,
        ${p.free_cancellation_days}::integer, ${p.late_cancellation_refund_percent}::integer
      -- The lapsed holds are released first (their nights are then free for the exclusion constraint).
      from person, unchanged, (select count(*) from released) as first
      returning id, reference, listing_id, hold_expires_at
    ),
    ${eventCtes('booking', p.booking_event, { companyId: p.company_id, type: 'booking.requested', causedBy: p.caused_by }, 'booking', bookingData('happened'))}
    select id, reference, hold_expires_at from booking`,
);

/**
 * The hold, in one statement: the home's terms row locked; if its rules_version is still `facts.version`, the
 * listing still as read (its tax category too) and the tax rates the quote read still in force on its check-in day, the lapsed holds released (each with `booking.cancelled` from `system`), the guest matched
 * or added (lib/people.ts personCtes), the booking inserted with `booking.requested`. Undefined when the version
 * (or a rate) moved: nothing was written. A booking of the same nights committed since fails it on the exclusion constraint.
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
  const [booking] = await insertHold(executor, {
    // The guest is matched as a visitor (never merged into someone else); what they sent stays on the booking.
    ...personValues(company, wantedPerson(company, input), causedBy, { rule: 'visitor', touch: 'on_change' }),
    ...sentDetails(input),
    home_id: home.id,
    version: facts.version,
    price: home.nightlyPrice,
    bedrooms: home.bedrooms,
    max_guests: home.maxGuests,
    lapsed_ids: facts.lapsed.map((b) => b.id),
    rate_ids: facts.tax.rates.map((r) => r.id),
    tax_category: facts.tax.listing,
    lapsed_events: facts.lapsed.map(() => newEventId()),
    now: now.toISOString(),
    booking_id: crypto.randomUUID(),
    reference: newReference('B'),
    check_in: input.checkIn,
    check_out: input.checkOut,
    guests: input.guests,
    language: input.language ?? null,
    message: input.message ?? null,
    quote: JSON.stringify(quote),
    currency: quote.currency,
    total: quote.total,
    deposit: quote.deposit,
    // The payment terms the guest is shown, kept with the booking (lib/bookings.ts).
    ...bookingPaymentTerms(home.terms, quote),
    token_hash: await sha256(token),
    consent_version: input.consentVersion,
    consent_address: input.consentAddress,
    hold_expires_at: new Date(now.getTime() + holdHours * 3_600_000).toISOString(),
    booking_event: newEventId(),
  });
  return booking && { booking: { ...booking, hold_expires_at: new Date(booking.hold_expires_at) }, token };
}

/**
 * The locked path, when the home's rules moved since the stay was read (or a concurrent add of the same guest met the
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
): Promise<Hold & { quote: TaxedQuote }> {
  return transactionForNights(db, async (trx: Trx) => {
    await lockHomeCalendar(trx, listingId);
    const facts = await stayFacts(trx, company, slug, input, now);
    const quote = quoteOf(company, facts, input, now);
    const hold = await holdStay(trx, company, facts, quote, input, causedBy, now);
    // The terms row is locked, so only what it does not guard can have moved between the read and the write: the
    // platform's tax rates (a rate closed or added for the check-in day). Asked again, the stay is priced anew.
    if (!hold) throw new ApiError('conflict', 'The tax rates for these dates changed while the stay was being held: ask again.');
    return { ...hold, quote };
  });
}
