import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recoveryBatch } from '../../lib/webhooks/deliveries';
import { maxAttempts } from '../../lib/webhooks/schedule';
import type { Scope } from '../../schema/common/scopes';
import { createTestApi, type TestApi } from '../support/harness';
import { createCompany, createKey } from '../support/world';
import { dispatch, fixtures, type Received, record, verify, webhooksAdmin } from './support';

/**
 * Issue 38: an integration holding only a server key subscribes itself (`/api/v1/webhook-endpoints`), receives signed
 * events on a loopback receiver, rotates its secret, reads its deliveries, and recovers after an outage. Time is moved
 * (the dispatcher's clock), never waited for.
 */
let api: TestApi;
const { receiver, close } = fixtures(() => api);

beforeAll(async () => {
  api = await createTestApi({ ownDatabase: true });
});
afterAll(async () => {
  await close();
  await api.close();
});

const hour = 60 * 60 * 1000;
const webhookScopes: Scope[] = ['read:webhooks', 'write:webhooks'];

/** A company of its own (development unless said) and a server key holding `scopes`. */
async function integration(scopes: Scope[] = webhookScopes, environment = 'development') {
  const company = await createCompany(api, { environment });
  const key = await createKey(api, company.id, { scopes });
  // raw: the webhook-endpoint routes are new here; the generated clients get them at merge (npm run client:generate)
  const call = (path: string, o: { method?: string; body?: unknown; key?: string } = {}) =>
    api.request(`/api/v1/webhook-endpoints${path}`, { host: company.host, key: o.key ?? key.secret, ...o });
  return { company, key, call };
}

/** The webhook-ids a receiver accepted (answered 2xx), in order. */
const accepted = (requests: Received[], statuses: number[]) =>
  requests.filter((_, i) => (statuses[i] ?? 0) < 300).map((r) => r.headers['webhook-id']);

/**
 * Whether a delivery carries a signature made with `secret` (what `verify` checks, without its 5-minute tolerance
 * of the wall clock: these deliveries were signed at the dispatcher's moved time); its event when it does.
 */
function signedWith(secret: string, request: Received) {
  const id = request.headers['webhook-id'] as string;
  const at = new Date(Number(request.headers['webhook-timestamp']) * 1000);
  const signature = new Webhook(secret).sign(id, at, request.body);
  return request.headers['webhook-signature']?.split(' ').includes(signature) ? JSON.parse(request.body) : null;
}

/** A receiver whose answers the test switches, remembering each status it gave. */
async function switchable(initial = 204) {
  let status = initial;
  const statuses: number[] = [];
  const hook = await receiver(() => {
    statuses.push(status);
    return { status };
  });
  return { hook, statuses, set: (next: number) => (status = next) };
}

