import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey, demoCompany } from '../support/world';
import {
  availability,
  book,
  bookingEvents,
  bookingRow,
  countBookings,
  day,
  newHome,
  plusDays,
  quote,
  stays,
  uniqueEmail,
  useStay,
  weekday,
} from './support';

/**
 * Reservations for integrations (issue 37; docs/api-reference.md, "Reservations for integrations"): a channel manager's
 * server key reads bookings (`read:bookings`), confirms, cancels and changes them as staff do and records the bookings
 * it took elsewhere (`write:bookings`), by the one calendar rule; every answer's guest data is audited.
 */

const ctx = useStay();
let home: string;
let reader: { secret: string; prefix: string };
let writer: { secret: string; prefix: string };
let writeOnly: { secret: string; prefix: string };
const nights = stays(20);

type Options = { method?: string; body?: unknown };
// raw: the typed clients know these operations once the merger regenerates them (clients/ is not regenerated here)
const call = (key: string | undefined, path: string, o: Options = {}) =>
  ctx.api.request(`/api/v1${path}`, { host: ctx.company.host, key, ...o });
const read = (path: string) => call(reader.secret, path);
const write = (path: string, o: Options = {}) => call(writer.secret, path, { method: 'POST', ...o });

const channelBody = (checkIn: string, checkOut: string, extra: Record<string, unknown> = {}) => ({
  channel: 'airbnb',
  channel_reference: `HM${Math.random().toString(36).slice(2, 12).toUpperCase()}`,
  listing: home,
  check_in: checkIn,
  check_out: checkOut,
  guests: 2,
  name: 'Omar Channel',
  email: uniqueEmail(),
  ...extra,
});

/** The audit rows of personal-data reads by a key, newest last. */
async function readAudits(prefix: string) {
  const rows = await ctx.api.db
    .selectFrom('audit_log')
    .select(['actor', 'action', 'details'])
    .where('company_id', '=', ctx.company.id)
    .where('action', '=', 'personal_data.read')
    .where('actor', '=', `api:${prefix}`)
    .orderBy('id')
    .execute();
  return rows.map((row) => (typeof row.details === 'string' ? JSON.parse(row.details) : row.details));
}

/** What a write must leave as it was when refused: the booking row and the company's events. */
async function snapshot(reference: string) {
  const events = await ctx.api.db
    .selectFrom('events')
    .select(sql<number>`count(*)::int`.as('n'))
    .where('company_id', '=', ctx.company.id)
    .executeTakeFirstOrThrow();
  const { updated_at, ...row } = await bookingRow(ctx, reference);
  return { row: { ...row, updated_at: String(updated_at) }, events: events.n };
}

beforeAll(async () => {
  home = await newHome(ctx, { price: '200.00', terms: { payment_window_hours: 5, cleaning_fee: '50', min_nights: 2 } });
  reader = await createKey(ctx.api, ctx.company.id, { scopes: ['read:bookings'] });
  writer = await createKey(ctx.api, ctx.company.id, { scopes: ['read:bookings', 'write:bookings'] });
  writeOnly = await createKey(ctx.api, ctx.company.id, { scopes: ['write:bookings'] });
});

