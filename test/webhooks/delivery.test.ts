import { expectStampedSince } from '../support/times';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../../lib/events';
import { runScheduledWork } from '../../functions/jobs';
import { createWebhookRuntime } from '../../lib/webhooks/runtime';
import { createTestApi, type TestApi } from '../support/harness';
import { dispatch, fixtures, record, subscribe, verify, webhooksAdmin } from './support';
import { createKey } from '../support/world';

let api: TestApi;
const { receiver, setup, close } = fixtures(() => api);

beforeAll(async () => {
  api = await createTestApi({ ownDatabase: true });
});
afterAll(async () => {
  await close();
  await api.close();
});

describe('delivery to a subscriber on loopback', () => {
  it('signs every delivery so Webhook.verify accepts it, and the subscriber ignores the echo of its own key', async () => {
    const { company: own, hook, sub } = await setup();
    const mine = await createKey(api, own.id, { scopes: ['read:listings'] });
    const theirs = await createKey(api, own.id, { scopes: ['read:listings'] });
    const sent = [
      await record(api, own.id, 'contact.updated', `api:${mine.prefix}`),
      await record(api, own.id, 'contact.updated', `api:${theirs.prefix}`),
      await record(api, own.id, 'lead.created', 'website'),
      await record(api, own.id, 'lead.assigned', 'admin'),
    ];
    await dispatch(api);
    expect(hook.requests).toHaveLength(4);
    // The subscriber of the spec's sync loop: verify, then skip what its own key caused.
    const handled: string[] = [];
    for (const request of hook.requests) {
      const event = verify(sub.secret, request);
      expect(request.headers['webhook-id']).toBe(event.id);
      expect(Object.keys(event)).toEqual(['id', 'type', 'created_at', 'caused_by', 'data']);
      expect(request.headers['user-agent']).toMatch(/^PropertyAPI-Webhooks\//);
      expect(request.headers['content-type']).toBe('application/json');
      expect(() => verify(sub.secret, { ...request, body: request.body.replace('R-1', 'R-2') })).toThrow();
      if (event.caused_by !== `api:${mine.prefix}`) handled.push(event.id);
    }
    expect(new Set(hook.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set(sent));
    expect(handled.sort()).toEqual(sent.slice(1).sort());
  });

  it('delivers an event to a dispatcher whose clock reads the very millisecond the event was recorded in', async () => {
    // The database keeps microseconds, a JS Date milliseconds: the first attempt must be due at that Date.
    const { company: own, hook } = await setup();
    const id = await record(api, own.id, 'lead.created');
    const { created_at } = await api.db.selectFrom('events').select('created_at').where('id', '=', id).executeTakeFirstOrThrow();
    await dispatch(api, new Date(created_at));
    expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual([id]);
  });

  it('sends each subscription only the types it takes, and nothing to a disabled one', async () => {
    const { company: own, hook } = await setup(undefined, { event_types: ['lead.created'] });
    const off = await receiver();
    await subscribe(api, own.id, { url: off.url, enabled: false });
    const lead = await record(api, own.id, 'lead.created');
    await record(api, own.id, 'contact.created');
    await dispatch(api);
    expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual([lead]);
    expect(off.requests).toHaveLength(0);
  });

  it('never delivers the event of a rolled-back transaction (and delivers the committed one)', async () => {
    const { company: own, hook } = await setup();
    await expect(
      api.db.transaction().execute(async (trx) => {
        await recordEvent(trx, { companyId: own.id, type: 'lead.created', causedBy: 'website', data: { reference: 'ROLLED' } });
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    const committed = await record(api, own.id, 'lead.created', 'website', { reference: 'KEPT' });
    await dispatch(api, new Date(Date.now() + 86_400_000));
    expect(hook.requests.map((r) => JSON.parse(r.body).data.reference)).toEqual(['KEPT']);
    expect(hook.requests[0]!.headers['webhook-id']).toBe(committed);
    const rows = await api.db.selectFrom('webhook_deliveries').select('event_id').where('company_id', '=', own.id).execute();
    expect(rows.map((r) => r.event_id)).toEqual([committed]);
  });

  it('signs with the old and the new secret for 24 hours after a rotation, then with the new one only', async () => {
    const before = Date.now();
    const { company: own, hook, sub } = await setup();
    const rotated = await webhooksAdmin(api, own.id).rotateSecret(sub.id);
    expect(rotated.response.status).toBe(200);
    const fresh = rotated.data?.secret as string;
    expect(fresh).not.toBe(sub.secret);
    expectStampedSince(rotated.data?.previous_secret_expires_at as string, before, 86_400_000);
    await record(api, own.id, 'lead.created');
    await dispatch(api);
    const during = hook.requests[0]!;
    expect(during.headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(verify(sub.secret, during).type).toBe('lead.created');
    expect(verify(fresh, during).type).toBe('lead.created');
    // 24 hours later (moved in the database rather than in time).
    await api.db
      .updateTable('webhook_secrets')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('subscription_id', '=', sub.id)
      .where('expires_at', 'is not', null)
      .execute();
    await record(api, own.id, 'lead.created');
    await dispatch(api);
    const after = hook.requests[1]!;
    expect(after.headers['webhook-signature']?.split(' ')).toHaveLength(1);
    expect(verify(fresh, after).type).toBe('lead.created');
    expect(() => verify(sub.secret, after)).toThrow('No matching signature found');
  });

  it('keeps one delivery per event and subscription even when two dispatchers run at once', async () => {
    const { company: own, hook } = await setup(() => ({ status: 200, delayMs: 200 }));
    const ids = await Promise.all([1, 2, 3].map(() => record(api, own.id, 'lead.created')));
    await Promise.all([dispatch(api), dispatch(api), dispatch(api)]);
    expect(hook.requests.map((r) => r.headers['webhook-id']).sort()).toEqual([...ids].sort());
  });
  it('is delivered by the scheduled sweep where no dispatcher runs (a Worker without QStash), not where one does', async () => {
    const { company: own, hook } = await setup();
    const id = await record(api, own.id, 'task.done');
    const node = api.platform.services();
    const nodeReport = await runScheduledWork(node);
    expect(nodeReport.outbox).toMatchObject({ deliveries_attempted: 0 });
    expect(hook.requests).toHaveLength(0);
    const published = await api.db.selectFrom('events').select('published_at').where('id', '=', id).executeTakeFirstOrThrow();
    expect(published.published_at).not.toBeNull();
    // The runtime a Worker builds: the local transport without an in-process dispatcher.
    const worker = { ...node, webhooks: createWebhookRuntime(api.platform.config, { resolveHost: node.webhooks.resolveHost }) };
    await runScheduledWork(worker);
    expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual([id]);
  });
});
