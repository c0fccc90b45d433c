import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTurnstileVerifier } from '../support/turnstile';
import { adminOf } from '../support/world';
import { bookingBody, type Ctx, countBookings, day, postBooking, setup, villa } from './support';

/** POST /bookings on a production workspace: Cloudflare Turnstile's siteverify (a loopback verifier). */
describe('the spam check on a production workspace', () => {
  let verifier: Awaited<ReturnType<typeof startTurnstileVerifier>>;
  let prod: Ctx;

  beforeAll(async () => {
    verifier = await startTurnstileVerifier();
    prod = await setup({ environment: 'production', env: { TURNSTILE_SITEVERIFY_URL: verifier.url } });
    const res = await adminOf(prod.api).PUT('/admin/v1/companies/{company_id}/spam-check', {
      params: { path: { company_id: prod.company.id } },
      body: { secret: verifier.secret },
    });
    expect(res.response.status).toBe(200);
  });
  afterAll(async () => {
    await prod.api.close();
    await verifier.close();
  });

  it('books with a token Turnstile vouches for on the origin’s host, sending the visitor’s address', async () => {
    const token = verifier.issue('www.example.com');
    const res = await postBooking(prod, bookingBody(villa, day(40), day(44), { challenge: token }), {
      clientAddress: '198.51.100.4',
    });
    expect(res.status, res.text).toBe(201);
    expect(verifier.requests.at(-1)).toEqual({ secret: verifier.secret, response: token, remoteip: '198.51.100.4' });
  });

  it('refuses the development token, a used token and a token of another site with 403 challenge_failed, storing nothing', async () => {
    const used = verifier.issue('www.example.com');
    expect((await postBooking(prod, bookingBody(villa, day(50), day(54), { challenge: used }))).status).toBe(201);
    const before = await countBookings(prod);
    for (const challenge of [bookingBody(villa, day(1), day(2)).challenge, used, verifier.issue('other.example.org')]) {
      const res = await postBooking(prod, bookingBody(villa, day(60), day(64), { challenge }));
      expect(res.status).toBe(403);
      expect(res.json.code).toBe('challenge_failed');
    }
    expect(await countBookings(prod)).toBe(before);
  });

  it('does not use up the visitor’s token on dates the home cannot take', async () => {
    const token = verifier.issue('www.example.com');
    const asked = verifier.requests.length;
    const refused = await postBooking(prod, bookingBody(villa, day(70), day(71), { challenge: token }));
    expect(refused.json.code).toBe('min_nights');
    expect(verifier.requests.length).toBe(asked);
    expect((await postBooking(prod, bookingBody(villa, day(70), day(74), { challenge: token }))).status).toBe(201);
  });
});