describe('scopes', () => {
  it('reads with read:bookings, writes only with write:bookings; no key, a publishable key and other scopes refused', async () => {
    const { reference } = await book(ctx, home, ...nights());
    expect((await read(`/bookings/${reference}`)).status).toBe(200);
    const before = await snapshot(reference);
    const denied = await call(reader.secret, `/bookings/${reference}/confirm`, { method: 'POST' });
    expect([denied.status, denied.json.code]).toEqual([403, 'scope_missing']);
    expect((await call(writeOnly.secret, `/bookings/${reference}`)).json.code).toBe('scope_missing');
    expect((await call(undefined, '/bookings')).json.code).toBe('key_required');
    const leads = await createKey(ctx.api, ctx.company.id, { scopes: ['read:leads', 'write:leads'] });
    expect((await call(leads.secret, '/bookings')).json.code).toBe('scope_missing');
    const pk = await ctx.api.request('/api/v1/bookings', { host: ctx.company.host, headers: { 'X-Api-Key': ctx.pk } });
    expect([pk.status, pk.json.code]).toEqual([403, 'key_wrong_kind']);
    expect(await snapshot(reference)).toEqual(before);
  });

  it('never shows or moves another company’s booking (404), nor lists it', async () => {
    const { reference } = await book(ctx, home, ...nights());
    const other = await demoCompany(ctx.api, { bookings_enabled: true }, { environment: 'development' });
    const key = await createKey(ctx.api, other.id, { scopes: ['read:bookings', 'write:bookings'] });
    const on = (path: string, method = 'GET', body?: unknown) =>
      ctx.api.request(`/api/v1${path}`, { host: other.host, key: key.secret, method, body });
    expect((await on(`/bookings/${reference}`)).status).toBe(404);
    expect((await on(`/bookings/${reference}/cancel`, 'POST')).status).toBe(404);
    expect((await on(`/bookings/${reference}`, 'PATCH', { guests: 3 })).status).toBe(404);
    expect((await on('/bookings')).json.results).toEqual([]);
    // Its key on this company's host: refused before anything is read.
    const crossed = await ctx.api.request(`/api/v1/bookings/${reference}`, { host: ctx.company.host, key: key.secret });
    expect([crossed.status, crossed.json.code]).toEqual([403, 'key_wrong_company']);
    expect((await bookingRow(ctx, reference)).status).toBe('held');
  });
});

describe('reads', () => {
  it('lists by updated_since in keyset pages, by status, home and arrival; each page audited', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const own = await newHome(ctx);
    const made = [];
    for (const offset of [30, 33, 36]) made.push(await book(ctx, own, day(offset), day(offset + 2)));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?listing=${own}&updated_since=${encodeURIComponent(since)}&page_size=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page = await read(`/bookings${query}`);
      expect(page.status, page.text).toBe(200);
      expect(page.json.results.length).toBeLessThanOrEqual(1);
      seen.push(...page.json.results.map((b: { reference: string }) => b.reference));
      cursor = page.json.next_cursor;
    } while (cursor);
    expect([...seen].sort()).toEqual(made.map((b) => b.reference).sort());
    const audits = await readAudits(reader.prefix);
    expect(audits.slice(-3).map((d) => d.references)).toEqual(seen.map((r) => [r]));
    expect(audits.at(-1).route).toBe('GET /api/v1/bookings');

    const shown = await read(`/bookings/${made[1]?.reference}`);
    expect(shown.json).toMatchObject({ reference: made[1]?.reference, status: 'held', listing: own, channel: null });
    expect(shown.json.sent.email).toEqual(expect.stringContaining('@example.com'));
    expect((await readAudits(reader.prefix)).at(-1)).toEqual({
      route: 'GET /api/v1/bookings/:reference',
      references: [made[1]?.reference],
    });

    const arriving = await read(`/bookings?listing=${own}&check_in_from=${day(33)}&check_in_to=${day(36)}`);
    expect(arriving.json.results.map((b: { reference: string }) => b.reference)).toEqual([made[1]?.reference]);
    await write(`/bookings/${made[2]?.reference}/cancel`);
    const cancelled = await read(`/bookings?listing=${own}&status=cancelled`);
    expect(cancelled.json.results.map((b: { reference: string }) => b.reference)).toEqual([made[2]?.reference]);
    // Changed last, it comes last in (updated_at, id) order.
    const all = await read(`/bookings?listing=${own}`);
    expect(all.json.results.at(-1).reference).toBe(made[2]?.reference);
  });

  it('refuses bad queries at the field (400), an unknown home 404, an unknown booking 404', async () => {
    const paths = async (query: string) => {
      const res = await read(`/bookings${query}`);
      expect(res.status, res.text).toBe(400);
      return res.json.errors.map((e: { path: string }) => e.path);
    };
    expect(await paths('?status=lost')).toEqual(['status']);
    expect(await paths('?updated_since=yesterday')).toEqual(['updated_since']);
    expect(await paths(`?check_in_from=${day(5)}&check_in_to=${day(5)}`)).toEqual(['check_in_to']);
    expect(await paths('?page_size=0')).toEqual(['page_size']);
    expect(await paths('?colour=red')).toEqual(['colour']);
    expect((await read('/bookings?listing=no-such-home')).status).toBe(404);
    expect((await read('/bookings/B-NOSUCHONE')).status).toBe(404);
  });
});

