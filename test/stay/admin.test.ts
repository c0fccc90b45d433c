import { beforeAll, describe, expect, it } from 'vitest';
import { adminOf } from '../support/world';
import {
  addBlock,
  adminBooking,
  answer,
  availability,
  blocksOf,
  book,
  bookingEvents,
  day,
  newHome,
  plusDays,
  postBooking,
  bookingBody,
  removeBlock,
  setup,
  stays,
  step,
  useStay,
} from './support';

const ctx = useStay();
let home: string;

beforeAll(async () => {
  home = await newHome(ctx, { terms: { payment_window_hours: 5 } });
});

/** Fresh nights of `home` for each booking of this file. */
const nights = stays(10);
const booked = () => book(ctx, home, ...nights());
const within = (iso: string, from: number, to: number) => {
  expect(Date.parse(iso)).toBeGreaterThanOrEqual(from - 1000);
  expect(Date.parse(iso)).toBeLessThanOrEqual(to + 1000);
};

describe('the lifecycle', () => {
  it('confirms a held booking: payment due after the home’s payment window, booking.confirmed by admin', async () => {
    const { reference } = await booked();
    const before = Date.now();
    const res = await step(ctx, reference, 'confirm');
    const after = Date.now();
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ reference, status: 'confirmed', paid_at: null, cancelled_at: null, cancel_reason: null });
    within(res.json.confirmed_at, before, after);
    expect(Date.parse(res.json.payment_due_at) - Date.parse(res.json.confirmed_at)).toBe(5 * 3_600_000);
    const events = await bookingEvents(ctx, reference);
    expect(events.map((e) => [e.type, e.caused_by])).toEqual([
      ['booking.requested', 'website'],
      ['booking.confirmed', 'admin'],
    ]);
    // The confirm answers the booking as GET does, plus its warnings (import_stale; none here: no imports).
    const { warnings, ...shown } = res.json;
    expect(warnings).toEqual([]);
    expect((await adminBooking(ctx, reference)).json).toEqual(shown);
  });

  it('marks a confirmed booking paid (booking.paid), and its nights stay taken', async () => {
    const booking = await booked();
    await step(ctx, booking.reference, 'confirm');
    const before = Date.now();
    const res = await step(ctx, booking.reference, 'mark-paid');
    expect(res.status, res.text).toBe(200);
    expect(res.json.status).toBe('paid');
    within(res.json.paid_at, before, Date.now());
    expect((await bookingEvents(ctx, booking.reference)).map((e) => [e.type, e.caused_by]).at(-1)).toEqual([
      'booking.paid',
      'admin',
    ]);
    const taken = await availability(ctx, home, `?from=${booking.quote.check_in}&to=${booking.quote.check_out}`);
    expect(taken.json.blocked).toEqual([{ start: booking.quote.check_in, end: booking.quote.check_out }]);
  });

  it.each(['held', 'confirmed', 'paid'] as const)(
    'cancels a %s booking (booking.cancelled) and frees its nights',
    async (from) => {
      const [checkIn, checkOut] = nights();
      const { reference } = await book(ctx, home, checkIn, checkOut);
      if (from !== 'held') await step(ctx, reference, 'confirm');
      if (from === 'paid') await step(ctx, reference, 'mark-paid');
      const res = await step(ctx, reference, 'cancel');
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ status: 'cancelled', cancel_reason: 'staff' });
      expect(res.json.cancelled_at).toEqual(expect.any(String));
      expect((await bookingEvents(ctx, reference)).map((e) => [e.type, e.caused_by]).at(-1)).toEqual([
        'booking.cancelled',
        'admin',
      ]);
      expect((await availability(ctx, home, `?from=${checkIn}&to=${checkOut}`)).json.blocked).toEqual([]);
      expect((await postBooking(ctx, bookingBody(home, checkIn, checkOut))).status).toBe(201);
    },
  );

  it('refuses a step the status does not allow with 409 invalid_transition, changing nothing', async () => {
    const held = await booked();
    const confirmed = await booked();
    await step(ctx, confirmed.reference, 'confirm');
    const paid = await booked();
    await step(ctx, paid.reference, 'confirm');
    await step(ctx, paid.reference, 'mark-paid');
    const cancelled = await booked();
    await step(ctx, cancelled.reference, 'cancel');
    for (const [booking, action] of [
      [held, 'mark-paid'],
      [confirmed, 'confirm'],
      [paid, 'confirm'],
      [paid, 'mark-paid'],
      [cancelled, 'confirm'],
      [cancelled, 'mark-paid'],
      [cancelled, 'cancel'],
    ] as const) {
      const before = await adminBooking(ctx, booking.reference);
      const eventsBefore = (await bookingEvents(ctx, booking.reference)).length;
      const res = await step(ctx, booking.reference, action);
      expect(res.status, `${before.json.status} ${action}`).toBe(409);
      expect(res.json.code).toBe('invalid_transition');
      expect((await adminBooking(ctx, booking.reference)).json).toEqual(before.json);
      expect(await bookingEvents(ctx, booking.reference)).toHaveLength(eventsBefore);
    }
  });

  it('shows total and deposit with the currency’s minor digits, as the guest’s quote does', async () => {
    for (const currency of ['AED', 'JPY', 'KWD']) {
      const other = await setup({ api: ctx.api, overrides: { currency } });
      // JPY has no minor unit: its cleaning fee is whole yen (a fraction is refused at import, test/statements/currency-digits).
      const cleaning = currency === 'JPY' ? '12' : '12.50';
      const theirs = await newHome(other, { price: '100.00', terms: { deposit: '250.00', cleaning_fee: cleaning } });
      const booking = await book(other, theirs, day(30), day(33));
      const res = await adminBooking(other, booking.reference);
      expect(res.json.currency).toBe(currency);
      expect([res.json.total, res.json.deposit], currency).toEqual([booking.quote.total, booking.quote.deposit]);
      expect(res.json.quote.total).toBe(booking.quote.total);
    }
  });

  it('answers 404 for an unknown reference and for another company’s booking', async () => {
    const other = await setup({ api: ctx.api });
    const foreign = await book(other, 'palm-5br-villa-private-beach-holiday', day(30), day(34));
    for (const reference of ['B-0000000000', foreign.reference]) {
      expect((await adminBooking(ctx, reference)).status, reference).toBe(404);
      for (const action of ['confirm', 'mark-paid', 'cancel'] as const) {
        const res = await step(ctx, reference, action);
        expect(res.status).toBe(404);
        expect(res.json.code).toBe('not_found');
      }
    }
    expect((await adminBooking(other, foreign.reference)).json.status).toBe('held');
  });
});

