import { sql } from 'kysely';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { eraseDueRegistrations } from '../../functions/stay/guests';
import { adminOf } from '../support/world';
import { book, bookingEvents, day, newHome, step, stays, useStay } from './support';

/**
 * Guest registration (issue 37): the stay page's form for every guest, its checks (a document number in the wrong
 * field, a date of birth in the future, more guests than the booking's: 400 at the field, nothing written), the sealed
 * list and its event, staff's audited reads, the arrivals list and DET's CSV, the confirm's warning, the erasure five
 * years after check-out, and the guest data found nowhere else.
 */
// DET's rule binds holiday homes in Dubai: the company's market (settings `market`).
const ctx = useStay({ settings: { market: 'dubai' } });
let home: string;
const nights = stays(40);

beforeAll(async () => {
  home = await newHome(ctx, { price: '300.00', bedrooms: 2, max_guests: 6 });
});

const logged: string[] = [];
afterEach(() => vi.restoreAllMocks());

/** Keeps every console line written during a test, to find the guest data nowhere in them. */
function captureLogs() {
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => {
      logged.push(
        args
          .map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : typeof a === 'string' ? a : JSON.stringify(a)))
          .join(' '),
      );
    });
  }
}

/** Three guests, one of each document (an Emirates ID in its usual form, written with spaces here). */
const threeGuests = [
  {
    name: 'Mariam Al Zarooni',
    nationality: 'AE',
    document_type: 'emirates_id',
    document_number: '784 1990 1234567 1',
    birth_date: '1990-03-14',
  },
  {
    name: 'Thomas Whitcombe',
    nationality: 'GB',
    document_type: 'passport',
    document_number: '533401872',
    birth_date: '1985-11-02',
  },
  { name: 'Noura Al Habsi', nationality: 'OM', document_type: 'gcc_id', document_number: '12345678', birth_date: '2012-07-30' },
];

function formOf(guests: Array<Record<string, string>>, consent = true): string {
  const form = new URLSearchParams();
  guests.forEach((guest, index) => {
    for (const [field, value] of Object.entries(guest)) form.set(`guests[${index}].${field}`, value);
  });
  if (consent) form.set('consent', 'yes');
  return form.toString();
}

/** POST the stay page's registration form as the page sends it (same origin). */
// raw: the stay page's form is an HTML page's action outside the API's documents
const postGuests = (stayUrl: string, body: string, headers: Record<string, string> = { 'Sec-Fetch-Site': 'same-origin' }) =>
  ctx.api.request(`${new URL(stayUrl).pathname}/guests`, {
    method: 'POST',
    host: new URL(stayUrl).host,
    body,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
  });

// raw: the stay page is an HTML page outside the API's documents
const openPage = (stayUrl: string) => ctx.api.request(new URL(stayUrl).pathname, { host: new URL(stayUrl).host });

// raw: the guest registration's admin routes are newer than the checked-in typed clients (regenerated at the merge)
const adminRead = (path: string, method = 'GET') => ctx.api.admin(`/companies/${ctx.company.id}${path}`, { method });

const registrationRow = (reference: string) =>
  ctx.api.db
    .selectFrom('guest_registrations as r')
    .innerJoin('bookings as b', 'b.id', 'r.booking_id')
    .select(['r.guests_jwe', 'r.guest_count', 'r.keep_until', 'r.erased_at', 'r.consent_version', 'b.check_out'])
    .where('b.reference', '=', reference)
    .executeTakeFirst();

const secrets = threeGuests.flatMap((g) => [g.name, g.document_number.replaceAll(' ', ''), '1234567', g.birth_date]);