describe('moves, as staff make them', () => {
  it('confirms a held booking (booking.confirmed caused by the key, audited); confirming again is 409, nothing changed', async () => {
    const { reference } = await book(ctx, home, ...nights());
    const res = await write(`/bookings/${reference}/confirm`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ reference, status: 'confirmed', warnings: [] });
    expect(Date.parse(res.json.payment_due_at) - Date.parse(res.json.confirmed_at)).toBe(5 * 3_600_000);
    expect((await bookingEvents(ctx, reference)).map((e) => [e.type, e.caused_by])).toEqual([
      ['booking.requested', 'website'],
      ['booking.confirmed', `api:${writer.prefix}`],
    ]);
    expect((await readAudits(writer.prefix)).at(-1)).toEqual({
      route: 'POST /api/v1/bookings/:reference/confirm',
      references: [reference],
    });
    const before = await snapshot(reference);
    const again = await write(`/bookings/${reference}/confirm`);
    expect([again.status, again.json.code]).toEqual([409, 'invalid_transition']);
    expect(await snapshot(reference)).toEqual(before);
  });

  it('cancels (booking.cancelled, reason staff) and frees the nights; a cancelled one takes no change (409)', async () => {
    const [checkIn, checkOut] = nights();
    const { reference } = await book(ctx, home, checkIn, checkOut);
    const res = await write(`/bookings/${reference}/cancel`);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ status: 'cancelled', cancel_reason: 'staff' });
    expect((await bookingEvents(ctx, reference)).at(-1)).toMatchObject({
      type: 'booking.cancelled',
      caused_by: `api:${writer.prefix}`,
    });
    expect((await availability(ctx, home, `?from=${checkIn}&to=${checkOut}`)).json.blocked).toEqual([]);
    const before = await snapshot(reference);
    for (const refused of [
      await write(`/bookings/${reference}/cancel`),
      await write(`/bookings/${reference}/confirm`),
      await write(`/bookings/${reference}`, { method: 'PATCH', body: { guests: 3 } }),
    ]) {
      expect([refused.status, refused.json.code]).toEqual([409, 'invalid_transition']);
    }
    expect(await snapshot(reference)).toEqual(before);
  });
});