describe('the list', () => {
  it('filters by status and listing, newest first, and next_cursor walks every page without losing or repeating one', async () => {
    const own = await setup({ api: ctx.api });
    const a = await newHome(own);
    const b = await newHome(own);
    const made: Array<{ reference: string; home: string; status: string }> = [];
    for (let i = 0; i < 7; i++) {
      const target = i % 2 === 0 ? a : b;
      const { reference } = await book(own, target, day(20 + 3 * i), day(22 + 3 * i));
      let status = 'held';
      if (i % 3 === 1) status = (await step(own, reference, 'confirm')).json.status;
      if (i === 6) status = (await step(own, reference, 'cancel')).json.status;
      made.push({ reference, home: target, status });
    }
    const list = (query: Record<string, unknown>) =>
      answer(
        adminOf(own.api).GET('/admin/v1/companies/{company_id}/bookings', {
          params: { path: { company_id: own.company.id }, query: query as never },
        }),
      );
    const walk = async (query: Record<string, string> = {}) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await list({ page_size: 2, ...query, ...(cursor ? { cursor } : {}) });
        expect(res.status, res.text).toBe(200);
        expect(res.json.results.length).toBeLessThanOrEqual(2);
        seen.push(...res.json.results.map((r: { reference: string }) => r.reference));
        cursor = res.json.next_cursor;
        pages++;
      } while (cursor !== null && pages < 20);
      return seen;
    };
    const newestFirst = [...made].reverse();
    expect(await walk()).toEqual(newestFirst.map((m) => m.reference));
    for (const status of ['held', 'confirmed', 'cancelled', 'paid']) {
      expect(await walk({ status }), status).toEqual(newestFirst.filter((m) => m.status === status).map((m) => m.reference));
    }
    expect(await walk({ listing: b })).toEqual(newestFirst.filter((m) => m.home === b).map((m) => m.reference));
    expect(await walk({ listing: b, status: 'confirmed' })).toEqual(
      newestFirst.filter((m) => m.home === b && m.status === 'confirmed').map((m) => m.reference),
    );
    const invalid = await list({ status: 'pending' });
    expect(invalid.status).toBe(400);
  });
});

