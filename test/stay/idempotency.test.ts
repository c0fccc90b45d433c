import { describe, expect, it } from 'vitest';
import { bookingBody, countBookings, newHome, postBooking, stays, useStay } from './support';

/**
 * A visitor whose connection dropped sends the booking again with the same Idempotency-Key: the first answer
 * comes back (the same reference and stay address), not `400 unavailable` for the nights the first one holds.
 */

const ctx = useStay();
const next = stays(40);

describe('POST /bookings with an Idempotency-Key', () => {
  it('replays the first booking to a retry: one booking, the same reference and stay address', async () => {
    const home = await newHome(ctx);
    const [checkIn, checkOut] = next();
    const body = bookingBody(home, checkIn, checkOut);
    const headers = { 'Idempotency-Key': crypto.randomUUID() };
    const first = await postBooking(ctx, body, { headers });
    expect(first.status).toBe(201);
    const retry = await postBooking(ctx, body, { headers });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    expect(retry.json.reference).toBe(first.json.reference);
    expect(retry.json.stay_url).toBe(first.json.stay_url);
    // The page on the key's origin can read the replay, as it read the first answer.
    expect(retry.headers.get('Access-Control-Allow-Origin')).toBe(first.headers.get('Access-Control-Allow-Origin'));
    expect(await countBookings(ctx, home)).toBe(1);
  });

  it('without the key, the same request sent again is refused: the first holds the nights', async () => {
    const home = await newHome(ctx);
    const [checkIn, checkOut] = next();
    const body = bookingBody(home, checkIn, checkOut);
    expect((await postBooking(ctx, body)).status).toBe(201);
    const again = await postBooking(ctx, body);
    expect(again.status).toBe(400);
    expect(again.json.code).toBe('unavailable');
  });

  it('gives 20 concurrent identical requests one booking', async () => {
    const home = await newHome(ctx);
    const [checkIn, checkOut] = next();
    const body = bookingBody(home, checkIn, checkOut);
    const headers = { 'Idempotency-Key': crypto.randomUUID() };
    const answers = await Promise.all(Array.from({ length: 20 }, () => postBooking(ctx, body, { headers })));
    for (const answer of answers) expect([201, 409]).toContain(answer.status);
    expect(new Set(answers.filter((a) => a.status === 201).map((a) => a.json.reference)).size).toBe(1);
    expect(await countBookings(ctx, home)).toBe(1);
  });
});
