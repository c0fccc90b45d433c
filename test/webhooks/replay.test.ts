import { describe, expect, it } from 'vitest';
import { dispatch, record, startReceiver, subscribe, verify } from './support';
import { createCompany, useApi } from '../support/world';

const api = useApi({ ownDatabase: true });

const subs = (companyId: string) => `/companies/${companyId}/webhook-subscriptions`;

describe('pings, replays and delivery logs', () => {
  it('sends a signed ping to one subscription, whatever types it takes', async () => {
    const own = await createCompany(api, { environment: 'development' });
    const receiver = await startReceiver();
    const sub = await subscribe(api, own.id, { url: receiver.url, event_types: ['deal.lost'] });
    const res = await api.admin(`${subs(own.id)}/${sub.id}/ping`, { method: 'POST' });
    expect(res.status).toBe(202);
    expect(res.json).toMatchObject({ event_type: 'ping', subscription_id: sub.id, status: 'pending', attempts: [] });
    await dispatch(api);
    const event = verify(sub.secret, receiver.requests[0]!);
    expect(event).toMatchObject({ id: res.json.event_id, type: 'ping', caused_by: 'admin', data: { subscription_id: sub.id } });
    await receiver.close();
  });

  it('replays an event with the same webhook-id, and lists deliveries per event and per subscription', async () => {
    const own = await createCompany(api, { environment: 'development' });
    const receiver = await startReceiver();
    const sub = await subscribe(api, own.id, { url: receiver.url, event_types: ['lease.ended'] });
    const other = await subscribe(api, own.id, { url: receiver.url, event_types: ['task.done'] });
    const id = await record(api, own.id, 'lease.ended');
    await dispatch(api);
    const replayed = await api.admin(`/companies/${own.id}/events/${id}/replay`, { body: { subscription_id: sub.id } });
    expect(replayed.status).toBe(202);
    await dispatch(api);
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([id, id]);
    const byEvent = await api.admin(`/companies/${own.id}/events/${id}/deliveries`);
    expect(byEvent.json.results.map((d: any) => [d.status, d.attempts.length, d.attempts[0].status_code])).toEqual([
      ['succeeded', 1, 204],
      ['succeeded', 1, 204],
    ]);
    const bySub = await api.admin(`${subs(own.id)}/${sub.id}/deliveries?page_size=1`);
    expect(bySub.json.results).toHaveLength(1);
    const next = await api.admin(`${subs(own.id)}/${sub.id}/deliveries?page_size=1&cursor=${bySub.json.next_cursor}`);
    expect([bySub.json.results[0].id, next.json.results[0].id].sort()).toEqual(byEvent.json.results.map((d: any) => d.id).sort());
    expect(next.json.next_cursor).toBeNull();
    const wrongType = await api.admin(`/companies/${own.id}/events/${id}/replay`, { body: { subscription_id: other.id } });
    expect(wrongType.status).toBe(409);
    const unknown = await api.admin(`/companies/${own.id}/events/evt_${'x'.repeat(24)}/replay`, {
      body: { subscription_id: sub.id },
    });
    expect(unknown.status).toBe(404);
    const listed = await api.admin(`/companies/${own.id}/events?type=lease.ended`);
    expect(listed.json.results.map((e: any) => e.id)).toEqual([id]);
    await receiver.close();
  });

  it('refuses pings and replays to a disabled subscription', async () => {
    const own = await createCompany(api, { environment: 'development' });
    const { id } = await subscribe(api, own.id, { url: 'http://127.0.0.1:9/off', enabled: false });
    expect((await api.admin(`${subs(own.id)}/${id}/ping`, { method: 'POST' })).status).toBe(409);
    const eventId = await record(api, own.id, 'lead.created');
    const replay = await api.admin(`/companies/${own.id}/events/${eventId}/replay`, { body: { subscription_id: id } });
    expect(replay.status).toBe(409);
    expect(replay.json.code).toBe('conflict');
  });
});
