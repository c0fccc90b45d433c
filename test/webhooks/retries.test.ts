import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retrySchedule } from '../../lib/webhooks/schedule';
import { createTestApi, type TestApi } from '../support/harness';
import { deliveriesOf, dispatch, fixtures, freePort, record, subscribe, verify, webhooksAdmin } from './support';
import { createCompany } from '../support/world';

/** Failed attempts: what is retried, on which schedule, and what ends a delivery. Time is moved, not waited. */
let api: TestApi;
const { receiver, setup, close } = fixtures(() => api);

beforeAll(async () => {
  // A short subscriber timeout, so the timeout test waits half a second rather than 15.
  api = await createTestApi({ env: { WEBHOOK_TIMEOUT_MS: '500' }, ownDatabase: true });
});
afterAll(async () => {
  await close();
  await api.close();
});

describe('retries', () => {
  it('delivers the same webhook-id after a retry when the subscriber was down, then up', async () => {
    const own = await createCompany(api, { environment: 'development' });
    const port = await freePort();
    const sub = await subscribe(api, own.id, { url: `http://127.0.0.1:${port}/hook` });
    const id = await record(api, own.id, 'lead.created');
    await dispatch(api);
    let [delivery] = await deliveriesOf(api, id);
    expect(delivery).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: null });
    expect(delivery?.last_error).toMatch(/^network error/);
    // Not due again before the 5 s (+ jitter) of the schedule.
    expect(await dispatch(api)).toBe(0);
    const hook = await receiver(() => ({ status: 200 }), port);
    await dispatch(api, new Date(Date.now() + 6_000));
    [delivery] = await deliveriesOf(api, id);
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 2, last_status_code: 200 });
    expect(hook.requests).toHaveLength(1);
    expect(hook.requests[0]!.headers['webhook-id']).toBe(id);
    expect(verify(sub.secret, hook.requests[0]!).id).toBe(id);
    const log = await webhooksAdmin(api, own.id).eventDeliveries(id);
    expect(log.data?.results[0]?.attempts.map((a) => [a.attempt, a.status_code])).toEqual([
      [1, null],
      [2, 200],
    ]);
    expect(log.data?.results[0]?.attempts[0]?.error).toMatch(/ECONNREFUSED/);
  });

  it('retries a 5xx, a 429, a timeout and a 3xx (never following the redirect), each logged', async () => {
    const answers = [
      { status: 503 },
      { status: 429 },
      { status: 200, delayMs: 1500 },
      { status: 302, headers: { location: '/elsewhere' } },
    ];
    const { company: own, hook } = await setup((_, i) => answers[i] ?? { status: 200 });
    const id = await record(api, own.id, 'lead.created');
    let at = Date.now();
    for (let attempt = 1; attempt <= 4; attempt++) {
      await dispatch(api, new Date(at));
      const [delivery] = await deliveriesOf(api, id);
      expect(delivery?.status).toBe('pending');
      at = new Date(delivery!.next_attempt_at!).getTime();
    }
    const attempts = await api.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', '=', (await deliveriesOf(api, id))[0]!.id)
      .orderBy('attempt')
      .execute();
    expect(attempts.map((a) => a.status_code)).toEqual([503, 429, null, 302]);
    expect(attempts[2]!.error).toBe('timed out after 500 ms');
    expect(hook.requests.map((r) => r.path)).toEqual(['/hook', '/hook', '/hook', '/hook']);
  });

  it('follows the schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h, + 0–10 % jitter), then fails', async () => {
    const { company: own, hook } = await setup(() => ({ status: 500 }));
    const id = await record(api, own.id, 'lead.created');
    let at = Date.now();
    const waits: number[] = [];
    for (let attempt = 1; attempt <= 10; attempt++) {
      await dispatch(api, new Date(at));
      const [delivery] = await deliveriesOf(api, id);
      expect(delivery?.attempt_count).toBe(attempt);
      if (attempt < 10) {
        const next = new Date(delivery!.next_attempt_at!).getTime();
        waits.push(next - at);
        at = next;
      } else {
        expect(delivery).toMatchObject({ status: 'failed', next_attempt_at: null, last_status_code: 500 });
      }
    }
    waits.forEach((wait, i) => {
      const base = retrySchedule[i + 1]!;
      expect(wait).toBeGreaterThanOrEqual(base);
      expect(wait).toBeLessThanOrEqual(base * 1.1 + 1);
    });
    expect(hook.requests).toHaveLength(10);
    expect(new Set(hook.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([id]));
  });

  it('disables the subscription when the subscriber answers 410, and sends it nothing more', async () => {
    const { company: own, hook, sub } = await setup(() => ({ status: 410 }));
    const first = await record(api, own.id, 'lead.created');
    await dispatch(api);
    expect((await deliveriesOf(api, first))[0]).toMatchObject({ status: 'failed', attempt_count: 1, last_status_code: 410 });
    const hooks = webhooksAdmin(api, own.id);
    const shown = await hooks.get(sub.id);
    expect(shown.data).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    const audit = await hooks.auditLog({ action: 'webhook_subscription.disabled' });
    expect(audit.data?.results.map((e) => [e.actor, e.subject])).toEqual([['system', sub.id]]);
    const second = await record(api, own.id, 'lead.created');
    await dispatch(api, new Date(Date.now() + 86_400_000));
    expect(await deliveriesOf(api, second)).toHaveLength(0);
    expect(hook.requests).toHaveLength(1);
  });
});
