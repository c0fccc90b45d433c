import { beforeAll, describe, expect, it } from 'vitest';
import {
  adminBooking,
  bookingBody,
  bookingEvents,
  bookingRow,
  codes,
  day,
  newHome,
  origin,
  postBooking,
  publishableKey,
  quote,
  setup,
  stays,
  uniqueEmail,
  villa,
  useStay,
} from './support';
import { createKey } from '../support/world';

const ctx = useStay();
let home: string;

beforeAll(async () => {
  home = await newHome(ctx, {
    price: '250.00',
    max_guests: 4,
    terms: { min_nights: 2, cleaning_fee: '100.00', tourism_fee_per_bedroom_night: '10.00', deposit: '500.00' },
  });
});

/** Fresh nights of `home` for each booking of this file. */
const nights = stays(20);

const stored = async () => {
  const db = ctx.api.db;
  const count = async (table: 'bookings' | 'contacts' | 'events') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .where('company_id', '=', ctx.company.id)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { bookings: await count('bookings'), contacts: await count('contacts'), events: await count('events') };
};

describe('a booking request', () => {
  it('answers 201: held, a reference, the stay page on the company’s host and the quote GET /quote gives', async () => {
    const [checkIn, checkOut] = nights();
    const priced = await quote(ctx, home, checkIn, checkOut, 3);
    const before = Date.now();
    const res = await postBooking(ctx, bookingBody(home, checkIn, checkOut, { guests: 3 }));
    const after = Date.now();
    expect(res.status, res.text).toBe(201);
    expect(res.json.reference).toMatch(/^B-[0-9A-Z]{10}$/);
    expect(res.json).toMatchObject({ status: 'held', listing: home, check_in: checkIn, check_out: checkOut, guests: 3 });
    expect(res.json.stay_url).toMatch(new RegExp(`^http://${ctx.company.host.replace(/\./g, '\\.')}/stay/[A-Za-z0-9]{32}$`));
    expect(res.json.quote).toEqual(priced.json);
    expect(res.json.quote.total).toBe('910.00'); // 3 × 250 + 100 + 2 bedrooms × 3 nights × 10
    const expires = Date.parse(res.json.hold_expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 24 * 3_600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(after + 24 * 3_600_000 + 1000);
    const row = await bookingRow(ctx, res.json.reference);
    expect(row).toMatchObject({ status: 'held', total: '910.00', deposit: '500.00', currency: 'AED', caused_by: 'website' });
    expect(new Date(row.hold_expires_at).toISOString()).toBe(res.json.hold_expires_at);
  });

  it('records booking.requested with exactly {booking_id, reference, listing_id}, caused by website', async () => {
    const [checkIn, checkOut] = nights();
    const res = await postBooking(ctx, bookingBody(home, checkIn, checkOut));
    const row = await bookingRow(ctx, res.json.reference);
    const events = await bookingEvents(ctx, res.json.reference);
    expect(events.map((e) => [e.type, e.caused_by, e.data])).toEqual([
      ['booking.requested', 'website', { booking_id: row.id, reference: res.json.reference, listing_id: row.listing_id }],
    ]);
  });

  it('adds the guest as a contact (contact.created), and matches them on a second request', async () => {
    const email = uniqueEmail();
    const [a1, a2] = nights();
    const first = await postBooking(ctx, bookingBody(home, a1, a2, { email, name: 'Omar Guest' }));
    const [b1, b2] = nights();
    const second = await postBooking(ctx, bookingBody(home, b1, b2, { email: email.toUpperCase() }));
    const person = (await adminBooking(ctx, first.json.reference)).json.person as string;
    expect(person).toMatch(/^P-/);
    expect((await adminBooking(ctx, second.json.reference)).json.person).toBe(person);
    const contact = await ctx.api.db.selectFrom('contacts').selectAll().where('reference', '=', person).executeTakeFirstOrThrow();
    expect(contact).toMatchObject({ name: 'Omar Guest', email });
    const created = await ctx.api.db
      .selectFrom('events')
      .select(['caused_by', 'data'])
      .where('company_id', '=', ctx.company.id)
      .where('type', '=', 'contact.created')
      .execute();
    expect(created.filter((e) => e.data.reference === person)).toEqual([{ caused_by: 'website', data: { reference: person } }]);
  });

  it('keeps the consent: version, time and the visitor’s address', async () => {
    const [checkIn, checkOut] = nights();
    const before = Date.now();
    const res = await postBooking(ctx, bookingBody(home, checkIn, checkOut, { consent_version: 'privacy-7' }), {
      clientAddress: '203.0.113.7',
    });
    const after = Date.now();
    const { consent } = (await adminBooking(ctx, res.json.reference)).json;
    expect(consent.version).toBe('privacy-7');
    expect(consent.address).toBe('203.0.113.7');
    expect(Date.parse(consent.at)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(consent.at)).toBeLessThanOrEqual(after + 1000);
  });

  it('holds the dates for the company’s booking_hold_hours', async () => {
    const other = await setup({ api: ctx.api, settings: { booking_hold_hours: 6 } });
    const before = Date.now();
    const res = await postBooking(other, bookingBody(villa, day(30), day(34)));
    expect(res.status, res.text).toBe(201);
    const expires = Date.parse(res.json.hold_expires_at);
    expect(expires).toBeGreaterThanOrEqual(before + 6 * 3_600_000 - 1000);
    expect(expires).toBeLessThanOrEqual(Date.now() + 6 * 3_600_000 + 1000);
  });

  it('books a long stay of a home at the highest prices: a total beyond any one price is stored exactly', async () => {
    const top = '999999999999.99'; // the largest price or fee accepted
    const dear = await newHome(ctx, {
      price: top,
      bedrooms: 2,
      terms: { max_nights: 100, cleaning_fee: top, tourism_fee_per_bedroom_night: top, deposit: top },
    });
    const res = await postBooking(ctx, bookingBody(dear, day(20), day(120)));
    expect(res.status, res.text).toBe(201);
    // 100 nights + cleaning + 2 bedrooms × 30 nights of tourism fee = 161 × top.
    expect(res.json.quote.total).toBe('160999999999998.39');
    expect(await bookingRow(ctx, res.json.reference)).toMatchObject({ total: '160999999999998.39', deposit: top });
    const read = await adminBooking(ctx, res.json.reference);
    expect(read.json).toMatchObject({ total: '160999999999998.39', deposit: top });
  });

  it('answers 404 for a home that takes no bookings, recording nothing', async () => {
    const before = await stored();
    for (const listing of ['marina-gate-2br-sea-view', 'al-reem-2br-holiday-home', 'no-such-home']) {
      const res = await postBooking(ctx, bookingBody(listing, day(30), day(34)));
      expect(res.status, listing).toBe(404);
    }
    const off = await setup({ api: ctx.api, settings: { bookings_enabled: false } });
    expect((await postBooking(off, bookingBody(villa, day(30), day(34)))).status).toBe(404);
    expect(await stored()).toEqual(before);
  });
});

describe('the form rules', () => {
  it('refuses without a key, with a server key, with a key not allowed bookings, and from another origin (403)', async () => {
    const body = () => bookingBody(home, day(200), day(203));
    const server = await createKey(ctx.api, ctx.company.id, { scopes: ['write:leads'] });
    const enquiriesOnly = await publishableKey(ctx.api, ctx.company.id, ['enquiry']);
    const before = await stored();
    const cases = [
      [{ key: null }, 'key_required'],
      [{ key: null, headers: { Authorization: `Bearer ${server.secret}` } }, 'key_wrong_kind'],
      [{ key: null, headers: { Authorization: `Bearer ${ctx.pk}` } }, 'key_wrong_header'],
      [{ key: enquiriesOnly }, 'lead_type_not_allowed'],
      [{ origin: 'https://evil.example.net' }, 'origin_not_allowed'],
      [{ origin: null }, 'origin_not_allowed'],
      [{ origin: 'http://localhost:3000' }, 'origin_not_allowed'],
    ] as const;
    for (const [options, code] of cases) {
      const res = await postBooking(ctx, body(), options);
      expect(res.status, code).toBe(403);
      expect(res.json.code).toBe(code);
    }
    expect(await stored()).toEqual(before);
    expect((await postBooking(ctx, body())).status).toBe(201);
  });

  it('refuses a request without the challenge (400), and one whose consent is not true (400)', async () => {
    const before = await stored();
    const { challenge: _c, ...without } = bookingBody(home, day(210), day(213));
    const res = await postBooking(ctx, without);
    expect(res.status).toBe(400);
    expect(res.json.errors.map((e: { path: string }) => e.path)).toEqual(['challenge']);
    for (const consent of [false, undefined, 'true']) {
      const refused = await postBooking(ctx, bookingBody(home, day(210), day(213), { consent }));
      expect(refused.status, String(consent)).toBe(400);
      expect(refused.json.errors.map((e: { path: string }) => e.path)).toEqual(['consent']);
    }
    expect(await stored()).toEqual(before);
  });

  it('answers a filled hidden field like a success and stores nothing', async () => {
    const before = await stored();
    const res = await postBooking(ctx, bookingBody(home, day(220), day(223), { website: 'https://spam.example' }));
    expect(res.status).toBe(201);
    expect(res.json.reference).toMatch(/^B-[0-9A-Z]{10}$/);
    expect(res.json.status).toBe('held');
    expect(res.json.quote.total).toEqual(expect.any(String));
    expect(await stored()).toEqual(before);
    // raw: the stay page is an HTML page outside the API's document
    const page = await ctx.api.request(new URL(res.json.stay_url).pathname, { host: ctx.company.host });
    expect(page.status).toBe(404);
  });

  it.each([
    'card_number',
    'passport_no',
    'cvv',
    'emirates_id',
    'CardNumber',
    'iban',
    'creditCardNo',
    'passportId',
    'Kreditkarte',
    'numéroCarte',
  ])('refuses the payment or identity field %s with 400 forbidden_key at its path', async (key) => {
    const before = await stored();
    const res = await postBooking(ctx, bookingBody(home, day(230), day(233), { [key]: '4111111111111111' }));
    expect(res.status, res.text).toBe(400);
    expect(res.json.errors).toEqual([{ path: key, code: 'forbidden_key', message: expect.any(String) }]);
    expect(await stored()).toEqual(before);
  });

  it('refuses a card number in the message (card_number) but not other digits, and unknown fields (unknown_field)', async () => {
    const card = await postBooking(ctx, bookingBody(home, day(240), day(243), { message: 'Charge 4111 1111 1111 1111 please' }));
    expect(card.status).toBe(400);
    expect(card.json.errors).toEqual([{ path: 'message', code: 'card_number', message: expect.any(String) }]);
    const unknown = await postBooking(ctx, bookingBody(home, day(240), day(243), { pets: 2 }));
    expect(unknown.status).toBe(400);
    expect(unknown.json.errors).toEqual([{ path: 'pets', code: 'unknown_field', message: expect.any(String) }]);
    const innocent = await postBooking(
      ctx,
      bookingBody(home, day(240), day(243), { message: 'Flight 4111 1111 1111 1112 lands at 3' }),
    );
    expect(innocent.status, innocent.text).toBe(201);
  });

  it('refuses dates the home cannot take with the quote’s code, storing nothing', async () => {
    const taken = nights();
    await postBooking(ctx, bookingBody(home, taken[0], taken[1]));
    const before = await stored();
    for (const [checkIn, checkOut, guests, code] of [
      [day(250), day(251), 2, 'min_nights'],
      [day(250), day(400), 2, 'max_nights'],
      [day(0), day(3), 2, 'notice'],
      [day(370), day(373), 2, 'advance'],
      [taken[0], taken[1], 2, 'unavailable'],
      [day(250), day(253), 5, 'guests'],
      [day(253), day(250), 2, 'invalid_request'],
    ] as const) {
      const priced = await quote(ctx, home, checkIn, checkOut, guests);
      const res = await postBooking(ctx, bookingBody(home, checkIn, checkOut, { guests }));
      expect(res.status, code).toBe(400);
      expect(res.json.code).toBe(code);
      expect(priced.json.code).toBe(code);
      expect(codes(res)).toEqual(codes(priced));
    }
    expect(await stored()).toEqual(before);
  });

  it('grants the CORS preflight to the key’s origin only', async () => {
    // raw: a CORS preflight (OPTIONS), which the typed client does not send
    const preflight = (from: string) =>
      ctx.api.request('/api/v1/bookings', {
        method: 'OPTIONS',
        host: ctx.company.host,
        headers: {
          Origin: from,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'x-api-key, content-type',
        },
      });
    const granted = await preflight(origin);
    expect(granted.status).toBe(204);
    expect(granted.headers.get('Access-Control-Allow-Origin')).toBe(origin);
    expect(granted.headers.get('Access-Control-Allow-Methods')).toContain('POST');
    expect(granted.headers.get('Access-Control-Allow-Headers')?.toLowerCase()).toContain('x-api-key');
    const refused = await preflight('https://evil.example.net');
    expect(refused.headers.get('Access-Control-Allow-Origin')).toBeNull();
    const res = await postBooking(ctx, bookingBody(home, ...nights()));
    expect(res.headers.get('Access-Control-Allow-Origin')).toBe(origin);
  });
});
