import { sql } from 'kysely';
import { auditCte } from '../../lib/audit';
import { stamp } from '../../lib/clock';
import { type Keyring, openSecret, sealSecret } from '../../lib/crypto-jwe';
import type { Db, Executor } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';
import { eventCtes, newEventId } from '../../lib/events';
import { writeStatement } from '../../lib/write';
import type { RegisteredGuest } from '../../schema/stay/guests';
import type { Warning } from './import-health';

/**
 * Guest registration (issue 37; docs/api-reference.md, "Guest registration"): the stay page's list of guests, sealed
 * with the details keys and bound to the booking (lib/crypto-jwe.ts sealSecret: a list copied to another booking's row
 * does not open), written with its event and audit row in one statement; staff's reads, each audited in its own
 * statement; the day's arrivals and the DET portal's export; the erasure five years after check-out.
 */

/** What the consent on the stay page's form says, by version (the text is guest-texts.ts `consent`). */
export const guestConsentVersion = '2026-11';

/** How long a registration is kept after the check-out day (DET's five years). */
const keptFor = sql`interval '5 years'`;

/**
 * Whether a company's guests must be registered: DET's rule binds holiday homes in Dubai, the company's market
 * (settings `market`, as the advertising permits' rules): elsewhere the stay page shows no form and confirming warns of
 * nothing.
 */
export const registrationRequired = (settings: { market?: string | null }) => settings.market === 'dubai';

/** {@link registrationRequired} of the company of a booking `b`, as a column of a read of `bookings as b`. */
export const registrationRequiredSql = sql<boolean>`coalesce((select c.settings->>'market' = 'dubai'
  from companies c where c.id = b.company_id), false)`;

/** A booking of the stay page, as its registration needs it. */
export type RegisteringBooking = { id: string; reference: string; listing_id: string; guests: number };

/**
 * Registers (or replaces) the guests of a booking, from its stay page: in one statement the bare booking row is
 * locked and checked again (it holds its dates by `now`, has room for the list, its check-out day has not come),
 * the sealed list is written, `booking.guests_registered` (ids only) and an audit row (the count, never the data)
 * with it. False when the booking no longer takes a registration (nothing written).
 */
export async function registerGuests(
  db: Db,
  input: { companyId: string; booking: RegisteringBooking; guests: RegisteredGuest[]; keyring: Keyring | undefined },
  today: string,
  now: Date,
): Promise<boolean> {
  const { companyId, booking, guests } = input;
  const sealed = await sealSecret(input.keyring, JSON.stringify(guests), booking.id);
  const at = now.toISOString();
  const { rows } = await writeStatement(
    [
      sql`target as (
        select id, company_id, check_out from bookings
        where id = ${booking.id}::uuid and company_id = ${companyId}::uuid and guests >= ${guests.length}
          and check_out > ${today}::date and ${openSql(at)}
        for update)`,
      sql`saved as (
        insert into guest_registrations (booking_id, company_id, guests_jwe, guest_count, consent_version, consent_at,
          registered_at, keep_until, erased_at)
        select id, company_id, ${sealed}, ${guests.length}, ${guestConsentVersion}, ${at}::timestamptz, ${at}::timestamptz,
          (check_out + ${keptFor})::date, null
        from target
        on conflict (booking_id) do update set guests_jwe = excluded.guests_jwe, guest_count = excluded.guest_count,
          consent_version = excluded.consent_version, consent_at = excluded.consent_at,
          registered_at = excluded.registered_at, keep_until = excluded.keep_until, erased_at = null, updated_at = ${stamp}
        returning booking_id, company_id, guest_count)`,
      eventCtes(
        'registered',
        newEventId(),
        {
          companyId,
          type: 'booking.guests_registered',
          causedBy: 'website',
          data: { booking_id: booking.id, reference: booking.reference, listing_id: booking.listing_id },
        },
        'saved',
      ),
      auditCte('registration_audit', 'saved', {
        actor: 'website',
        action: 'guest_registration.written',
        subject: 'booking_id',
        columns: ['guest_count'],
      }),
    ],
    sql`select booking_id from saved`,
  ).execute(db);
  return rows.length > 0;
}

/** A booking that holds its dates at `at` (held or confirmed within their windows, or paid), as SQL on `bookings`. */
function openSql(at: string) {
  return sql<boolean>`(status = 'paid'
    or (status = 'held' and hold_expires_at > ${at}::timestamptz)
    or (status = 'confirmed' and (payment_due_at is null or payment_due_at > ${at}::timestamptz)))`;
}

