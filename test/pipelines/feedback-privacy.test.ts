import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../clients/typescript/src/index';
import { markMissedViewings } from '../../functions/pipelines/viewings';
import { dispatchDue } from '../../lib/webhooks/local';
import type { TestClient } from '../support/client';
import { createTestApi } from '../support/harness';
import { world, type World } from '../support/world';
import { type Receiver, startReceiver, subscribe, verify } from '../webhooks/support';

/**
 * Viewing feedback never leaves the company in an event: after every kind of viewing event is recorded and
 * delivered to a real receiver, the feedback's text is in no event body, no delivery, no delivery attempt (the
 * delivery log), nothing the receiver got, and nothing the admin's event and delivery views show.
 */

let w: World;
let writes: TestClient;
let reads: TestClient;
let receiver: Receiver;
let subscription: { id: string; secret: string };
const feedback = `Private feedback ${Date.now()}: the kitchen was too small`;
const later = `Second thoughts ${Date.now()}: would pay less`;

beforeAll(async () => {
  // The dispatcher attempts every company's due deliveries: a database of this file alone.
  // A development workspace may send webhooks to a receiver on loopback.
  w = await world({ api: await createTestApi({ ownDatabase: true }), environment: 'development' });
  [writes, reads] = await Promise.all([w.clientWith(['write:pipelines']), w.clientWith(['read:pipelines'])]);
  receiver = await startReceiver();
  subscription = await subscribe(w.api, w.company.id, { url: `${receiver.url}/hooks`, event_types: ['*'] });
});
afterAll(async () => {
  await receiver?.close();
  await w?.api.close();
});

async function deliverAll() {
  for (let due = -1; due !== 0; ) due = await dispatchDue(w.api.db, w.api.platform.webhooks);
}

describe('viewing feedback', () => {
  it('is in no event, delivery, delivery log or received body, whatever the viewing’s events', async () => {
    const deal = await w.deal({ home: 'marina-gate-2br-sea-view' });
    const plan = async (time: string) =>
      (await writes.POST('/api/v1/viewings', { body: { deal: deal.reference, time } })).data?.reference ?? '';
    const patch = (reference: string, body: components['schemas']['ViewingPatch']) =>
      writes.PATCH('/api/v1/viewings/{reference}', { params: { path: { reference } }, body });
    const done = await plan('2030-01-01T10:00:00Z');
    const cancelled = await plan('2030-01-02T10:00:00Z');
    const missed = await plan('2020-01-01T10:00:00Z');
    // One after another: the later feedback of `done` is the one it keeps (sent together, they raced on PostgreSQL).
    const steps = [
      () => patch(done, { status: 'done', feedback }),
      () => patch(done, { feedback: later }),
      () => patch(cancelled, { feedback }),
      () => patch(missed, { feedback }),
    ];
    for (const step of steps) expect((await step()).response.status).toBe(200);
    expect((await patch(cancelled, { status: 'cancelled' })).response.status).toBe(200);
    expect(await markMissedViewings(w.api.db, new Date())).toContain(missed);
    await patch(missed, { status: 'done', feedback: later });
    await deliverAll();

    // The viewing's own read shows it (a server key of the company)...
    const read = await reads.GET('/api/v1/viewings/{reference}', { params: { path: { reference: done } } });
    expect(read.data?.feedback).toBe(later);
    // ...and every kind of viewing event was recorded and delivered.
    const events = await w.allEvents();
    const types = new Set(events.map((e) => e.type));
    for (const type of ['viewing.planned', 'viewing.updated', 'viewing.done', 'viewing.cancelled', 'viewing.missed']) {
      expect(types, type).toContain(type);
    }
    const received = receiver.requests.map((request) => verify(subscription.secret, request));
    expect(received.filter((e) => e.type.startsWith('viewing.')).length).toBe(
      events.filter((e) => e.type.startsWith('viewing.')).length,
    );

    const deliveries = await w.api.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('company_id', '=', w.company.id)
      .execute();
    const attempts = await w.api.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where(
        'delivery_id',
        'in',
        deliveries.map((d) => d.id),
      )
      .execute();
    expect(attempts.length).toBeGreaterThan(0);
    // As sent (parseAs text): the search below reads the answers' bytes, not what a parser makes of them.
    const adminEvents = await w.adminClient.GET('/admin/v1/companies/{company_id}/events', {
      params: { path: { company_id: w.company.id }, query: { page_size: 100 } },
      parseAs: 'text',
    });
    const adminDeliveries = await w.adminClient.GET(
      '/admin/v1/companies/{company_id}/webhook-subscriptions/{subscription_id}/deliveries',
      {
        params: { path: { company_id: w.company.id, subscription_id: subscription.id }, query: { page_size: 100 } },
        parseAs: 'text',
      },
    );
    expect(adminEvents.response.status).toBe(200);
    expect(adminDeliveries.response.status).toBe(200);
    const places = {
      events: JSON.stringify(events),
      deliveries: JSON.stringify(deliveries),
      attempts: JSON.stringify(attempts),
      received: JSON.stringify(receiver.requests),
      adminEvents: String(adminEvents.data),
      adminDeliveries: String(adminDeliveries.data),
    };
    for (const [place, json] of Object.entries(places)) {
      for (const text of [feedback, later, 'kitchen', 'would pay less'])
        expect(json.includes(text), `${place}: ${text}`).toBe(false);
    }
    // The search finds what is there: the viewings' references are in the events.
    expect(places.events).toContain(done);
  });
});