describe('the stay page’s guest registration', () => {
  it('asks for every guest of the booking and registers three co-guests: sealed, with its event (ids only)', async () => {
    captureLogs();
    const booking = await book(ctx, home, ...nights(), { guests: 4 });
    const page = await openPage(booking.stay_url);
    expect(page.status).toBe(200);
    expect(page.text.match(/<fieldset data-guest=/g)).toHaveLength(4);
    expect(page.text).toContain('data-registered="0"');
    expect(page.text).toContain(`action="${new URL(booking.stay_url).pathname}/guests"`);

    const res = await postGuests(booking.stay_url, formOf(threeGuests));
    expect(res.status, res.text).toBe(303);
    expect(res.headers.get('Location')).toBe(`${new URL(booking.stay_url).pathname}#registration`);
    const after = await openPage(booking.stay_url);
    expect(after.text).toContain('data-registered="3"');
    expect(after.text).toContain('Registered: 3 of 4 guests.');
    for (const secret of secrets) expect(after.text).not.toContain(secret);

    const row = await registrationRow(booking.reference);
    expect(row?.guest_count).toBe(3);
    expect(row?.consent_version).toBe('2026-11');
    // Kept five years after the check-out day.
    const checkOut = String(row?.check_out);
    expect(row?.keep_until).toBe(`${Number(checkOut.slice(0, 4)) + 5}${checkOut.slice(4)}`);
    for (const secret of secrets) expect(row?.guests_jwe).not.toContain(secret);

    const events = await bookingEvents(ctx, booking.reference);
    const registered = events.filter((e) => e.type === 'booking.guests_registered');
    expect(registered).toHaveLength(1);
    expect(Object.keys(registered[0]?.data as object).sort()).toEqual(['booking_id', 'listing_id', 'reference']);
    expect(registered[0]?.caused_by).toBe('website');

    // Staff read the list: every guest as sent (the Emirates ID in its written form), the read audited.
    const read = await adminRead(`/bookings/${booking.reference}/guests`);
    expect(read.status, read.text).toBe(200);
    expect(read.json).toMatchObject({ registration: 'incomplete', guests_expected: 4, guests_registered: 3 });
    expect(read.json.guests).toEqual([
      { ...threeGuests[0], document_number: '784-1990-1234567-1' },
      threeGuests[1],
      threeGuests[2],
    ]);
    const audits = await ctx.api.db
      .selectFrom('audit_log')
      .selectAll()
      .where('company_id', '=', ctx.company.id)
      .where((eb) =>
        eb.or([eb('subject', '=', booking.reference), eb('subject', 'in', [String(registered[0]?.data.booking_id)])]),
      )
      .execute();
    expect(audits.map((a) => a.action).sort()).toEqual(['guest_registration.written', 'personal_data.read']);

    // The guest data is nowhere else: events, the audit log, the admin's booking, the logs.
    const everywhere = JSON.stringify([
      await ctx.api.db.selectFrom('events').select(['data']).where('company_id', '=', ctx.company.id).execute(),
      await ctx.api.db.selectFrom('audit_log').select(['details', 'subject']).where('company_id', '=', ctx.company.id).execute(),
      (
        await adminOf(ctx.api).GET('/admin/v1/companies/{company_id}/bookings/{reference}', {
          params: { path: { company_id: ctx.company.id, reference: booking.reference } },
        })
      ).data,
      logged,
    ]);
    for (const secret of secrets) expect(everywhere).not.toContain(secret);
  });

  it('is not asked by a company outside Dubai: no form, no form taken, no warning on confirm', async () => {
    await ctx.api.db
      .updateTable('companies')
      .set({ settings: sql`settings - 'market'` })
      .where('id', '=', ctx.company.id)
      .execute();
    try {
      const booking = await book(ctx, home, ...nights(), { guests: 2 });
      const page = await openPage(booking.stay_url);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('data-registration');
      const refused = await postGuests(booking.stay_url, formOf([threeGuests[1]] as never));
      expect(refused.status).toBe(409);
      expect(await registrationRow(booking.reference)).toBeUndefined();
      const confirmed = await step(ctx, booking.reference, 'confirm');
      expect(confirmed.json.warnings).toEqual([]);
    } finally {
      await ctx.api.db
        .updateTable('companies')
        .set({ settings: sql`settings || '{"market":"dubai"}'::jsonb` })
        .where('id', '=', ctx.company.id)
        .execute();
    }
  });

  it('shows the form in Arabic, right to left, for a guest who booked in Arabic', async () => {
    const booking = await book(ctx, home, ...nights(), { guests: 3, language: 'ar' });
    const page = await openPage(booking.stay_url);
    expect(page.text).toContain('<html lang="ar" dir="rtl">');
    expect(page.text).toContain('سجّل ضيوفك');
    expect(page.text).toContain('>الإمارات العربية المتحدة</option>');
    expect(page.text.match(/<fieldset data-guest=/g)).toHaveLength(3);
  });
});