describe('changing dates or guests', () => {
  it('moves the stay, prices it anew as a quote does, keeps its own nights free to it, sends booking.changed', async () => {
    const [checkIn] = nights(6);
    // Overlapping its own nights: one night earlier and one longer; priced as a quote of those nights, asked while free.
    const moved = { check_in: plusDays(checkIn, -1), check_out: plusDays(checkIn, 4) };
    const expected = (await quote(ctx, home, moved.check_in, moved.check_out, 3)).json;
    const { reference } = await book(ctx, home, checkIn, plusDays(checkIn, 3));
    const res = await write(`/bookings/${reference}`, { method: 'PATCH', body: { ...moved, guests: 3 } });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ ...moved, guests: 3, status: 'held', total: expected.total, deposit: expected.deposit });
    expect(res.json.quote.nights.map((n: { date: string }) => n.date)).toEqual(
      expected.nights.map((n: { date: string }) => n.date),
    );
    expect((await bookingEvents(ctx, reference)).map((e) => [e.type, e.caused_by, e.data])).toEqual([
      ['booking.requested', 'website', expect.any(Object)],
      ['booking.changed', `api:${writer.prefix}`, { booking_id: expect.any(String), reference, listing_id: expect.any(String) }],
    ]);
    expect((await readAudits(writer.prefix)).at(-1)).toEqual({
      route: 'PATCH /api/v1/bookings/:reference',
      references: [reference],
    });
    const taken = await availability(ctx, home, `?from=${plusDays(checkIn, -3)}&to=${plusDays(checkIn, 7)}`);
    expect(taken.json.blocked).toEqual([{ start: moved.check_in, end: moved.check_out }]);
  });

  it('refuses nights another stay holds (409), rules of the home (400 at the field), bad input (400); nothing changed', async () => {
    const [a] = nights(6);
    const first = await book(ctx, home, a, plusDays(a, 2));
    const second = await book(ctx, home, plusDays(a, 3), plusDays(a, 5));
    const before = await snapshot(first.reference);
    const patch = (body: unknown) => write(`/bookings/${first.reference}`, { method: 'PATCH', body });
    const overlap = await patch({ check_out: plusDays(a, 4) });
    expect([overlap.status, overlap.json.code, overlap.json.errors[0].path]).toEqual([409, 'conflict', 'check_in']);
    const short = await patch({ check_out: plusDays(a, 1) });
    expect([short.status, short.json.code, short.json.errors[0].path]).toEqual([400, 'min_nights', 'check_out']);
    const many = await patch({ guests: 7 });
    expect([many.status, many.json.code, many.json.errors[0].path]).toEqual([400, 'guests', 'guests']);
    const paths = async (body: unknown) => (await patch(body)).json.errors.map((e: { path: string }) => e.path);
    expect(await paths({})).toEqual(['check_in']);
    expect(await paths({ guests: 0 })).toEqual(['guests']);
    expect(await paths({ check_in: '2027-02-30' })).toEqual(['check_in']);
    expect(await paths({ check_out: a })).toEqual(['check_out']);
    expect(await paths({ guests: 3, status: 'paid' })).toEqual(['status']);
    expect(await snapshot(first.reference)).toEqual(before);
    expect((await bookingRow(ctx, second.reference)).check_in).toBe(plusDays(a, 3));
  });

  it('keeps the arrival’s rules to a kept check-in: more guests the day before arrival is taken, a new arrival is not', async () => {
    // A booking arriving tomorrow, made while the home asked no notice; then the home asks three days.
    const soon = await newHome(ctx, { terms: { notice_hours: 0 } });
    const [checkIn, checkOut] = [day(1), day(3)];
    const made = await book(ctx, soon, checkIn, checkOut);
    await ctx.api.db
      .updateTable('holiday_home_terms')
      .set({ notice_hours: 72 })
      .where('listing_id', '=', (await bookingRow(ctx, made.reference)).listing_id)
      .execute();
    const guests = await write(`/bookings/${made.reference}`, { method: 'PATCH', body: { guests: 3, check_out: day(4) } });
    expect(guests.status, guests.text).toBe(200);
    const moved = await write(`/bookings/${made.reference}`, { method: 'PATCH', body: { check_in: day(2) } });
    expect([moved.status, moved.json.code]).toEqual([400, 'notice']);
  });
});

describe('a paid amount and the turnover', () => {
  /** A succeeded deposit through the provider, as the payments' settlement leaves it (seeded: the provider is not the subject). */
  async function paidOnline(reference: string, amount: string) {
    const booking = await bookingRow(ctx, reference);
    const account = await ctx.api.db
      .insertInto('payment_accounts')
      .values({
        company_id: ctx.company.id,
        provider: 'stripe',
        currency: booking.currency,
        api_key_jwe: 'x',
        webhook_secret_jwe: 'x',
      } as never)
      .onConflict((oc) => oc.columns(['company_id', 'currency'] as never).doUpdateSet({ provider: 'stripe' } as never))
      .returning('id')
      .executeTakeFirstOrThrow();
    await ctx.api.db
      .insertInto('payments')
      .values({
        id: `pay_${'A'.repeat(12)}${Math.random().toString(36).slice(2, 14).padEnd(12, 'B')}`,
        company_id: ctx.company.id,
        account_id: account.id,
        provider: 'stripe',
        purpose: 'booking_deposit',
        booking_id: booking.id,
        status: 'succeeded',
        amount,
        currency: booking.currency,
        checkout_id: `cs_${reference}`,
        url: 'https://checkout.example.com/x',
        paid_at: new Date(),
      } as never)
      .execute();
  }

  it('refuses a change that moves the amounts of a booking paid online (409), takes one that keeps them', async () => {
    const [checkIn, checkOut] = nights(3);
    const { reference } = await book(ctx, home, checkIn, checkOut);
    await paidOnline(reference, '100');
    const before = await snapshot(reference);
    const longer = await write(`/bookings/${reference}`, { method: 'PATCH', body: { check_out: plusDays(checkOut, 1) } });
    expect([longer.status, longer.json.code]).toEqual([409, 'conflict']);
    expect(await snapshot(reference)).toEqual(before);
    // One more guest: the same price (the home prices nights, not guests).
    const guests = await write(`/bookings/${reference}`, { method: 'PATCH', body: { guests: 3 } });
    expect(guests.status, guests.text).toBe(200);
    expect([guests.json.total, guests.json.guests]).toEqual([before.row.total, 3]);
  });

  it('moves the home’s rules_version when a change moves a stay in a home with turnover days', async () => {
    const turnover = await newHome(ctx, { terms: { turnover_days: 1 } });
    const { reference } = await book(ctx, turnover, day(60), day(62));
    const version = async () =>
      String(
        (
          await ctx.api.db
            .selectFrom('holiday_home_terms')
            .select('rules_version')
            .where('listing_id', '=', (await bookingRow(ctx, reference)).listing_id)
            .executeTakeFirstOrThrow()
        ).rules_version,
      );
    const before = await version();
    expect((await write(`/bookings/${reference}`, { method: 'PATCH', body: { guests: 3 } })).status).toBe(200);
    expect(await version()).toBe(before);
    expect((await write(`/bookings/${reference}`, { method: 'PATCH', body: { check_out: day(63) } })).status).toBe(200);
    expect(await version()).not.toBe(before);
  });
});

