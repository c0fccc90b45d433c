import { sql } from 'kysely';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { expireDueBookings } from '../../functions/stay/bookings';
import { holdStay } from '../../functions/stay/hold';
import { quoteOf, stayFacts } from '../../lib/stay/quote';
import { lockHomeCalendar } from '../../lib/calendar';
import { companyByHost } from '../../lib/tenancy';
import { runScheduledWork } from '../../functions/jobs';
import {
  availability,
  book,
  bookingBody,
  bookingEvents,
  bookingRow,
  newHome,
  postBooking,
  stays,
  step,
  useStay,
} from './support';

/** Scheduled work scans every company: this file has a database of its own on PostgreSQL too. */
const ctx = useStay({ ownDatabase: true });
let home: string;

beforeAll(async () => {
  home = await newHome(ctx, { terms: { payment_window_hours: 48 } });
});

/** Fresh nights of `home` for each booking of this file. */
const nights = stays(10);
const hours = (n: number) => new Date(Date.now() + n * 3_600_000);
const lifecycle = async (reference: string) =>
  (await bookingEvents(ctx, reference)).map((e) => [e.type, e.caused_by, Object.keys(e.data).sort().join(' ')]);

describe('booking expiry', () => {
  it('cancels holds past their expiry (hold_expired) and unpaid confirmed bookings past payment_due_at (payment_overdue), never paid ones', async () => {
    const held = await book(ctx, home, ...nights());
    const confirmed = await book(ctx, home, ...nights());
    await step(ctx, confirmed.reference, 'confirm');
    const paid = await book(ctx, home, ...nights());
    await step(ctx, paid.reference, 'confirm');
    await step(ctx, paid.reference, 'mark-paid');

    // 23 hours on: nothing is due yet.
    await expireDueBookings(ctx.api.db, hours(23));
    expect((await bookingRow(ctx, held.reference)).status).toBe('held');

    // 25 hours on: the 24-hour hold lapsed; the 48-hour payment window did not.
    const first = hours(25);
    await expireDueBookings(ctx.api.db, first);
    const lapsed = await bookingRow(ctx, held.reference);
    expect(lapsed).toMatchObject({ status: 'cancelled', cancel_reason: 'hold_expired' });
    expect(new Date(lapsed.cancelled_at as Date).toISOString()).toBe(first.toISOString());
    expect((await bookingRow(ctx, confirmed.reference)).status).toBe('confirmed');
    expect(await lifecycle(held.reference)).toEqual([
      ['booking.requested', 'website', 'booking_id listing_id reference'],
      ['booking.cancelled', 'system', 'booking_id listing_id reference'],
    ]);

    // 49 hours on: the payment window closed too.
    await expireDueBookings(ctx.api.db, hours(49));
    expect(await bookingRow(ctx, confirmed.reference)).toMatchObject({ status: 'cancelled', cancel_reason: 'payment_overdue' });
    expect((await lifecycle(confirmed.reference)).at(-1)).toEqual([
      'booking.cancelled',
      'system',
      'booking_id listing_id reference',
    ]);

    // Far later: a paid booking is never touched.
    await expireDueBookings(ctx.api.db, hours(24 * 400));
    expect(await bookingRow(ctx, paid.reference)).toMatchObject({ status: 'paid', cancelled_at: null, cancel_reason: null });
    expect((await lifecycle(paid.reference)).map(([type]) => type)).toEqual([
      'booking.requested',
      'booking.confirmed',
      'booking.paid',
    ]);
  });

  it('cancels once when run twice (one booking.cancelled), and frees the nights', async () => {
    const [checkIn, checkOut] = nights();
    const held = await book(ctx, home, checkIn, checkOut);
    const at = new Date(Date.parse(held.hold_expires_at) + 1000);
    expect(await expireDueBookings(ctx.api.db, at)).toBeGreaterThanOrEqual(1);
    expect(await expireDueBookings(ctx.api.db, at)).toBe(0);
    const cancelled = (await bookingEvents(ctx, held.reference)).filter((e) => e.type === 'booking.cancelled');
    expect(cancelled).toHaveLength(1);
    expect((await availability(ctx, home, `?from=${checkIn}&to=${checkOut}`)).json.blocked).toEqual([]);
  });

  it('runs as part of runScheduledWork', async () => {
    const held = await book(ctx, home, ...nights());
    await sql`update bookings set hold_expires_at = now() - interval '1 second' where reference = ${held.reference}`.execute(
      ctx.api.db,
    );
    const report = await runScheduledWork(ctx.api.platform.services());
    expect(report.booking_expiry).toBe(1);
    expect(await bookingRow(ctx, held.reference)).toMatchObject({ status: 'cancelled', cancel_reason: 'hold_expired' });
    expect((await lifecycle(held.reference)).at(-1)).toEqual(['booking.cancelled', 'system', 'booking_id listing_id reference']);
  });
});