describe('bad registrations: 400 at the field, nothing written', () => {
  const refusals: Array<[string, Array<Record<string, string>>, boolean, string, string]> = [
    [
      'an Emirates ID number given as a passport',
      [{ ...threeGuests[1], document_number: '784-1990-1234567-1' }] as never,
      true,
      'guests[0].document_number',
      'document_type_mismatch',
    ],
    [
      'a passport number given as an Emirates ID',
      [threeGuests[0], { ...threeGuests[1], document_type: 'emirates_id' }] as never,
      true,
      'guests[1].document_number',
      'document_type_mismatch',
    ],
    [
      'a date of birth in the future',
      [{ ...threeGuests[1], birth_date: day(30) }] as never,
      true,
      'guests[0].birth_date',
      'birth_date_in_future',
    ],
    ['more guests than the booking’s', [...threeGuests, threeGuests[0]] as never, true, 'guests', 'too_many_guests'],
    ['no consent', [threeGuests[1]] as never, false, 'consent', 'consent_required'],
    ['no nationality', [{ ...threeGuests[1], nationality: 'XX' }] as never, true, 'guests[0].nationality', 'invalid_nationality'],
  ];

  it.each(refusals)('%s', async (_, guests, consent, field, code) => {
    const booking = await book(ctx, home, ...nights(), { guests: 3 });
    // A first list, which the refused one must leave as it is.
    expect((await postGuests(booking.stay_url, formOf([threeGuests[2]] as never))).status).toBe(303);
    const before = await registrationRow(booking.reference);
    const eventsBefore = (await bookingEvents(ctx, booking.reference)).length;
    const res = await postGuests(booking.stay_url, formOf(guests, consent));
    expect(res.status, res.text).toBe(400);
    expect(res.headers.get('Content-Type')).toMatch(/^text\/html/);
    expect(res.text).toContain(`data-field="${field}" data-problem="${code}"`);
    // The form comes back with what was sent.
    expect(res.text).toContain(`value="${guests[0]?.name}"`);
    expect(await registrationRow(booking.reference)).toEqual(before);
    expect((await bookingEvents(ctx, booking.reference)).length).toBe(eventsBefore);
  });

  it('refuses a form sent from another site, and a cancelled booking’s', async () => {
    const booking = await book(ctx, home, ...nights(), { guests: 2 });
    const crossSite = await postGuests(booking.stay_url, formOf([threeGuests[1]] as never), { 'Sec-Fetch-Site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect(await registrationRow(booking.reference)).toBeUndefined();
    await step(ctx, booking.reference, 'cancel');
    const closed = await postGuests(booking.stay_url, formOf([threeGuests[1]] as never));
    expect(closed.status).toBe(409);
    expect(closed.text).toContain('data-problem="registration_closed"');
    expect(await registrationRow(booking.reference)).toBeUndefined();
  });
});

describe('staff', () => {
  it('are warned on confirm while guests are missing, and not once all are registered', async () => {
    const missing = await book(ctx, home, ...nights(), { guests: 2 });
    const confirmed = await step(ctx, missing.reference, 'confirm');
    expect(confirmed.status).toBe(200);
    expect(confirmed.json.warnings.map((w: { code: string }) => w.code)).toContain('registration_missing');
    const complete = await book(ctx, home, ...nights(), { guests: 2 });
    expect((await postGuests(complete.stay_url, formOf(threeGuests.slice(0, 2) as never))).status).toBe(303);
    const clean = await step(ctx, complete.reference, 'confirm');
    expect(clean.json.warnings.map((w: { code: string }) => w.code)).not.toContain('registration_missing');
  });

  it('list the day’s arrivals by registration and export the registered guests for the DET portal', async () => {
    const [checkIn, checkOut] = nights();
    const registered = await book(ctx, home, checkIn, checkOut, { guests: 3 });
    expect((await postGuests(registered.stay_url, formOf(threeGuests as never))).status).toBe(303);
    const other = await newHome(ctx, { price: '200.00', max_guests: 4 });
    const missing = await book(ctx, other, checkIn, checkOut, { guests: 2 });

    const all = await adminRead(`/arrivals?arrival=${checkIn}`);
    expect(all.status, all.text).toBe(200);
    const state = Object.fromEntries(
      all.json.results.map((a: { reference: string; registration: string }) => [a.reference, a.registration]),
    );
    expect(state).toEqual({ [registered.reference]: 'complete', [missing.reference]: 'missing' });
    const chase = await adminRead(`/arrivals?arrival=${checkIn}&registration=not_complete`);
    expect(chase.json.results.map((a: { reference: string }) => a.reference)).toEqual([missing.reference]);
    for (const secret of secrets) expect(all.text).not.toContain(secret);

    const csv = await adminRead(`/arrivals/det.csv?arrival=${checkIn}`);
    expect(csv.status, csv.text).toBe(200);
    expect(csv.headers.get('Content-Type')).toBe('text/csv; charset=utf-8');
    const lines = csv.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'booking_reference,permit_number,property,check_in,check_out,guest_no,full_name,nationality,nationality_name,document_type,document_number,date_of_birth',
    );
    expect(lines).toHaveLength(1 + threeGuests.length);
    expect(lines[1]).toContain(`${registered.reference},`);
    expect(lines[1]).toContain(',Mariam Al Zarooni,AE,United Arab Emirates,Emirates ID,784-1990-1234567-1,1990-03-14');
    expect(lines[2]).toContain(',2,Thomas Whitcombe,GB,United Kingdom,Passport,533401872,1985-11-02');
    expect(lines[3]).toContain(',3,Noura Al Habsi,OM,Oman,GCC ID,12345678,2012-07-30');
    const exportAudit = await ctx.api.db
      .selectFrom('audit_log')
      .selectAll()
      .where('company_id', '=', ctx.company.id)
      .where('subject', '=', `det_export:${checkIn}`)
      .execute();
    expect(exportAudit).toHaveLength(1);
    expect(exportAudit[0]?.details).toMatchObject({ references: [registered.reference] });
  });

  it('erase a cancelled booking’s registration early, never one that holds its stay', async () => {
    const booking = await book(ctx, home, ...nights(), { guests: 1 });
    expect((await postGuests(booking.stay_url, formOf([threeGuests[1]] as never))).status).toBe(303);
    const kept = await adminRead(`/bookings/${booking.reference}/guests`, 'DELETE');
    expect(kept.status, kept.text).toBe(409);
    expect((await registrationRow(booking.reference))?.guests_jwe).not.toBeNull();
    await step(ctx, booking.reference, 'cancel');
    const erased = await adminRead(`/bookings/${booking.reference}/guests`, 'DELETE');
    expect(erased.status, erased.text).toBe(200);
    expect(erased.json).toEqual({ reference: booking.reference, erased: true });
    const row = await registrationRow(booking.reference);
    expect(row?.guests_jwe).toBeNull();
    expect(row?.erased_at).not.toBeNull();
    expect((await adminRead(`/bookings/${booking.reference}/guests`)).json).toMatchObject({
      registration: 'missing',
      guests: [],
    });
  });

  it('keep a registration when the CRM erases the person, and scheduled work erases it five years after check-out', async () => {
    const booking = await book(ctx, home, ...nights(), { guests: 1 });
    expect((await postGuests(booking.stay_url, formOf([threeGuests[1]] as never))).status).toBe(303);
    const shown = await adminOf(ctx.api).GET('/admin/v1/companies/{company_id}/bookings/{reference}', {
      params: { path: { company_id: ctx.company.id, reference: booking.reference } },
    });
    const person = String(shown.data?.person);
    const erasure = await adminOf(ctx.api).POST('/admin/v1/companies/{company_id}/contacts/{reference}/erase', {
      params: { path: { company_id: ctx.company.id, reference: person } },
    });
    expect(erasure.response.status).toBe(200);
    expect((await adminRead(`/bookings/${booking.reference}/guests`)).json.guests).toEqual([threeGuests[1]]);

    const row = await registrationRow(booking.reference);
    const keepUntil = String(row?.keep_until);
    // On its last day it is kept; two days later (past the day in every time zone) it is erased, with an audit row.
    await eraseDueRegistrations(ctx.api.db, new Date(`${keepUntil}T12:00:00Z`));
    expect((await registrationRow(booking.reference))?.guests_jwe).not.toBeNull();
    expect(
      await eraseDueRegistrations(ctx.api.db, new Date(Date.parse(`${keepUntil}T12:00:00Z`) + 2 * 864e5)),
    ).toBeGreaterThanOrEqual(1);
    const erased = await registrationRow(booking.reference);
    expect(erased?.guests_jwe).toBeNull();
    const audit = await sql<{ n: number }>`select count(*)::int as n from audit_log
      where action = 'guest_registration.erased' and actor = 'system' and subject = (
        select id::text from bookings where reference = ${booking.reference})`.execute(ctx.api.db);
    expect(audit.rows[0]?.n).toBe(1);
  });
});