describe('bookings taken on a channel', () => {
  it('records one booking when the same channel id is sent twice at once', async () => {
    const [checkIn, checkOut] = nights(3);
    const body = channelBody(checkIn, checkOut);
    const answers = await Promise.all([write('/channel-bookings', { body }), write('/channel-bookings', { body })]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 201]);
    expect(answers[0]?.json.reference).toBe(answers[1]?.json.reference);
    const rows = await ctx.api.db
      .selectFrom('bookings')
      .select('id')
      .where('channel_reference', '=', body.channel_reference)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('releases the home’s lapsed holds first: a lapsed hold’s nights are the channel’s, the hold cancelled by system', async () => {
    const [checkIn, checkOut] = nights(3);
    const { reference } = await book(ctx, home, checkIn, checkOut);
    // The hold's window ran out (its time put back: the booking request's own now is the test's clock).
    await sql`update bookings set hold_expires_at = hold_expires_at - interval '30 days' where reference = ${reference}`.execute(
      ctx.api.db,
    );
    const res = await write('/channel-bookings', { body: channelBody(checkIn, checkOut) });
    expect(res.status, res.text).toBe(201);
    expect(await bookingRow(ctx, reference)).toMatchObject({ status: 'cancelled', cancel_reason: 'hold_expired' });
    const events = await bookingEvents(ctx, reference);
    expect(events.map((e) => [e.type, e.caused_by])).toEqual([
      ['booking.requested', 'website'],
      ['booking.cancelled', 'system'],
    ]);
  });

  it('records one as paid with its channel and id; its nights become busy; the same id again answers it (200)', async () => {
    const [checkIn, checkOut] = nights(4);
    const body = channelBody(checkIn, checkOut);
    const bookingsBefore = await countBookings(ctx, home);
    const expected = (await quote(ctx, home, checkIn, checkOut, 2)).json;
    const res = await write('/channel-bookings', { body });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      status: 'paid',
      channel: 'airbnb',
      channel_reference: body.channel_reference,
      listing: home,
      check_in: checkIn,
      check_out: checkOut,
      payment_due_at: null,
      sent: { name: 'Omar Channel', email: body.email, phone: null },
    });
    // Priced as the home prices it: the quote of the same stay, asked before.
    expect([res.json.total, res.json.deposit]).toEqual([expected.total, expected.deposit]);
    const { reference } = res.json;
    // What staff's confirmation of a booking paid in full sends (one statement: in no order of their own).
    expect((await bookingEvents(ctx, reference)).map((e) => [e.type, e.caused_by]).sort()).toEqual([
      ['booking.confirmed', `api:${writer.prefix}`],
      ['booking.paid', `api:${writer.prefix}`],
    ]);
    expect((await readAudits(writer.prefix)).at(-1)).toEqual({ route: 'POST /api/v1/channel-bookings', references: [reference] });
    const busy = await availability(ctx, home, `?from=${checkIn}&to=${checkOut}`);
    expect(busy.json.blocked).toEqual([{ start: checkIn, end: checkOut }]);

    const again = await write('/channel-bookings', { body });
    expect(again.status, again.text).toBe(200);
    expect(again.json).toEqual(res.json);
    expect(await countBookings(ctx, home)).toBe(bookingsBefore + 1);
    expect((await bookingEvents(ctx, reference)).length).toBe(2);

    const before = await snapshot(reference);
    const changed = await write('/channel-bookings', { body: { ...body, guests: 3 } });
    expect([changed.status, changed.json.code]).toEqual([409, 'conflict']);
    expect(await snapshot(reference)).toEqual(before);
    // Paid on the channel: nothing to confirm (409); a cancellation frees its nights.
    expect((await write(`/bookings/${reference}/confirm`)).json.code).toBe('invalid_transition');
  });

  it('obeys the one calendar rule: taken nights 409, closed to arrival, min stay and a closed date 400; nothing recorded', async () => {
    const own = await newHome(ctx, { terms: { min_nights: 3, closed_arrival_days: [2] } });
    const record = (checkIn: string, checkOut: string) =>
      write('/channel-bookings', { body: channelBody(checkIn, checkOut, { listing: own }) });
    let free = day(40);
    while (weekday(free) === 2) free = plusDays(free, 1);
    const held = await book(ctx, own, free, plusDays(free, 4));
    const count = await countBookings(ctx, own);
    const overlap = await record(plusDays(free, 2), plusDays(free, 6));
    expect([overlap.status, overlap.json.code]).toEqual([409, 'conflict']);
    let tuesday = day(50);
    while (weekday(tuesday) !== 2) tuesday = plusDays(tuesday, 1);
    const closedDay = await record(tuesday, plusDays(tuesday, 4));
    expect([closedDay.status, closedDay.json.code, closedDay.json.errors[0].path]).toEqual([400, 'arrival_day', 'check_in']);
    const short = await record(plusDays(tuesday, 1), plusDays(tuesday, 2));
    expect([short.status, short.json.code]).toEqual([400, 'min_nights']);
    // A date's own rule (daily rates): closed to arrival on one date.
    const cta = plusDays(tuesday, 8);
    const put = await ctx.api.admin(`/companies/${ctx.company.id}/listings/${own}/rates`, {
      method: 'PUT',
      body: { rates: [{ starts_on: cta, ends_on: plusDays(cta, 1), closed_to_arrival: true }] },
    });
    expect(put.status, put.text).toBe(200);
    const ctaRes = await record(cta, plusDays(cta, 4));
    expect([ctaRes.status, ctaRes.json.code]).toEqual([400, 'arrival_day']);
    expect(await countBookings(ctx, own)).toBe(count);
    expect((await bookingRow(ctx, held.reference)).status).toBe('held');
  });

  it('refuses bad input at the field (400), unknown homes 404', async () => {
    const [checkIn, checkOut] = nights(3);
    const paths = async (body: unknown) => {
      const res = await write('/channel-bookings', { body });
      expect(res.status, res.text).toBe(400);
      return res.json.errors.map((e: { path: string }) => e.path);
    };
    const body = channelBody(checkIn, checkOut);
    expect(await paths({ ...body, channel: 'Air BnB' })).toEqual(['channel']);
    expect(await paths({ ...body, channel_reference: '' })).toEqual(['channel_reference']);
    expect(await paths({ ...body, email: undefined })).toEqual(['email']);
    expect(await paths({ ...body, guests: 0 })).toEqual(['guests']);
    expect(await paths({ ...body, passport_number: 'X1' })).toEqual(['passport_number']);
    expect(await paths({ ...body, check_out: checkIn })).toEqual(['check_out']);
    expect((await write('/channel-bookings', { body: { ...body, listing: 'no-such-home' } })).status).toBe(404);
    expect(
      await ctx.api.db.selectFrom('bookings').select('id').where('channel_reference', '=', body.channel_reference).execute(),
    ).toEqual([]);
  });
});
