import { describe, expect, it } from 'vitest';
import { dispatch, record, startReceiver, subscribe, verify, webhooksAdmin } from './support';
import { createCompany, useApi } from '../support/world';

const api = useApi({ ownDatabase: true });

describe('pings, replays and delivery logs', () => {
  it('sends a signed ping to one subscription, whatever types it takes', async () => {
    const own = await createCompany(api, { environment: 'development' });
    const receiver = await startReceiver();
    const sub = await subscribe(api, own.id, { url: receiver.url, event_types: ['deal.lost'] });
    const res = await webhooksAdmin(api, own.id).ping(sub.id);
    expect(res.response.status).toBe(202);
    expect(res.data).toMatchObject({ event_type: 'ping', subscription_id: sub.id, status: 'pending', attempts: [] });
    await dispatch(api);
    const event = verify(sub.secret, receiver.requests[0]!);
    expect(event).toMatchObject({ id: res.data?.event_id, type: 'ping', caused_by: 'admin', data: { subscription_id: sub.id } });
    await receiver.close();
  });

  it('replays an event with the same webhook-id, and lists deliveries per event and per subscription', async () => {
    const own = await createCompany(api, { environment: 'development' });
    const receiver = await startReceiver();
    const sub = await subscribe(api, own.id, { url: receiver.url, event_types: ['lease.ended'] });
    const other = await subscribe(api, own.id, { url: receiver.url, event_types: ['task.done'] });
    const hooks = webhooksAdmin(api, own.id);
    const id = await record(api, own.id, 'lease.ended');
    await dispatch(api);
    const replayed = await hooks.replay(id, { subscription_id: sub.id });
    expect(replayed.response.status).toBe(202);
    await dispatch(api);
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([id, id]);
    const byEvent = await hooks.eventDeliveries(id);
    expect(byEvent.data?.results.map((d) => [d.status, d.attempts.length, d.attempts[0]?.status_code])).toEqual([
      ['succeeded', 1, 204],
      ['succeeded', 1, 204],
    ]);
    const bySub = await hooks.deliveries(sub.id, { page_size: 1 });
    expect(bySub.data?.results).toHaveLength(1);
    const next = await hooks.deliveries(sub.id, { page_size: 1, cursor: String(bySub.data?.next_cursor) });
    expect([bySub.data?.results[0]?.id, next.data?.results[0]?.id].sort()).toEqual(byEvent.data?.results.map((d) => d.id).sort());
    expect(next.data?.next_cursor).toBeNull();
    const wrongType = await hooks.replay(id, { subscription_id: other.id });
    expect(wrongType.response.status).toBe(409);
    const unknown = await hooks.replay(`evt_${'x'.repeat(24)}`, { subscription_id: sub.id });
    expect(unknown.response.status).toBe(404);
    const listed = await hooks.events({ type: 'lease.ended' });
    expect(listed.data?.results.map((e) => e.id)).toEqual([id]);
    await receiver.close();
  });

  it('refuses pings and replays to a disabled subscription', async () => {
    const own = await createCompany(api, { environment: 'development' });
    const { id } = await subscribe(api, own.id, { url: 'http://127.0.0.1:9/off', enabled: false });
    const hooks = webhooksAdmin(api, own.id);
    expect((await hooks.ping(id)).response.status).toBe(409);
    const eventId = await record(api, own.id, 'lead.created');
    const replay = await hooks.replay(eventId, { subscription_id: id });
    expect(replay.response.status).toBe(409);
    expect((replay.error as { code?: string } | undefined)?.code).toBe('conflict');
  });
});
