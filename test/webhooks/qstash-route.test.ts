import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base, keys, qstashTestApi } from './qstash-support';
import { deliveriesOf, record, startReceiver, subscribe, verify } from './support';
import { createCompany } from '../support/world';

/** The delivery route, called as QStash calls it: a JWT signed with the current or next signing key. */
let t: Awaited<ReturnType<typeof qstashTestApi>>;
beforeAll(async () => {
  t = await qstashTestApi();
});
afterAll(() => t.close());

describe('the delivery route QStash calls', () => {
  it('verifies the signature, delivers signed with the subscription secret, and answers 200', async () => {
    const eventId = await record(t.api, t.company.id, 'deal.won');
    const [delivery] = await deliveriesOf(t.api, eventId);
    const before = t.subscriber.requests.length;
    const res = await t.callback(delivery!.id);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ delivery_id: delivery!.id, status: 'succeeded' });
    const received = t.subscriber.requests.slice(before);
    expect(received).toHaveLength(1);
    expect(verify(t.subscription.secret, received[0]!)).toMatchObject({ id: eventId, type: 'deal.won' });
    // A duplicate call from QStash changes nothing.
    expect((await t.callback(delivery!.id, { key: keys.next })).json.status).toBe('succeeded');
    expect(t.subscriber.requests.length).toBe(before + 1);
  });

  it('answers 502 while the subscriber fails, so QStash retries; the retry carries the same webhook-id', async () => {
    const eventId = await record(t.api, t.company.id, 'deal.lost');
    const [delivery] = await deliveriesOf(t.api, eventId);
    const before = t.subscriber.requests.length;
    t.subscriber.respond(() => ({ status: 503 }));
    const failed = await t.callback(delivery!.id);
    expect(failed.status).toBe(502);
    expect(failed.headers.get('content-type')).toBe('application/problem+json');
    expect(failed.json.code).toBe('delivery_failed');
    t.subscriber.respond(() => ({ status: 204 }));
    const retried = await t.callback(delivery!.id);
    expect(retried.json.status).toBe('succeeded');
    expect(t.subscriber.requests.slice(before).map((r) => r.headers['webhook-id'])).toEqual([eventId, eventId]);
    expect((await deliveriesOf(t.api, eventId))[0]).toMatchObject({ status: 'succeeded', attempt_count: 2 });
  });

  it('answers 200 when the delivery failed for good (410), so QStash stops', async () => {
    const own = await createCompany(t.api, { environment: 'development' });
    const gone = await startReceiver(() => ({ status: 410 }));
    await subscribe(t.api, own.id, { url: gone.url });
    const [delivery] = await deliveriesOf(t.api, await record(t.api, own.id, 'job.done'));
    const res = await t.callback(delivery!.id);
    expect(res.json).toEqual({ delivery_id: delivery!.id, status: 'failed' });
    await gone.close();
  });

  it.each([
    ['a forged signature (another key)', { key: 'sig_forged_0123456789abcdef' }],
    ['an expired signature', { expiresIn: -120 }],
    ['a signature of another body', { bodyHash: createHash('sha256').update('{}').digest('base64url') }],
    ['no signature', { signature: null }],
    ['a malformed signature', { signature: 'not-a-jwt' }],
  ])('refuses %s with a 403 problem and attempts nothing', async (_, options) => {
    const [delivery] = await deliveriesOf(t.api, await record(t.api, t.company.id, 'task.done'));
    const before = t.subscriber.requests.length;
    const res = await t.callback(delivery!.id, options);
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.json.code).toBe('signature_invalid');
    expect(t.subscriber.requests.length).toBe(before);
    expect((await deliveriesOf(t.api, delivery!.event_id))[0]).toMatchObject({ status: 'pending', attempt_count: 0 });
  });

  it("refuses a signature made for another delivery's URL", async () => {
    const [delivery] = await deliveriesOf(t.api, await record(t.api, t.company.id, 'task.created'));
    const body = JSON.stringify({ delivery_id: delivery!.id });
    const signature = await t.qstashSignature(`${base}/internal/v1/deliveries/${randomUUID()}`, body);
    expect((await t.callback(delivery!.id, { signature })).status).toBe(403);
  });

  it('answers 200 "missing" for a delivery that no longer exists, and stays out of the public documents', async () => {
    const id = randomUUID();
    expect((await t.callback(id)).json).toEqual({ delivery_id: id, status: 'missing' });
    // raw: the OpenAPI documents themselves, paths the documents do not declare
    const docs = [(await t.api.request('/api/v1/openapi.json')).json, (await t.api.request('/admin/v1/openapi.json')).json];
    for (const doc of docs) expect(Object.keys(doc.paths).some((p) => p.includes('internal'))).toBe(false);
  });
});