/** Whether a booking read by the stay page takes a registration at `now`: it holds its dates, check-out not come. */
export function registrationOpen(booking: { status: string; check_out: string; lapsed: boolean }, today: string): boolean {
  return booking.status !== 'cancelled' && !booking.lapsed && booking.check_out > today;
}

export type RegistrationState = 'complete' | 'incomplete' | 'missing';

/** A booking's registration state: as many guests as the booking has, fewer, or none (an erased list is none). */
export function registrationState(expected: number, registered: number | null): RegistrationState {
  if (!registered) return 'missing';
  return registered >= expected ? 'complete' : 'incomplete';
}

/** The guests a booking has registered (its list not erased), as a column of a read of `bookings as b`. */
export const registeredGuestsSql = sql<number | null>`(select r.guest_count from guest_registrations r
  where r.booking_id = b.id and r.guests_jwe is not null)`;

/** The warning of a booking whose guests are not all registered: confirming it and the day before arrival. */
export function registrationWarnings(reference: string, expected: number, registered: number | null): Warning[] {
  const state = registrationState(expected, registered);
  if (state === 'complete') return [];
  return [
    {
      code: 'registration_missing',
      message: `The booking ${reference} has ${registered ?? 0} of its ${expected} guests registered: Dubai's DET needs every guest registered on arrival.`,
    },
  ];
}

type ReadRow = {
  id: string;
  reference: string;
  guests: number;
  guests_jwe: string | null;
  guest_count: number | null;
  consent_version: string | null;
  consent_at: Date | null;
  registered_at: Date | null;
  keep_until: string | null;
  erased_at: Date | null;
};

/**
 * A booking's registration as staff read it (404 without the booking): the list opened, and in the same statement the
 * audit row of the read (`personal_data.read`, the booking's reference) when it shows guests.
 */
export async function readRegistration(
  db: Executor,
  companyId: string,
  reference: string,
  read: { actor: string; route: string; keyring: Keyring | undefined },
) {
  const { rows } = await writeStatement(
    [
      sql`shown as (select b.id, b.company_id, b.reference, b.guests, r.guests_jwe, r.guest_count, r.consent_version,
          r.consent_at, r.registered_at, r.keep_until, r.erased_at
        from bookings b left join guest_registrations r on r.booking_id = b.id
        where b.company_id = ${companyId}::uuid and b.reference = ${reference})`,
      sql`with_guests as (select * from shown where guests_jwe is not null)`,
      auditCte('read_audit', 'with_guests', {
        actor: read.actor,
        action: 'personal_data.read',
        subject: 'reference',
        details: { route: read.route },
      }),
    ],
    sql`select * from shown`,
  ).execute(db);
  const row = rows[0] as ReadRow | undefined;
  if (!row) throw new ApiError('not_found', `The booking ${reference} was not found.`);
  const guests = row.guests_jwe ? (JSON.parse(await openSecret(read.keyring, row.guests_jwe, row.id)) as RegisteredGuest[]) : [];
  const iso = (value: Date | null) => (value === null ? null : new Date(value).toISOString());
  return {
    reference: row.reference,
    registration: registrationState(row.guests, row.guests_jwe ? row.guest_count : null),
    guests_expected: row.guests,
    guests_registered: guests.length,
    consent_version: row.consent_version,
    consent_at: iso(row.consent_at),
    registered_at: iso(row.registered_at),
    keep_until: row.keep_until,
    erased_at: iso(row.erased_at),
    guests,
  };
}

/** The bookings arriving on a day that hold their dates at `now`, with their registration's state (no guest data). */
export async function arrivals(db: Executor, companyId: string, arrival: string, now: Date) {
  const at = now.toISOString();
  const rows = await db
    .selectFrom('bookings as b')
    .innerJoin('listings as l', 'l.id', 'b.listing_id')
    .select([
      'b.reference',
      'l.slug_en as listing',
      'b.status',
      'b.check_in',
      'b.check_out',
      'b.guests',
      registeredGuestsSql.as('registered'),
    ])
    .where('b.company_id', '=', companyId)
    .where('b.check_in', '=', arrival)
    .where(sql<boolean>`${openSqlOf('b', at)}`)
    .orderBy('b.reference')
    .execute();
  return rows.map((row) => ({
    reference: row.reference,
    listing: row.listing,
    status: row.status as 'held' | 'confirmed' | 'paid',
    check_in: row.check_in,
    check_out: row.check_out,
    registration: registrationState(row.guests, row.registered),
    guests_expected: row.guests,
    guests_registered: row.registered ?? 0,
  }));
}

