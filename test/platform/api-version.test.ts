import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiVersions, currentVersion, firstVersion } from '../../lib/versions';
import { adminCli, cliTimeout } from '../support/admin-cli';
import { createTestApi, type TestApi } from '../support/harness';
import { createCompany, createKey } from '../support/world';

/**
 * Issue 38, "Versions": a dated `Api-Version` request header; every answer says the version it was served at; a key is
 * pinned at creation to the current version (the keys made before, by the migration, to the first); a request's
 * header overrides the pin; an unknown or malformed version is a 400 at the header. One real difference (the default
 * page size of an endpoint's deliveries, lib/versions.ts) proves an answer changed in a later version stays as it was
 * for a key pinned earlier and for a request asking the earlier version.
 */
let api: TestApi;
let company: { id: string; host: string };

beforeAll(async () => {
  api = await createTestApi({ ownDatabase: true });
  company = await createCompany(api, { environment: 'development' });
});
afterAll(async () => {
  await api.close();
});

const [earlier, later] = apiVersions.map((v) => v.version) as [string, string];
const served = (res: { headers: Headers }) => res.headers.get('api-version');

describe('the versions', () => {
  it('are dated, the first is 2026-11-29 and the current one is the newest', () => {
    expect(firstVersion).toBe('2026-11-29');
    expect(earlier).toBe(firstVersion);
    expect(currentVersion).toBe(later);
    expect(later > earlier).toBe(true);
    for (const { version } of apiVersions) expect(version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });
});

describe('every answer says the version it was served at', () => {
  it('a public read, its 304, a refusal, an unknown route, the health check, the reference page', async () => {
    const read = await api.request('/api/v1/areas', { host: company.host });
    expect(read.status).toBe(200);
    expect(served(read)).toBe(currentVersion);
    // A page's script may read it: the public reads' CORS exposes it.
    expect(read.headers.get('access-control-expose-headers')).toContain('Api-Version');
    // A shared cache keeps one answer per version.
    expect(read.headers.get('vary')).toContain('Api-Version');
    const etag = read.headers.get('etag') as string;
    const notModified = await api.request('/api/v1/areas', { host: company.host, headers: { 'If-None-Match': etag } });
    expect(notModified.status).toBe(304);
    expect(served(notModified)).toBe(currentVersion);
    expect(notModified.headers.get('vary')).toContain('Api-Version');
    const asked = await api.request('/api/v1/areas', { host: company.host, headers: { 'Api-Version': earlier } });
    expect(served(asked)).toBe(earlier);
    const askedNotModified = await api.request('/api/v1/areas', {
      host: company.host,
      headers: { 'If-None-Match': etag, 'Api-Version': earlier },
    });
    expect([askedNotModified.status, served(askedNotModified)]).toEqual([304, earlier]);

    const refused = await api.request('/api/v1/contacts', { host: company.host, headers: { 'Api-Version': earlier } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(served(refused)).toBe(earlier);
    const unknownRoute = await api.request('/api/v1/no-such-thing', { host: company.host });
    expect([unknownRoute.status, served(unknownRoute)]).toEqual([404, currentVersion]);
    const health = await api.request('/health');
    expect([health.status, served(health)]).toEqual([200, currentVersion]);
    const page = await api.request('/api/v1/docs', { host: company.host, headers: { 'Api-Version': earlier } });
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(served(page)).toBe(earlier);
  });

  it('refuses a malformed or unknown version with a 400 at the header, changing nothing', async () => {
    const key = await createKey(api, company.id, { scopes: ['write:webhooks', 'read:webhooks'] });
    for (const [value, code] of [
      ['2026-11-28', 'unknown_version'],
      ['2099-01-01', 'unknown_version'],
      ['latest', 'invalid_format'],
      ['2026-11-29T00:00:00Z', 'invalid_format'],
      ['', 'invalid_format'],
    ] as const) {
      const res = await api.request('/api/v1/webhook-endpoints', {
        host: company.host,
        key: key.secret,
        headers: { 'Api-Version': value },
        body: { url: 'https://hooks.example.com/in' },
      });
      expect(res.status, value).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.json.code).toBe('invalid_request');
      expect(res.json.errors).toEqual([expect.objectContaining({ path: 'Api-Version', code })]);
      // The refusal itself is served at the current version.
      expect(served(res)).toBe(currentVersion);
    }
    const listed = await api.request('/api/v1/webhook-endpoints', { host: company.host, key: key.secret });
    expect(listed.json.results).toEqual([]);
  });
});

describe('a key is pinned', () => {
  it('to the current version when made; the keys made before versions to the first (the migration)', async () => {
    const key = await createKey(api, company.id, { scopes: ['read:webhooks'] });
    const keys = await api.admin(`/companies/${company.id}/keys`);
    expect(keys.json.results.find((k: { prefix: string }) => k.prefix === key.prefix).api_version).toBe(currentVersion);
    const res = await api.request('/api/v1/webhook-endpoints', { host: company.host, key: key.secret });
    expect([res.status, served(res)]).toEqual([200, currentVersion]);
    // A key row written without a version (as every key was before migration 0061) is pinned to the first.
    const { rows } = await sql<{ api_version: string }>`
      insert into api_keys (company_id, kind, prefix, name) values (${company.id}, 'server', 'sk_Premigrat', 'before')
      returning api_version`.execute(api.db);
    expect(rows[0]?.api_version).toBe(firstVersion);
  });

  it('the admin API changes the pin (audited); an unknown or malformed version is a 400 at api_version', async () => {
    const key = await createKey(api, company.id, { scopes: ['read:webhooks'] });
    const path = `/companies/${company.id}/keys/${key.prefix}`;
    const pinned = await api.admin(path, { method: 'PATCH', body: { api_version: earlier } });
    expect(pinned.status, pinned.text).toBe(200);
    expect(pinned.json).toMatchObject({ prefix: key.prefix, api_version: earlier });
    const res = await api.request('/api/v1/webhook-endpoints', { host: company.host, key: key.secret });
    expect(served(res)).toBe(earlier);
    // The request's header overrides the pin, for that request only.
    const asked = await api.request('/api/v1/webhook-endpoints', {
      host: company.host,
      key: key.secret,
      headers: { 'Api-Version': later },
    });
    expect(served(asked)).toBe(later);
    expect(served(await api.request('/api/v1/webhook-endpoints', { host: company.host, key: key.secret }))).toBe(earlier);

    for (const [value, code] of [
      ['2026-11-28', 'unknown_version'],
      ['soon', 'invalid_format'],
    ]) {
      const refused = await api.admin(path, { method: 'PATCH', body: { api_version: value } });
      expect(refused.status, value).toBe(400);
      expect(refused.json.errors).toEqual([expect.objectContaining({ path: 'api_version', code })]);
    }
    const unknownKey = await api.admin(`/companies/${company.id}/keys/sk_Nosuchkey0`, {
      method: 'PATCH',
      body: { api_version: later },
    });
    expect(unknownKey.status).toBe(404);
    const keys = await api.admin(`/companies/${company.id}/keys`);
    expect(keys.json.results.find((k: { prefix: string }) => k.prefix === key.prefix).api_version).toBe(earlier);
    const audit = await api.admin(`/companies/${company.id}/audit-log?action=key.version_pinned`);
    expect(audit.json.results).toEqual([
      expect.objectContaining({
        subject: key.prefix,
        details: expect.objectContaining({ api_version: earlier, previous_version: currentVersion }),
      }),
    ]);
  });
});

describe('the admin command line', () => {
  const cli = adminCli(() => api);

  it('shows a key’s pin and changes it', cliTimeout, async () => {
    const key = await createKey(api, company.id, { scopes: ['read:webhooks'] });
    const pinned = await cli('keys', 'version', company.id, key.prefix, earlier);
    expect(pinned).toMatchObject({ prefix: key.prefix, api_version: earlier });
    const listed = await cli('keys', 'list', company.id);
    expect(listed.results.find((k: { prefix: string }) => k.prefix === key.prefix).api_version).toBe(earlier);
    const res = await api.request('/api/v1/webhook-endpoints', { host: company.host, key: key.secret });
    expect(served(res)).toBe(earlier);
  });
});

describe('an answer changed in a later version stays as it was for the earlier one', () => {
  it('an endpoint’s deliveries: 20 a page by default at 2026-11-29, 50 at 2026-11-30', async () => {
    const own = await createCompany(api, { environment: 'development' });
    const key = await createKey(api, own.id, { scopes: ['read:webhooks', 'write:webhooks'] });
    const made = await api.request('/api/v1/webhook-endpoints', {
      host: own.host,
      key: key.secret,
      body: { url: 'https://hooks.example.com/in', enabled: false },
    });
    expect(made.status, made.text).toBe(201);
    const endpointId = made.json.endpoint_id;
    // 25 deliveries of 25 events of the company: more than the earlier default page, fewer than the later one.
    await sql`
      with made as (
        insert into events (id, company_id, type, caused_by, data)
        select 'evt_' || substr(md5(${endpointId} || n::text), 1, 24), ${own.id}, 'ping', 'test', '{}'::jsonb
        from generate_series(1, 25) as n
        returning id
      )
      insert into webhook_deliveries (company_id, event_id, subscription_id, next_attempt_at)
      select ${own.id}, id, ${endpointId}, now() from made`.execute(api.db);
    const total = 25;
    const page = (headers: Record<string, string> = {}, query = '') =>
      api.request(`/api/v1/webhook-endpoints/${endpointId}/deliveries${query}`, { host: own.host, key: key.secret, headers });

    // The key made now is pinned to the later version.
    const now = await page();
    expect([now.status, served(now)]).toEqual([200, later]);
    expect(now.json.results).toHaveLength(Math.min(total, 50));
    // A request asking the earlier version gets the earlier default.
    const before = await page({ 'Api-Version': earlier });
    expect(served(before)).toBe(earlier);
    expect(before.json.results).toHaveLength(20);
    expect(before.json.next_cursor).not.toBeNull();

    // A key pinned to the earlier version: the earlier default, unless a request asks the later one.
    await api.admin(`/companies/${own.id}/keys/${key.prefix}`, { method: 'PATCH', body: { api_version: earlier } });
    const pinned = await page();
    expect(served(pinned)).toBe(earlier);
    expect(pinned.json.results).toHaveLength(20);
    const askedLater = await page({ 'Api-Version': later });
    expect(askedLater.json.results).toHaveLength(Math.min(total, 50));
    // A page size given is the same at every version.
    expect((await page({}, '?page_size=7')).json.results).toHaveLength(7);
    expect((await page({ 'Api-Version': later }, '?page_size=7')).json.results).toHaveLength(7);
  });
});

describe('browsers and the document', () => {
  it('the forms’ preflight allows the header and their answers expose it', async () => {
    const origin = 'https://www.example.com';
    await createKey(api, company.id, { kind: 'publishable', origins: [origin] });
    const preflight = await api.request('/api/v1/leads', {
      method: 'OPTIONS',
      host: company.host,
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'x-api-key, content-type, api-version',
      },
    });
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('api-version');
    expect(preflight.headers.get('access-control-expose-headers')).toContain('Api-Version');
  });

  it('the OpenAPI document declares the request header on every operation and the answer header on every answer', async () => {
    const doc = (await api.request('/api/v1/openapi.json', { host: company.host })).json;
    expect(doc.components.parameters.ApiVersion).toMatchObject({ name: 'Api-Version', in: 'header', required: false });
    expect(doc.components.parameters.ApiVersion.schema.enum).toEqual(apiVersions.map((v) => v.version));
    expect(doc.components.headers.ApiVersion).toBeDefined();
    let operations = 0;
    for (const item of Object.values(doc.paths) as Record<string, any>[]) {
      for (const operation of Object.values(item)) {
        operations++;
        expect(operation.parameters).toContainEqual({ $ref: '#/components/parameters/ApiVersion' });
        for (const response of Object.values(operation.responses) as any[]) {
          if (!response.$ref) expect(response.headers['Api-Version']).toEqual({ $ref: '#/components/headers/ApiVersion' });
        }
      }
    }
    expect(operations).toBeGreaterThan(50);
    const admin = (await api.admin('/openapi.json')).json;
    const patch = admin.paths['/admin/v1/companies/{company_id}/keys/{prefix}'].patch;
    expect(patch.requestBody.content['application/json'].schema).toBeDefined();
  });
});