describe('webhook endpoints of a server key', () => {
  it('subscribes, receives signed events, rotates its secret with both valid in the overlap, reads its deliveries', async () => {
    const { company, key, call } = await integration();
    const hook = await receiver();
    const made = await call('', { body: { url: `${hook.url}/in`, event_types: ['lead.created'] } });
    expect(made.status, made.text).toBe(201);
    const endpoint = made.json;
    expect(endpoint).toMatchObject({
      url: `${hook.url}/in`,
      event_types: ['lead.created'],
      enabled: true,
      disabled_reason: null,
    });
    expect(endpoint.secret).toMatch(/^whsec_/);
    // The key that made it is recorded; the secret is never shown again.
    const keyRow = await api.db.selectFrom('api_keys').select('id').where('prefix', '=', key.prefix).executeTakeFirstOrThrow();
    expect(endpoint.created_by_key_id).toBe(keyRow.id);
    const read = await call(`/${endpoint.endpoint_id}`);
    expect(read.json).toEqual({ ...endpoint, secret: undefined });
    expect(read.text).not.toContain(endpoint.secret.slice(6));
    expect((await call('')).json.results.map((e: { endpoint_id: string }) => e.endpoint_id)).toEqual([endpoint.endpoint_id]);
    // The operator sees the same subscription (one table).
    const admin = await webhooksAdmin(api, company.id).list();
    expect(admin.data?.results).toEqual([expect.objectContaining({ id: endpoint.endpoint_id, created_by_key_id: keyRow.id })]);
    const audit = await webhooksAdmin(api, company.id).auditLog();
    expect(audit.data?.results).toContainEqual(
      expect.objectContaining({
        action: 'webhook_subscription.created',
        actor: `api:${key.prefix}`,
        subject: endpoint.endpoint_id,
      }),
    );

    const first = await record(api, company.id, 'lead.created');
    await dispatch(api);
    expect(hook.requests.map((r) => verify(endpoint.secret, r).id)).toEqual([first]);

    const rotated = await call(`/${endpoint.endpoint_id}/rotate-secret`, { method: 'POST' });
    expect(rotated.status, rotated.text).toBe(200);
    const { secret } = rotated.json;
    expect(secret).not.toBe(endpoint.secret);
    const overlapEnds = Date.parse(rotated.json.previous_secret_expires_at);
    const second = await record(api, company.id, 'lead.created');
    await dispatch(api);
    const during = hook.requests[1]!;
    // Within the overlap each delivery verifies with either secret.
    expect(verify(secret, during).id).toBe(second);
    expect(verify(endpoint.secret, during).id).toBe(second);
    // After it, only with the new one.
    const third = await record(api, company.id, 'lead.created');
    await dispatch(api, new Date(overlapEnds + 1000));
    const after = hook.requests[2]!;
    expect(signedWith(secret, after)?.id).toBe(third);
    expect(signedWith(endpoint.secret, after)).toBeNull();
    expect(signedWith(endpoint.secret, during)?.id).toBe(second);

    const deliveries = await call(`/${endpoint.endpoint_id}/deliveries`);
    expect(deliveries.status, deliveries.text).toBe(200);
    expect(deliveries.json.results.map((d: { event_id: string }) => d.event_id)).toEqual([third, second, first]);
    expect(deliveries.json.results[0]).toMatchObject({
      endpoint_id: endpoint.endpoint_id,
      status: 'succeeded',
      recovered_at: null,
    });
    expect(deliveries.json.results[0].attempts).toEqual([expect.objectContaining({ attempt: 1, status_code: 204 })]);
    // Keyset pages, newest first, and the time filters.
    const page = await call(`/${endpoint.endpoint_id}/deliveries?page_size=2`);
    const rest = await call(`/${endpoint.endpoint_id}/deliveries?page_size=2&cursor=${page.json.next_cursor}`);
    expect([...page.json.results, ...rest.json.results].map((d: { delivery_id: string }) => d.delivery_id)).toEqual(
      deliveries.json.results.map((d: { delivery_id: string }) => d.delivery_id),
    );
    expect(rest.json.next_cursor).toBeNull();
    const secondMade = deliveries.json.results[1].created_at as string;
    const since = await call(`/${endpoint.endpoint_id}/deliveries?created_since=${secondMade}`);
    expect(since.json.results.map((d: { event_id: string }) => d.event_id)).toEqual([third, second]);
    const before = await call(`/${endpoint.endpoint_id}/deliveries?created_before=${secondMade}`);
    expect(before.json.results.map((d: { event_id: string }) => d.event_id)).toEqual([first]);
    expect((await call(`/${endpoint.endpoint_id}/deliveries?status=failed`)).json.results).toEqual([]);
    expect((await call(`/${endpoint.endpoint_id}/deliveries?created_since=yesterday`)).json.errors[0].path).toBe('created_since');

    const changed = await call(`/${endpoint.endpoint_id}`, { method: 'PATCH', body: { event_types: ['*'], description: 'all' } });
    expect(changed.json).toMatchObject({ event_types: ['*'], description: 'all' });
    expect((await call(`/${endpoint.endpoint_id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await call(`/${endpoint.endpoint_id}`)).status).toBe(404);
  });

  it('recovers after an outage: the endpoint disabled, enabled again, every failed delivery sent again once', async () => {
    const { company, call } = await integration();
    const { hook, statuses, set } = await switchable();
    const endpoint = (await call('', { body: { url: `${hook.url}/in` } })).json;
    // Another endpoint of the company hears that the first was disabled.
    const watcher = await receiver();
    const watching = (await call('', { body: { url: `${watcher.url}/w`, event_types: ['webhook_endpoint.disabled'] } })).json;

    const before = await record(api, company.id, 'lead.created');
    await dispatch(api);
    set(503);
    const outageStart = new Date(Date.now() - 1);
    const during = [
      await record(api, company.id, 'lead.created'),
      await record(api, company.id, 'deal.won'),
      await record(api, company.id, 'job.done'),
    ];
    // Every attempt of the schedule fails: each round 27 hours after the last (the longest wait, 24 h, with its 10 % jitter), so every retry is due.
    let at = Date.now();
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      await dispatch(api, new Date(at));
      at += 27 * hour;
    }
    const failed = await call(`/${endpoint.endpoint_id}/deliveries?status=failed`);
    expect(failed.json.results.map((d: { event_id: string }) => d.event_id).sort()).toEqual([...during].sort());
    expect(failed.json.results.every((d: { attempts: unknown[] }) => d.attempts.length === maxAttempts)).toBe(true);

    // Nothing was delivered since the first of them was made: disabled, with its reason, and announced.
    const disabled = (await call(`/${endpoint.endpoint_id}`)).json;
    expect(disabled).toMatchObject({ enabled: false, disabled_reason: 'failing' });
    await dispatch(api, new Date(at));
    expect(watcher.requests.map((r) => signedWith(watching.secret, r))).toEqual([
      expect.objectContaining({
        type: 'webhook_endpoint.disabled',
        caused_by: 'system',
        data: { endpoint_id: endpoint.endpoint_id },
      }),
    ]);
    expect((await call(`/${endpoint.endpoint_id}/recover`, { body: { since: outageStart.toISOString() } })).status).toBe(409);

    // The integration's side is fixed: enabled again (the reason cleared), then recovered.
    set(204);
    const enabled = await call(`/${endpoint.endpoint_id}`, { method: 'PATCH', body: { enabled: true } });
    expect(enabled.json).toMatchObject({ enabled: true, disabled_reason: null });
    const recovered = await call(`/${endpoint.endpoint_id}/recover`, { body: { since: outageStart.toISOString() } });
    expect(recovered.status, recovered.text).toBe(200);
    expect(recovered.json).toEqual({ recovered: during.length, more: false });
    // A second call sends nothing again.
    expect((await call(`/${endpoint.endpoint_id}/recover`, { body: { since: outageStart.toISOString() } })).json).toEqual({
      recovered: 0,
      more: false,
    });
    await dispatch(api);
    // Nothing lost, nothing twice: each event accepted exactly once, each signed with the endpoint's secret.
    const got = accepted(hook.requests, statuses);
    expect(got.sort()).toEqual([before, ...during].sort());
    for (const request of hook.requests) expect(signedWith(endpoint.secret, request)?.id).toBe(request.headers['webhook-id']);
    const log = (await call(`/${endpoint.endpoint_id}/deliveries?status=failed`)).json.results;
    expect(log.every((d: { recovered_at: string | null }) => d.recovered_at !== null)).toBe(true);
    const audit = await webhooksAdmin(api, company.id).auditLog();
    const recoveries = audit.data?.results.filter((r) => r.action === 'webhook_subscription.recovered') ?? [];
    expect(recoveries.map((r) => (r.details as { recovered: number }).recovered).sort()).toEqual([0, during.length]);
  });

  it('keeps an endpoint enabled when something was delivered to it while one delivery failed for good', async () => {
    const { company, call } = await integration();
    let failing = '';
    const hook = await receiver((request) => ({ status: request.headers['webhook-id'] === failing ? 500 : 204 }));
    const endpoint = (await call('', { body: { url: `${hook.url}/in` } })).json;
    failing = await record(api, company.id, 'lead.created');
    let at = Date.now();
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      await dispatch(api, new Date(at));
      // Another event, delivered, after the failing one was made.
      if (attempt === 3) await record(api, company.id, 'lead.created');
      at += 27 * hour;
    }
    const failed = (await call(`/${endpoint.endpoint_id}/deliveries?status=failed`)).json.results;
    expect(failed.map((d: { event_id: string }) => d.event_id)).toEqual([failing]);
    expect((await call(`/${endpoint.endpoint_id}`)).json).toMatchObject({ enabled: true, disabled_reason: null });
  });

  it('disables an endpoint that answers 410 Gone, with the event', async () => {
    const { company, call } = await integration();
    const gone = await receiver(() => ({ status: 410 }));
    const endpoint = (await call('', { body: { url: `${gone.url}/in`, event_types: ['lead.created'] } })).json;
    const watcher = await receiver();
    const watching = (await call('', { body: { url: `${watcher.url}/w`, event_types: ['webhook_endpoint.disabled'] } })).json;
    await record(api, company.id, 'lead.created');
    await dispatch(api);
    expect((await call(`/${endpoint.endpoint_id}`)).json).toMatchObject({ enabled: false, disabled_reason: 'gone' });
    await dispatch(api);
    expect(watcher.requests.map((r) => verify(watching.secret, r).data)).toEqual([{ endpoint_id: endpoint.endpoint_id }]);
  });

  it(`recovers at most ${recoveryBatch} a call, says there are more, and never sends one twice`, async () => {
    const { company, call } = await integration();
    const endpoint = (await call('', { body: { url: 'http://127.0.0.1:9/in' } })).json;
    const event = await record(api, company.id, 'lead.created');
    // Failed deliveries of the past, made directly (one more than a call sends again).
    await sql`
      insert into webhook_deliveries (company_id, event_id, subscription_id, status, attempt_count, completed_at, created_at)
      select ${company.id}, ${event}, ${endpoint.endpoint_id}, 'failed', 10, now(), now() - make_interval(secs => n)
      from generate_series(1, ${recoveryBatch + 1}) as n`.execute(api.db);
    const since = new Date(Date.now() - 2 * 24 * hour).toISOString();
    expect((await call(`/${endpoint.endpoint_id}/recover`, { body: { since } })).json).toEqual({
      recovered: recoveryBatch,
      more: true,
    });
    expect((await call(`/${endpoint.endpoint_id}/recover`, { body: { since } })).json).toEqual({ recovered: 1, more: false });
    expect((await call(`/${endpoint.endpoint_id}/recover`, { body: { since } })).json).toEqual({ recovered: 0, more: false });
    const pending = await api.db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('subscription_id', '=', endpoint.endpoint_id)
      .where('status', '=', 'pending')
      .executeTakeFirstOrThrow();
    // The recovered ones and the event's own delivery.
    expect(Number(pending.n)).toBe(recoveryBatch + 1 + 1);
    for (const body of [{}, { since: 'yesterday' }, { since, extra: 1 }]) {
      const refused = await call(`/${endpoint.endpoint_id}/recover`, { body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
    }
  });

  it('lets the operator recover too (admin API), audited as the admin', async () => {
    const { company, call } = await integration();
    const endpoint = (await call('', { body: { url: 'http://127.0.0.1:9/in' } })).json;
    const event = await record(api, company.id, 'lead.created');
    await sql`
      insert into webhook_deliveries (company_id, event_id, subscription_id, status, attempt_count, completed_at)
      select ${company.id}, ${event}, ${endpoint.endpoint_id}, 'failed', 10, now() from generate_series(1, 2)`.execute(api.db);
    const path = `/companies/${company.id}/webhook-subscriptions/${endpoint.endpoint_id}/recover`;
    const since = new Date(Date.now() - hour).toISOString();
    // raw: the admin's recovery is new in this branch; the generated admin client gets it at merge
    const recovered = await api.admin(path, { body: { since } });
    expect(recovered.json).toEqual({ recovered: 2, more: false });
    // raw: as above
    expect((await api.admin(path, { body: { since } })).json).toEqual({ recovered: 0, more: false });
    const audit = await webhooksAdmin(api, company.id).auditLog();
    const rows = audit.data?.results.filter((r) => r.action === 'webhook_subscription.recovered') ?? [];
    const recoveries = rows.map((r) => `${r.actor}: ${(r.details as { recovered: number }).recovered}`);
    expect(recoveries.sort()).toEqual(['admin: 0', 'admin: 2']);
  });

  it('never shows or changes another company’s endpoints (404), nor a path that is no id', async () => {
    const mine = await integration();
    const theirs = await integration();
    const hook = await receiver();
    const endpoint = (await theirs.call('', { body: { url: `${hook.url}/in` } })).json;
    const since = new Date().toISOString();
    for (const id of [endpoint.endpoint_id, 'not-an-id']) {
      for (const [path, method, body] of [
        [`/${id}`, 'GET'],
        [`/${id}`, 'PATCH', { description: 'mine now' }],
        [`/${id}`, 'DELETE'],
        [`/${id}/rotate-secret`, 'POST'],
        [`/${id}/deliveries`, 'GET'],
        [`/${id}/recover`, 'POST', { since }],
      ] as const) {
        const res = await mine.call(path, { method, body });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
    }
    expect((await mine.call('')).json.results).toEqual([]);
    expect((await theirs.call(`/${endpoint.endpoint_id}`)).json).toMatchObject({ description: '', enabled: true });
  });

  it('asks for its scopes: read:webhooks reads, write:webhooks writes', async () => {
    const reader = await integration(['read:webhooks']);
    const writer = await integration(['write:webhooks']);
    const other = await integration(['read:leads']);
    const refused = [
      await reader.call('', { body: { url: 'http://127.0.0.1:9/in' } }),
      await writer.call(''),
      await other.call(''),
    ];
    for (const res of refused) {
      expect(res.status).toBe(403);
      expect(res.json.code).toBe('scope_missing');
    }
  });

  it('keeps the URL rules: a production workspace refuses loopback and private addresses', async () => {
    const { call } = await integration(webhookScopes, 'production');
    for (const url of ['https://127.0.0.1/in', 'https://10.0.0.8/in', 'http://hooks.example.com/in']) {
      const res = await call('', { body: { url } });
      expect(res.status, url).toBe(400);
      expect(res.json.errors).toEqual([expect.objectContaining({ path: 'url', code: 'url_not_allowed' })]);
    }
    expect((await call('', { body: { url: 'https://hooks.example.com/in' } })).status).toBe(201);
    expect((await call('')).json.results).toHaveLength(1);
  });
});