describe('blocks', () => {
  it('move the home’s calendar and rules versions by one each when added or removed: one update of its terms row (migration 0026)', async () => {
    const versions = async () => {
      const row = await ctx.api.db
        .selectFrom('holiday_home_terms as t')
        .innerJoin('listings as l', 'l.id', 't.listing_id')
        .select(['t.calendar_version', 't.rules_version'])
        .where('l.company_id', '=', ctx.company.id)
        .where('l.slug_en', '=', home)
        .executeTakeFirstOrThrow();
      return [Number(row.calendar_version), Number(row.rules_version)];
    };
    const moved = (before: number[], after: number[]) => after.map((v, i) => v - (before[i] as number));
    const before = await versions();
    const [b1, b2] = nights(2);
    const added = await addBlock(ctx, home, b1, b2, 'maintenance');
    expect(added.status, added.text).toBe(201);
    const afterAdd = await versions();
    expect(moved(before, afterAdd)).toEqual([1, 1]);
    const removed = await removeBlock(ctx, home, added.json.id);
    expect(removed.status).toBe(204);
    expect(moved(afterAdd, await versions())).toEqual([1, 1]);
  });

  it('adds (201), lists, refuses over an active booking (409), allows over a cancelled one, and deletes (204)', async () => {
    const [b1, b2] = nights(4);
    const added = await addBlock(ctx, home, b1, b2, 'maintenance');
    expect(added.status, added.text).toBe(201);
    expect(added.json).toEqual({
      id: expect.any(String),
      reason: 'maintenance',
      channel: null,
      starts_on: b1,
      ends_on: b2,
      note: '',
      follows: null,
    });
    expect(await blocksOf(ctx, home)).toContainEqual(added.json);
    // A booking cannot take blocked nights.
    const refused = await postBooking(ctx, bookingBody(home, b1, b2));
    expect(refused.json.code).toBe('unavailable');

    const [c1, c2] = nights();
    const booking = await book(ctx, home, c1, c2);
    const over = await addBlock(ctx, home, plusDays(c2, -2), plusDays(c2, 2));
    expect(over.status).toBe(409);
    expect(over.json.code).toBe('conflict');
    expect(over.json.detail).toContain(booking.reference);
    const touching = await addBlock(ctx, home, c2, plusDays(c2, 1));
    expect(touching.status, touching.text).toBe(201);
    await step(ctx, booking.reference, 'cancel');
    expect((await addBlock(ctx, home, c1, c2)).status).toBe(201);

    const removed = await removeBlock(ctx, home, added.json.id);
    expect(removed.status).toBe(204);
    expect((await blocksOf(ctx, home)).map((b) => b.id)).not.toContain(added.json.id);
    const again = await removeBlock(ctx, home, added.json.id);
    expect(again.status).toBe(404);
    expect((await postBooking(ctx, bookingBody(home, b1, b2))).status).toBe(201);
  });

  it('refuses a block that ends on or before it starts (400), and another company’s block (404)', async () => {
    expect((await addBlock(ctx, home, day(300), day(300))).status).toBe(400);
    const other = await setup({ api: ctx.api });
    const theirs = await addBlock(other, 'palm-5br-villa-private-beach-holiday', day(300), day(302));
    expect(theirs.status).toBe(201);
    const res = await removeBlock(ctx, 'palm-5br-villa-private-beach-holiday', theirs.json.id);
    expect(res.status).toBe(404);
  });
});

describe('events', () => {
  it('carry exactly booking_id, reference and listing_id on every booking.* event, never guest data', async () => {
    const rows = await ctx.api.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('company_id', '=', ctx.company.id)
      .where('type', 'like', 'booking.%')
      .execute();
    expect(new Set(rows.map((r) => r.type))).toEqual(
      new Set(['booking.requested', 'booking.confirmed', 'booking.paid', 'booking.cancelled']),
    );
    for (const row of rows) {
      expect(Object.keys(row.data).sort(), row.type).toEqual(['booking_id', 'listing_id', 'reference']);
      expect(JSON.stringify(row.data)).not.toMatch(/@|Layla/);
    }
  });
});
