import { describe, expect, it } from 'vitest';
import { configProblems, loadConfig } from '../../lib/config';
import { connectStripe, duePayment, paymentLink, usePaymentsWorld } from './support';

/**
 * A Stripe that never answers (issue 34): the call is bounded (at most 15 s, `PAYMENT_PROVIDER_TIMEOUT_MS`), so the
 * link ends as `503 provider_unavailable` with nothing stored, instead of a request held open. The bound is an input:
 * this world's API waits 200 ms, so the test waits no wall-clock budget of its own.
 */
const t = usePaymentsWorld({ PAYMENT_PROVIDER_TIMEOUT_MS: '200' });
const { w } = t;

describe('a provider that never answers', () => {
  it('ends the link as 503 provider_unavailable within the bound, storing nothing; answered again, it works', async () => {
    await connectStripe(w);
    const due = await duePayment(w);
    const before = t.stripe.requests.length;
    t.stripe.state.hang = true;
    try {
      const { response, error } = await paymentLink(w, due);
      expect(response.status).toBe(503);
      expect(error?.code).toBe('provider_unavailable');
      expect(error?.detail).toMatch(/Stripe did not answer/);
    } finally {
      t.stripe.state.hang = false;
    }
    // Stripe was asked (and never answered); nothing of it was stored.
    expect(t.stripe.requests.length).toBe(before + 1);
    const stored = await w.api.db.selectFrom('payments').select('id').where('rent_payment_id', '=', due).execute();
    expect(stored).toEqual([]);
    const { response } = await paymentLink(w, due);
    expect(response.status).toBe(201);
  });

  it('is bounded at 15 s whatever the setting: a longer one is refused at start', () => {
    expect(loadConfig({}).PAYMENT_PROVIDER_TIMEOUT_MS).toBe(15_000);
    expect(configProblems({ PAYMENT_PROVIDER_TIMEOUT_MS: '15001' })).toEqual([
      expect.stringMatching(/^PAYMENT_PROVIDER_TIMEOUT_MS: .*from 50 to 15000/),
    ]);
  });
});
