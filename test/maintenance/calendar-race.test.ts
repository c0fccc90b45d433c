import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookingBody, day, postBooking } from '../stay/support';
import { maintenanceWorld, type World } from './http';

/**
 * A booking request and a job's block for the same night, sent together: never both take it. On PGlite the requests
 * are serialised by its single session, so the race is run on PostgreSQL (DATABASE_URL) only, where they truly race.
 */
let w: World;
beforeAll(async () => {
  w = await maintenanceWorld();
});
afterAll(() => w.api.close());

describe.skipIf(!process.env.DATABASE_URL)('a booking request and a job block racing for one night', () => {
  it('gives the night to exactly one of them, over 12 homes', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 12; round++) {
      const home = await w.holidayHome();
      const job = await w.job({ home });
      const night = day(60);
      const [booking, scheduled] = await Promise.all([
        postBooking(w.ctx, bookingBody(home, night, day(61))),
        w.write(`/jobs/${job.reference}/schedule`, { day: night, block_calendar: true }),
      ]);
      expect(scheduled.status, scheduled.text).toBe(200);
      const guestGotIt = booking.status === 201;
      if (!guestGotIt) {
        expect(booking.status, booking.text).toBe(400);
        expect(booking.json.code).toBe('unavailable');
      }
      expect(scheduled.json.calendar.blocked, `round ${round}: ${booking.text}`).toBe(!guestGotIt);
      expect(scheduled.json.warnings.map((x: { code: string }) => x.code)).toEqual(guestGotIt ? ['calendar_taken'] : []);
      const blocks = await w.api.db
        .selectFrom('calendar_blocks as b')
        .innerJoin('listings as l', 'l.id', 'b.listing_id')
        .select('b.id')
        .where('l.slug_en', '=', home)
        .execute();
      const stays = await w.api.db
        .selectFrom('bookings as b')
        .innerJoin('listings as l', 'l.id', 'b.listing_id')
        .select('b.id')
        .where('l.slug_en', '=', home)
        .where('b.status', '<>', 'cancelled')
        .execute();
      expect(blocks.length + stays.length).toBe(1);
      outcomes.push(guestGotIt ? 'guest' : 'job');
    }
    expect(outcomes).toHaveLength(12);
  });
});
