import type { AddressInfo } from 'node:net';
import { type ServerType, serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPropertyApiClient } from '../../clients/typescript/src/index';
import { syncContacts } from '../../examples/crm-sync/sync';
import { createTestApi, type TestApi } from '../support/harness';
import { createKey, demoCompany } from '../support/world';

/**
 * The typed client (clients/typescript) against the real API served over loopback HTTP. The company answers on a
 * loopback address of its own (127.x.y.z, all of 127/8 is this machine), so the client's requests carry that host
 * as a browser's or a server's would, with no Host header set by hand.
 */
let api: TestApi;
let server: ServerType;
let baseUrl: string;
let company: { id: string };
beforeAll(async () => {
  api = await createTestApi();
  const byte = () => 1 + Math.floor(Math.random() * 254);
  const address = `127.${byte()}.${byte()}.${byte()}`;
  company = await demoCompany(api, { team_module: true }, { hosts: [address] });
  const port = await new Promise<number>((resolve) => {
    server = serve({ fetch: api.app.fetch, port: 0, hostname: address }, (info: AddressInfo) => resolve(info.port));
  });
  baseUrl = `http://${address}:${port}/`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await api.close();
});

describe('the typed client', () => {
  it('reads the catalogue with a publishable key, which it sends with forms (POST) only', async () => {
    const { secret } = await createKey(api, company.id, {
      kind: 'publishable',
      origins: ['https://site.example'],
      lead_types: ['enquiry'],
    });
    const client = createPropertyApiClient({ baseUrl, publishableKey: secret });
    // A read carrying a publishable key would be refused (403 key_wrong_kind): these pass because it is left off.
    const list = await client.GET('/api/v1/listings', { params: { query: { type: 'sale', page_size: 2 } } });
    expect(list.response.status, JSON.stringify(list.error)).toBe(200);
    expect(list.data?.results.length).toBe(2);
    const slug = list.data?.results[0]?.slug.en ?? '';
    const one = await client.GET('/api/v1/listings/{slug}', { params: { path: { slug } } });
    expect(one.data && 'listing_type' in one.data ? one.data.listing_type : undefined).toBe('sale');
    // A form without an Origin (no page sent it): refused for the origin, so the key went with the POST.
    const form = await client.POST('/api/v1/leads', {
      body: { consent: true, consent_version: 'v1', challenge: 'x', website: '', email: 'a@example.com' },
    });
    expect(form.response.status).toBe(403);
    expect(form.error?.code).toBe('origin_not_allowed');
  });

  it('calls server-key routes and gives a refusal as a typed Problem', async () => {
    const { secret } = await createKey(api, company.id, { scopes: ['read:contacts', 'write:contacts'] });
    const client = createPropertyApiClient({ baseUrl, serverKey: secret });
    const created = await client.POST('/api/v1/contacts', { body: { name: 'Client Test', email: 'client@example.com' } });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    const reference = created.data?.reference ?? '';
    const read = await client.GET('/api/v1/contacts/{reference}', { params: { path: { reference } } });
    expect(read.data?.email).toBe('client@example.com');

    const { secret: reader } = await createKey(api, company.id, { scopes: ['read:leads'] });
    const refused = await createPropertyApiClient({ baseUrl, serverKey: reader }).GET('/api/v1/contacts');
    expect(refused.response.status).toBe(403);
    expect(refused.error?.code).toBe('scope_missing');
    expect(refused.error?.request_id).toBe(refused.response.headers.get('Request-Id'));
  });

  it('runs the CRM sync example: every person once, the CRM id written back once', async () => {
    const { secret } = await createKey(api, company.id, { scopes: ['read:contacts', 'write:contacts'] });
    const client = createPropertyApiClient({ baseUrl, serverKey: secret });
    for (const n of [1, 2, 3]) {
      const res = await client.POST('/api/v1/contacts', { body: { name: `Sync ${n}`, email: `sync${n}@example.com` } });
      expect(res.response.status).toBe(201);
    }
    const crm = { source: 'test-crm', upsert: async (c: { reference: string }) => `crm-${c.reference}` };
    const first = await syncContacts(client, crm);
    expect(first.synced).toBeGreaterThanOrEqual(3);
    expect(first.linked).toBe(first.synced);
    const again = await syncContacts(client, crm, first.since);
    expect(again.linked).toBe(0);
    const listed = await client.GET('/api/v1/contacts', { params: { query: { page_size: 100 } } });
    const someone = listed.data?.results.find((c) => c.email === 'sync2@example.com');
    const found = await client.GET('/api/v1/contacts', {
      params: { query: { external: `${crm.source}:crm-${someone?.reference}` } },
    });
    expect(found.data?.results.map((c) => c.reference)).toEqual([someone?.reference]);
  });
});
