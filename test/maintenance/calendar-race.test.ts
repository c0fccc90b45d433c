import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookingBody, day, plainTerms } from '../stay/support';
import type { TestClient } from '../support/client';
import { type World, world } from '../support/world';

/**
 * A booking request and a job's block for the same night, sent together: never both take it. On PGlite the requests
 * are serialised by its single session, so the race is run on PostgreSQL (DATABASE_URL) only, where they truly race.
 */
let w: World;
let writes: TestClient;
let forms: TestClient;
beforeAll(async () => {
  // A development workspace: its booking form takes the spam check's test token.
  w = await world({ environment: 'development' });
  [writes, forms] = await Promise.all([w.clientWith(['write:maintenance']), w.formClient(['booking'])]);
});
afterAll(() => w.close());

describe.skipIf(!process.env.DATABASE_URL)('a booking request and a job block racing for one night', () => {
  it('gives the night to exactly one of them, over 12 homes', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 12; round++) {
      const home = await w.holidayHome(plainTerms);
      const job = await w.job({ home });
      const night = day(60);
      const [booking, scheduled] = await Promise.all([
        forms.POST('/api/v1/bookings', { body: bookingBody(home, night, day(61)) }),
        writes.POST('/api/v1/jobs/{reference}/schedule', {
          params: { path: { reference: job.reference } },
          body: { day: night, block_calendar: true },
        }),
      ]);
      expect(scheduled.response.status, JSON.stringify(scheduled.error)).toBe(200);
      const guestGotIt = booking.response.status === 201;
      if (!guestGotIt) {
        expect(booking.response.status, JSON.stringify(booking.error)).toBe(400);
        expect(booking.error?.code).toBe('unavailable');
      }
      expect(scheduled.data?.calendar.blocked, `round ${round}: ${JSON.stringify(booking.error)}`).toBe(!guestGotIt);
      expect(scheduled.data?.warnings.map((x) => x.code)).toEqual(guestGotIt ? ['calendar_taken'] : []);
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
