import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, type TestApi } from '../support/harness';
import { dispatch, type Receiver, record, startReceiver, subscribe, webhooksAdmin } from './support';
import { createCompany } from '../support/world';

let api: TestApi;
let dev: { id: string; host: string };
let prod: { id: string; host: string };
let hook: Receiver;

beforeAll(async () => {
  api = await createTestApi({ ownDatabase: true });
  dev = await createCompany(api, { environment: 'development' });
  prod = await createCompany(api, { environment: 'production' });
  hook = await startReceiver();
});
afterAll(async () => {
  await hook.close();
  await api.close();
});

/** The webhook admin routes of the development and the production company. */
const devHooks = () => webhooksAdmin(api, dev.id);
const prodHooks = () => webhooksAdmin(api, prod.id);

describe('webhook subscriptions (admin API)', () => {
  it('shows the whsec_ secret once and stores it only encrypted', async () => {
    const created = await devHooks().create({ url: `${hook.url}/a`, description: 'CRM sync' });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ url: `${hook.url}/a`, event_types: ['*'], enabled: true, description: 'CRM sync' });
    const secret = created.data?.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(atob(secret.slice(6))).toHaveLength(32);
    const listed = await devHooks().list();
    expect(listed.data?.results.map((s) => s.id)).toContain(created.data?.id);
    expect(JSON.stringify(listed.data)).not.toContain(secret.slice(6));
    expect(JSON.stringify((await devHooks().get(created.data?.id as string)).data)).not.toContain(secret.slice(6));
    const dump = await sql<{ t: string }>`select row_to_json(x)::text as t from (
        select s.*, encode(w.ciphertext, 'base64') as c, encode(w.ciphertext, 'escape') as e
        from webhook_subscriptions s join webhook_secrets w on w.subscription_id = s.id) x`.execute(api.db);
    for (const row of dump.rows) expect(row.t).not.toContain(secret.slice(6, 30));
  });

  it.each([
    [{ url: 'not a url' }, 'url'],
    [{ url: 'ftp://example.com/x' }, 'url'],
    [{ url: 'https://user:pw@example.com/x' }, 'url'],
    [{ url: 'https://example.com', event_types: ['lead.exploded'] }, 'event_types.0'],
    [{ url: 'https://example.com', event_types: ['*', 'lead.created'] }, 'event_types'],
    [{ url: 'https://example.com', event_types: [] }, 'event_types'],
    [{ url: 'https://example.com', secret: 'whsec_mine' }, 'secret'],
  ])('refuses %j naming %s', async (body, path) => {
    const res = await devHooks().create(body);
    expect(res.response.status).toBe(400);
    expect(res.response.headers.get('content-type')).toBe('application/problem+json');
    expect(res.error?.errors?.map((e) => e.path)).toContain(path);
  });

  it('refuses a description PostgreSQL cannot store with a 400, not a 500', async () => {
    const res = await devHooks().create({ url: hook.url, description: 'a\u0000b', enabled: false });
    expect(res.response.status).toBe(400);
    expect(res.error?.code).toBe('invalid_request');
  });

  it.each([
    'http://hooks.example.com/x',
    'https://127.0.0.1/x',
    'https://127.1.2.3:8443/x',
    'https://[::1]/x',
    'https://[::ffff:127.0.0.1]/x',
    'https://10.0.0.8/x',
    'https://192.168.1.10/x',
    'https://169.254.169.254/latest/meta-data',
    'https://[fd00::1]/x',
    'https://localhost/x',
    'https://api.localhost/x',
    'https://0x7f.1/x',
    // Issue 32: IPv6 forms embedding a loopback address, and a name that does not resolve.
    'https://[::127.0.0.1]/x',
    'https://[64:ff9b:1::7f00:1]/x',
    'https://[::ffff:0:7f00:1]/x',
    'https://[2002:7f00:1::]/x',
    'https://not-registered.invalid/x',
  ])('refuses %s on a production workspace', async (url) => {
    const res = await prodHooks().create({ url });
    expect(res.response.status).toBe(400);
    expect(res.error?.errors).toEqual([expect.objectContaining({ path: 'url', code: 'url_not_allowed' })]);
  });

  it('accepts public https URLs in production and loopback http URLs in development', async () => {
    // Created disabled: nothing is ever sent to these addresses.
    for (const url of ['https://hooks.example.com/in', 'https://8.8.8.8/in', 'https://[2606:4700::1111]/in']) {
      expect((await prodHooks().create({ url, enabled: false })).response.status, url).toBe(201);
    }
    for (const url of ['http://localhost:9/in', 'http://127.0.0.1:9/in', 'http://10.0.0.8/in']) {
      expect((await devHooks().create({ url, enabled: false })).response.status, url).toBe(201);
    }
  });

  it('refuses at delivery time a production URL that now points at loopback (no request is made)', async () => {
    const own = await createCompany(api, { environment: 'production' });
    const created = await subscribe(api, own.id, { url: 'https://8.8.8.8/in' });
    // As a DNS change would: the stored URL now reaches our own network.
    await api.db
      .updateTable('webhook_subscriptions')
      .set({ url: `https://127.0.0.1:${hook.port}/x` })
      .where('id', '=', created.id)
      .execute();
    const before = hook.requests.length;
    const id = await record(api, own.id, 'deal.won');
    await dispatch(api);
    const delivery = (await webhooksAdmin(api, own.id).eventDeliveries(id)).data?.results[0];
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 1 });
    expect(delivery?.attempts[0]?.error).toMatch(/^URL refused: /);
    expect(hook.requests.length).toBe(before);
  });

  it('updates the URL, the types and the state; re-enabling clears the reason; every change is audited', async () => {
    const { id } = await subscribe(api, dev.id, { url: `${hook.url}/b` });
    await api.db
      .updateTable('webhook_subscriptions')
      .set({ enabled: false, disabled_reason: 'gone' })
      .where('id', '=', id)
      .execute();
    const res = await devHooks().update(id, { url: `${hook.url}/c`, event_types: ['task.done'], enabled: true });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ url: `${hook.url}/c`, event_types: ['task.done'], enabled: true, disabled_reason: null });
    expect((await devHooks().update(id, { url: 'ftp://example.com/' })).response.status).toBe(400);
    expect((await prodHooks().update(id, { enabled: false })).response.status).toBe(404);
    const audit = await devHooks().auditLog({ page_size: 100 });
    const actions = audit.data?.results.filter((e) => e.subject === id).map((e) => e.action);
    expect(actions).toEqual(['webhook_subscription.updated', 'webhook_subscription.created']);
  });

  it('deletes a subscription with its deliveries; 404 afterwards and for unknown ids', async () => {
    const { id } = await subscribe(api, dev.id, { url: `${hook.url}/d`, event_types: ['job.done'] });
    await record(api, dev.id, 'job.done');
    expect((await devHooks().remove(id)).response.status).toBe(204);
    expect((await devHooks().get(id)).response.status).toBe(404);
    expect((await devHooks().remove(id)).response.status).toBe(404);
    const left = await api.db.selectFrom('webhook_deliveries').select('id').where('subscription_id', '=', id).execute();
    expect(left).toHaveLength(0);
    expect((await devHooks().get('not-a-uuid')).response.status).toBe(400);
  });
});

describe('the rebuild hook setting', () => {
  it('follows the workspace URL rules', async () => {
    const bad = await prodHooks().settings({ rebuild_hook_url: 'http://build.example.com/hook' });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.errors).toEqual([expect.objectContaining({ path: 'settings.rebuild_hook_url', code: 'url_not_allowed' })]);
    const good = await prodHooks().settings({ rebuild_hook_url: 'https://api.netlify.com/build_hooks/x' });
    expect((good.data?.settings as Record<string, unknown> | undefined)?.rebuild_hook_url).toBe(
      'https://api.netlify.com/build_hooks/x',
    );
    const cleared = await prodHooks().settings({ rebuild_hook_url: null });
    expect((cleared.data?.settings as Record<string, unknown> | undefined)?.rebuild_hook_url).toBeNull();
  });
});
