import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { afterResponsesSettled } from '../../lib/request-lifecycle';
import { accepted, qstashTestApi } from './qstash-support';
import { deliveriesOf, webhooksAdmin } from './support';

/**
 * On Node the webhook hand-off (here a QStash publish) runs after the answer, in the background: a QStash that
 * does not answer yet must not hold the request's response. Calls the app directly (the harness's `request`
 * waits for the background on purpose).
 */
let t: Awaited<ReturnType<typeof qstashTestApi>>;
beforeAll(async () => {
  t = await qstashTestApi();
});
afterAll(() => t.close());

describe('the webhook hand-off on Node', () => {
  it('answers before QStash has accepted the publish, and publishes once it has', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    t.qstash.respond(async (request, i) => {
      await held;
      return accepted(request, i);
    });
    const [subscription] = (await webhooksAdmin(t.api, t.company.id).list()).data?.results ?? [];
    // raw: the app called directly; the typed client's fetch waits for the background hand-off, which this test holds
    const res = await t.api.app.request(
      `http://unknown.test/admin/v1/companies/${t.company.id}/webhook-subscriptions/${subscription?.id}/ping`,
      { method: 'POST', headers: { Authorization: `Bearer ${t.api.adminToken}` } },
    );
    expect(res.status).toBe(202);
    const { event_id: eventId } = (await res.json()) as { event_id: string };
    // Answered while the publish is still held: nothing is marked published yet.
    expect((await deliveriesOf(t.api, eventId))[0]?.published_at).toBeNull();
    release();
    await afterResponsesSettled();
    expect((await deliveriesOf(t.api, eventId))[0]?.published_at).not.toBeNull();
    t.qstash.respond(accepted);
  });
});