/** {@link openSql} of a booking table's alias. */
function openSqlOf(alias: string, at: string) {
  const b = (column: string) => sql.ref(`${alias}.${column}`);
  return sql<boolean>`(${b('status')} = 'paid'
    or (${b('status')} = 'held' and ${b('hold_expires_at')} > ${at}::timestamptz)
    or (${b('status')} = 'confirmed' and (${b('payment_due_at')} is null or ${b('payment_due_at')} > ${at}::timestamptz)))`;
}

/** A registered booking arriving on a day, for the DET export: its home's permit and the sealed list. */
export type ArrivingRegistration = {
  id: string;
  reference: string;
  check_in: string;
  check_out: string;
  title: Record<string, string>;
  permit_number: string | null;
  guests_jwe: string;
};

/**
 * The registered bookings arriving on a day (holding their dates at `now`), with the audit row of the read in the
 * same statement (`personal_data.read`, every reference exported), when there is any.
 */
export async function arrivingRegistrations(
  db: Executor,
  companyId: string,
  arrival: string,
  now: Date,
  read: { actor: string; route: string },
): Promise<ArrivingRegistration[]> {
  const { rows } = await writeStatement(
    [
      sql`exported as (select b.id, b.reference, b.check_in, b.check_out, l.title, l.permit_number, r.guests_jwe
        from bookings b join listings l on l.id = b.listing_id join guest_registrations r on r.booking_id = b.id
        where b.company_id = ${companyId}::uuid and b.check_in = ${arrival}::date and r.guests_jwe is not null
          and ${openSqlOf('b', now.toISOString())})`,
      sql`exported_references as (select ${companyId}::uuid as company_id, ${`det_export:${arrival}`}::text as subject,
          jsonb_agg(reference order by reference) as "references"
        from exported having count(*) > 0)`,
      auditCte('read_audit', 'exported_references', {
        actor: read.actor,
        action: 'personal_data.read',
        subject: 'subject',
        details: { route: read.route },
        columns: ['references'],
      }),
    ],
    sql`select * from exported order by reference`,
  ).execute(db);
  return rows as ArrivingRegistration[];
}

/**
 * Scheduled work: erases the lists kept past their day (the check-out day plus five years, by each company's calendar),
 * each with an audit row, in one statement. The row stays (a registration was made, when, and that it was erased).
 */
export async function eraseDueRegistrations(db: Db, now: Date): Promise<number> {
  const { rows } = await writeStatement(
    [
      sql`erased as (update guest_registrations r set guests_jwe = null, erased_at = ${now.toISOString()}::timestamptz,
          updated_at = ${stamp}
        where r.guests_jwe is not null and r.keep_until < (select (${now.toISOString()}::timestamptz at time zone c.time_zone)::date
          from companies c where c.id = r.company_id)
        returning r.booking_id, r.company_id)`,
      auditCte('erased_audit', 'erased', { actor: 'system', action: 'guest_registration.erased', subject: 'booking_id' }),
    ],
    sql`select count(*)::int as n from erased`,
  ).execute(db);
  return (rows[0] as { n: number }).n;
}

/**
 * Staff erase a registration before its five years: only of a cancelled booking (nobody stayed, so the law keeps
 * nothing); a booking that holds or held its stay keeps its list (409). One statement: the list erased and audited.
 */
export async function eraseRegistration(db: Db, companyId: string, reference: string, now: Date) {
  const { rows } = await writeStatement(
    [
      sql`booking as (select id, status from bookings where company_id = ${companyId}::uuid and reference = ${reference})`,
      sql`erased as (update guest_registrations set guests_jwe = null, erased_at = ${now.toISOString()}::timestamptz,
          updated_at = ${stamp}
        where booking_id = (select id from booking) and guests_jwe is not null
          and (select status from booking) = 'cancelled'
        returning booking_id, company_id)`,
      auditCte('erased_audit', 'erased', { actor: 'admin', action: 'guest_registration.erased', subject: 'booking_id' }),
    ],
    sql`select b.status, (select count(*)::int from erased) as erased from booking b`,
  ).execute(db);
  const row = rows[0] as { status: string; erased: number } | undefined;
  if (!row) throw new ApiError('not_found', `The booking ${reference} was not found.`);
  if (row.status !== 'cancelled') {
    throw new ApiError(
      'conflict',
      `The booking ${reference} is ${row.status}: its guest registration is kept five years after check-out, as Dubai's DET requires; only a cancelled booking's may be erased sooner.`,
    );
  }
  return { reference, erased: row.erased > 0 };
}