describe('a lapsed hold not yet swept', () => {
  it('gives way to a new booking of its nights, released in the same transaction', async () => {
    const [checkIn, checkOut] = nights();
    const old = await book(ctx, home, checkIn, checkOut);
    await sql`update bookings set hold_expires_at = now() - interval '1 second' where reference = ${old.reference}`.execute(
      ctx.api.db,
    );
    expect((await bookingRow(ctx, old.reference)).status).toBe('held');
    const res = await postBooking(ctx, bookingBody(home, checkIn, checkOut));
    expect(res.status, res.text).toBe(201);
    const released = await bookingRow(ctx, old.reference);
    const fresh = await bookingRow(ctx, res.json.reference);
    expect(released).toMatchObject({ status: 'cancelled', cancel_reason: 'hold_expired' });
    expect((await lifecycle(old.reference)).at(-1)).toEqual(['booking.cancelled', 'system', 'booking_id listing_id reference']);
    // One transaction: the release and the new booking were written by the same transaction id.
    const writers = await sql<{ reference: string; xmin: string }>`
      select reference, xmin::text as xmin from bookings where reference in (${old.reference}, ${fresh.reference})
    `.execute(ctx.api.db);
    expect(writers.rows).toHaveLength(2);
    expect(new Set(writers.rows.map((r) => r.xmin)).size).toBe(1);
  });

  it('cannot be confirmed, nor can a confirmed booking be paid after its window (409)', async () => {
    const held = await book(ctx, home, ...nights());
    await sql`update bookings set hold_expires_at = now() - interval '1 second' where reference = ${held.reference}`.execute(
      ctx.api.db,
    );
    const res = await step(ctx, held.reference, 'confirm');
    expect(res.status).toBe(409);
    expect(res.json.code).toBe('invalid_transition');
    const confirmed = await book(ctx, home, ...nights());
    await step(ctx, confirmed.reference, 'confirm');
    await sql`update bookings set payment_due_at = now() - interval '1 second' where reference = ${confirmed.reference}`.execute(
      ctx.api.db,
    );
    expect((await step(ctx, confirmed.reference, 'mark-paid')).status).toBe(409);
    expect((await lifecycle(confirmed.reference)).map(([type]) => type)).not.toContain('booking.paid');
  });
});

describe('the scheduler beside a booking request (PostgreSQL: two sessions)', () => {
  it.skipIf(!inject('databaseUrl'))(
    'releases a lapsed hold once, without a deadlock, while a request books its nights',
    async () => {
      const [checkIn, checkOut] = nights();
      const old = await book(ctx, home, checkIn, checkOut);
      await sql`update bookings set hold_expires_at = now() - interval '1 second' where reference = ${old.reference}`.execute(
        ctx.api.db,
      );
      const company = (await companyByHost(ctx.api.db, ctx.company.host))!;
      const waiting = async () => {
        const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'
      `.execute(ctx.api.db);
        return rows[0]?.n ?? 0;
      };
      let sweep: Promise<unknown> | undefined;
      // The request's locked path, step by step (functions/stay/hold.ts holdStayLocked): the home is locked, then the
      // scheduler runs, then the request reads the calendar and books.
      const booked = await ctx.api.db.transaction().execute(async (trx) => {
        const now = new Date();
        const input = { checkIn, checkOut, guests: 2, name: 'Racing Guest', email: 'racer@example.com' };
        const { home: found } = await stayFacts(trx, company, home, input, now);
        await lockHomeCalendar(trx, found.id);
        sweep = expireDueBookings(ctx.api.db, now).catch((error: unknown) => error);
        for (let i = 0; i < 250 && (await waiting()) === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(await waiting()).toBeGreaterThan(0);
        const facts = await stayFacts(trx, company, home, input, now);
        const quote = quoteOf(company, facts, input, now);
        const guest = { ...input, consentVersion: 'v1', consentAddress: null };
        return holdStay(trx, company, facts, quote, guest, 'website', now);
      });
      expect(await sweep).toBe(0);
      expect(booked).toBeDefined();
      expect(await bookingRow(ctx, booked!.booking.reference)).toMatchObject({ status: 'held' });
      expect(await bookingRow(ctx, old.reference)).toMatchObject({ status: 'cancelled', cancel_reason: 'hold_expired' });
      expect((await bookingEvents(ctx, old.reference)).filter((e) => e.type === 'booking.cancelled')).toHaveLength(1);
    },
  );
});
