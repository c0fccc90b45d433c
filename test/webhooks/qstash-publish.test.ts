import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { accepted, base, qstashTestApi } from './qstash-support';
import { deliveriesOf, record, webhooksAdmin } from './support';

/** The QStash adapter's publishing, checked against a loopback server that records what QStash receives. */
let t: Awaited<ReturnType<typeof qstashTestApi>>;
beforeAll(async () => {
  t = await qstashTestApi();
});
afterAll(() => t.close());

describe('publishing to QStash', () => {
  it('publishes each new delivery after the write commits, as QStash expects it', async () => {
    const before = t.publishes().length;
    const hooks = webhooksAdmin(t.api, t.company.id);
    const [subscription] = (await hooks.list()).data?.results ?? [];
    const ping = await hooks.ping(subscription?.id as string);
    expect(ping.response.status).toBe(202);
    const sent = t.publishes().slice(before);
    expect(sent).toHaveLength(1);
    const [request] = sent;
    const id = ping.data?.id as string;
    expect(request!.path).toBe(`/v2/publish/${base}/internal/v1/deliveries/${id}`);
    expect(request!.headers).toMatchObject({
      authorization: 'Bearer qstash-test-token',
      'content-type': 'application/json',
      'upstash-method': 'POST',
      'upstash-deduplication-id': id,
      'upstash-retries': '9',
      'upstash-timeout': '30s',
      'upstash-forward-x-delivery-id': id,
      'upstash-forward-x-event-type': 'ping',
    });
    // The retry delay is our schedule: 5 s (+ jitter) after the first attempt, 24 h (+ jitter) before the last.
    const delay = request!.headers['upstash-retry-delay']!;
    const at = (retried: number) => Function('retried', 'max', 'abs', `return ${delay}`)(retried, Math.max, Math.abs) as number;
    expect(at(0)).toBeGreaterThanOrEqual(5_000);
    // A jitter just under 10 % rounds to the whole 10 % (5,500 ms): about one delivery id in a thousand.
    expect(at(0)).toBeLessThanOrEqual(5_500);
    expect(at(8)).toBeGreaterThanOrEqual(86_400_000);
    expect(JSON.parse(request!.body)).toEqual({ delivery_id: id });
    const [row] = await deliveriesOf(t.api, ping.data?.event_id as string);
    expect(row?.published_at).not.toBeNull();
    expect(t.subscriber.requests).toHaveLength(0);
  });

  it('republishes from the scheduled sweep what a crash between commit and publish left behind', async () => {
    const before = t.publishes().length;
    // Committed by a transaction whose process "died" before the hand-off: nothing was published.
    const eventId = await record(t.api, t.company.id, 'lead.created');
    expect(t.publishes()).toHaveLength(before);
    const [delivery] = await deliveriesOf(t.api, eventId);
    expect(delivery?.published_at).toBeNull();
    const report = await runScheduledWork(t.api.platform.services());
    expect(report.outbox).toMatchObject({ deliveries_published: 1 });
    expect(
      t
        .publishes()
        .slice(before)
        .map((r) => r.headers['upstash-deduplication-id']),
    ).toEqual([delivery!.id]);
    const event = await t.api.db.selectFrom('events').select('published_at').where('id', '=', eventId).executeTakeFirstOrThrow();
    expect(event.published_at).not.toBeNull();
    await runScheduledWork(t.api.platform.services());
    expect(t.publishes()).toHaveLength(before + 1);
  });

  it('keeps the delivery for the sweep when QStash is down, and republishes what QStash gave up on', async () => {
    t.qstash.respond(() => ({ status: 500 }));
    const eventId = await record(t.api, t.company.id, 'lead.created');
    await t.api.platform.webhooks.transport.handOff(t.api.db, t.api.platform.webhooks);
    const [delivery] = await deliveriesOf(t.api, eventId);
    expect(delivery?.published_at).toBeNull();
    t.qstash.respond(accepted);
    await runScheduledWork(t.api.platform.services());
    expect((await deliveriesOf(t.api, eventId))[0]?.published_at).not.toBeNull();
    // QStash's retries ran out after 4 attempts (a plan with fewer retries), 20 minutes ago.
    const stale = new Date(Date.now() - 20 * 60_000);
    await t.api.db
      .updateTable('webhook_deliveries')
      .set({ attempt_count: 4, published_at: stale, next_attempt_at: stale })
      .where('id', '=', delivery!.id)
      .execute();
    const before = t.publishes().length;
    const report = await runScheduledWork(t.api.platform.services());
    expect(report.outbox).toMatchObject({ deliveries_republished: 1 });
    const [again] = t.publishes().slice(before);
    expect(again!.headers['upstash-deduplication-id']).toMatch(new RegExp(`^${delivery!.id}-4-\\d+$`));
    expect(again!.headers['upstash-retries']).toBe('5');
  });
});
