import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maintenanceWorld, type World } from '../maintenance/http';
import { addBlock, book, bookingBody, day, newHome, postBooking, step } from './support';

/**
 * One rule for "is this night free" (lib/calendar.ts), used by every writer of a home's calendar: a night is taken by
 * a stay that still holds it (held until its hold lapses, confirmed until its payment window closes, paid) or by a
 * block. A stay whose hold or payment window ran out by the services' clock holds nothing, for every writer.
 */
let w: World;
beforeAll(async () => {
  w = await maintenanceWorld();
});
afterAll(() => w.api.close());

/** A held booking of `home` for [from, to) whose hold ran out a minute ago. */
async function lapsedHold(home: string, from: string, to: string) {
  const booking = await book(w.ctx, home, from, to);
  await sql`update bookings set hold_expires_at = now() - interval '1 minute' where reference = ${booking.reference}`.execute(
    w.api.db,
  );
  return booking;
}

describe('the one calendar rule, writer by writer', () => {
  it('staff blocks: a lapsed hold holds no night (201), a live hold does (409 conflict)', async () => {
    const home = await newHome(w.ctx);
    await lapsedHold(home, day(40), day(43));
    const over = await addBlock(w.ctx, home, day(40), day(43));
    expect(over.status, over.text).toBe(201);
    const live = await book(w.ctx, home, day(50), day(52));
    const refused = await addBlock(w.ctx, home, day(51), day(53));
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toContain(live.reference);
  });

  it('booking requests: the nights of a lapsed hold that staff then blocked are refused (unavailable)', async () => {
    const home = await newHome(w.ctx);
    await lapsedHold(home, day(40), day(43));
    expect((await addBlock(w.ctx, home, day(41), day(42))).status).toBe(201);
    const res = await postBooking(w.ctx, bookingBody(home, day(40), day(43)));
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('unavailable');
    // The nights the block leaves free are free.
    expect((await postBooking(w.ctx, bookingBody(home, day(42), day(43)))).status).toBe(201);
  });

  it('booking confirm: a hold that lapsed by the services’ clock is released, not confirmed (409)', async () => {
    const home = await newHome(w.ctx);
    const booking = await book(w.ctx, home, day(40), day(42));
    w.api.clock.set(new Date(Date.parse(booking.hold_expires_at) + 1000));
    try {
      const res = await step(w.ctx, booking.reference, 'confirm');
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
    const home = await newHome(w.ctx);
    await lapsedHold(home, day(40), day(43));
    const job = await w.job({ home });
    const blocked = await w.write(`/jobs/${job.reference}/schedule`, { day: day(41), block_calendar: true });
    expect(blocked.status, blocked.text).toBe(200);
    expect(blocked.json.calendar.blocked).toBe(true);
    await book(w.ctx, home, day(50), day(52));
    const other = await w.job({ home });
    const taken = await w.write(`/jobs/${other.reference}/schedule`, { day: day(50), block_calendar: true });
    expect(taken.json.calendar.blocked).toBe(false);
    expect(taken.json.warnings.map((x: { code: string }) => x.code)).toEqual(['calendar_taken']);
  });
});
