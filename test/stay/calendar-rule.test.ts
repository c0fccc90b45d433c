import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import * as stay from './support';
import { bookingsThrough, day, plainTerms, useBookingWorld } from './support';

/**
 * One rule for "is this night free" (lib/calendar.ts), used by every writer of a home's calendar: a night is taken by
 * a stay that still holds it (held until its hold lapses, confirmed until its payment window closes, paid) or by a
 * block. A stay whose hold or payment window ran out by the services' clock holds nothing, for every writer.
 */
const { w, forms } = useBookingWorld();

const newHome = () => w.holidayHome(plainTerms);
/** A guest's booking request from the company's website. */
const bookingRequest = (home: string, checkIn: string, checkOut: string) => bookingsThrough(forms).send(home, checkIn, checkOut);
const book = (home: string, checkIn: string, checkOut: string) => bookingsThrough(forms).book(home, checkIn, checkOut);
/** Staff's block of a home's nights (the admin API). */
const addBlock = (home: string, startsOn: string, endsOn: string) => stay.addBlock(w, home, startsOn, endsOn);
const step = (reference: string, action: 'confirm' | 'mark-paid' | 'cancel') => stay.step(w, reference, action);
const schedule = (reference: string, body: { day: string; block_calendar: boolean }) =>
  w.client.POST('/api/v1/jobs/{reference}/schedule', { params: { path: { reference } }, body });

/** A held booking of `home` for [from, to) whose hold ran out a minute ago. */
async function lapsedHold(home: string, from: string, to: string) {
  const booking = await book(home, from, to);
  await sql`update bookings set hold_expires_at = now() - interval '1 minute' where reference = ${booking.reference}`.execute(
    w.api.db,
  );
  return booking;
}

describe('the one calendar rule, writer by writer', () => {
  it('staff blocks: a lapsed hold holds no night (201), a live hold does (409 conflict)', async () => {
    const home = await newHome();
    await lapsedHold(home, day(40), day(43));
    const over = await addBlock(home, day(40), day(43));
    expect(over.status, over.text).toBe(201);
    const live = await book(home, day(50), day(52));
    const refused = await addBlock(home, day(51), day(53));
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toContain(live.reference);
  });

  it('booking requests: the nights of a lapsed hold that staff then blocked are refused (unavailable)', async () => {
    const home = await newHome();
    await lapsedHold(home, day(40), day(43));
    expect((await addBlock(home, day(41), day(42))).status).toBe(201);
    const res = await bookingRequest(home, day(40), day(43));
    expect(res.response.status).toBe(400);
    expect(res.error?.code).toBe('unavailable');
    // The nights the block leaves free are free.
    expect((await bookingRequest(home, day(42), day(43))).response.status).toBe(201);
  });

  it('booking confirm: a hold that lapsed by the services’ clock is released, not confirmed (409)', async () => {
    const home = await newHome();
    const booking = await book(home, day(40), day(42));
    w.api.clock.set(new Date(Date.parse(booking.hold_expires_at) + 1000));
    try {
      const res = await step(booking.reference, 'confirm');
      expect(res.status, res.text).toBe(409);
      expect(res.json.code).toBe('invalid_transition');
      expect(res.json.detail).toContain('is cancelled');
    } finally {
      w.api.clock.set(null);
    }
    // Refused as a lapsed hold (the release rolls back with the refusal; the scheduler releases it).
    const row = await w.api.db
      .selectFrom('bookings')
      .selectAll()
      .where('reference', '=', booking.reference)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('held');
  });

  it('maintenance jobs: a lapsed hold does not stop the job’s block, a live one does (calendar_taken)', async () => {
    const home = await newHome();
    await lapsedHold(home, day(40), day(43));
    const job = await w.job({ home });
    const blocked = await schedule(job.reference, { day: day(41), block_calendar: true });
    expect(blocked.response.status, JSON.stringify(blocked.error)).toBe(200);
    expect(blocked.data?.calendar.blocked).toBe(true);
    await book(home, day(50), day(52));
    const other = await w.job({ home });
    const taken = await schedule(other.reference, { day: day(50), block_calendar: true });
    expect(taken.data?.calendar.blocked).toBe(false);
    expect(taken.data?.warnings.map((x) => x.code)).toEqual(['calendar_taken']);
  });
});
