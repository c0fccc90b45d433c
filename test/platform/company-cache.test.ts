import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { CompanyCache } from '../../lib/company-cache';
import { companyByHost } from '../../lib/tenancy';
import { testClient } from '../support/client';
import { createTestApi, openTestDatabase, statementLog, type TestApi } from '../support/harness';
import { adminOf, createCompany, demoCompany as newDemoCompany, useApi } from '../support/world';

/**
 * The Host → company rows kept in memory (lib/company-cache.ts): a change made by another process (here, SQL
 * straight on the database) is seen by the next request once its notification arrived, a change made through
 * this process's API at once, and a host or company removed stops answering.
 */

let statements: string[] = [];
const log = statementLog(() => statements);

const api = useApi({ handle: await openTestDatabase({ log }) });

const cache = () => api.platform.companyCache;

/** A page of 24 listings through the typed client without a key (`on` another API if given). */
const page = (host: string, headers: Record<string, string> = {}, on: TestApi = api) =>
  testClient(on, { host, headers }).GET('/api/v1/listings', { params: { query: { page_size: 24 } } });

async function listings(host: string, headers: Record<string, string> = {}) {
  statements = [];
  const res = await page(host, headers);
  return { ...res, statements };
}

/** A demo company, once this process has received the notifications its creation sent. */
async function demoCompany() {
  const company = await newDemoCompany(api);
  await cache().settled();
  return company;
}

/** Runs `change` (SQL straight on the database) and waits for the notification that names the company. */
async function changedOutside(companyId: string, change: () => Promise<unknown>) {
  const seen = cache().changed(companyId);
  await change();
  await seen;
}

describe('the Host → company rows in memory', () => {
  it('answers a second read from memory, and sees a listing changed by another process once notified', async () => {
    const company = await demoCompany();
    const first = await listings(company.host);
    expect(first.statements.some((s) => s.includes('company_hosts'))).toBe(true);
    const again = await listings(company.host, { 'If-None-Match': first.response.headers.get('etag') as string });
    expect(again.response.status).toBe(304);
    expect(again.statements).toEqual([]);

    const slug = first.data?.results[0]?.slug.en as string;
    await changedOutside(company.id, () =>
      api.db
        .updateTable('listings')
        .set({ status: 'withdrawn' })
        .where('company_id', '=', company.id)
        .where('slug_en', '=', slug)
        .execute(),
    );
    const after = await listings(company.host, { 'If-None-Match': first.response.headers.get('etag') as string });
    expect(after.response.status).toBe(200);
    expect(after.response.headers.get('etag')).not.toBe(first.response.headers.get('etag'));
    expect(after.data?.results.map((l) => l.slug.en)).not.toContain(slug);
  });

  it('sees settings changed by another process once notified, and by this process at once', async () => {
    const company = await demoCompany();
    const priced = (res: { data?: { results: Array<{ price: unknown }> } }) =>
      (res.data?.results ?? []).some((l) => l.price !== null);
    expect(priced(await listings(company.host))).toBe(true);
    await changedOutside(company.id, () =>
      api.db
        .updateTable('companies')
        .set({ settings: JSON.stringify({ team_module: true, hide_prices: true }) })
        .where('id', '=', company.id)
        .execute(),
    );
    expect(priced(await listings(company.host))).toBe(false);

    // Through the admin API of this process: the next request sees it without waiting for anything.
    const res = await adminOf(api).PATCH('/admin/v1/companies/{company_id}', {
      params: { path: { company_id: company.id } },
      body: { settings: { hide_prices: false } },
    });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(priced(await listings(company.host))).toBe(true);
  });

  it('stops answering on a host removed from its company, or a company removed, as soon as notified', async () => {
    const other = await createCompany(api);
    const company = await demoCompany();
    expect((await listings(company.host)).response.status).toBe(200);
    expect((await listings(company.host)).statements).toEqual([]);

    // Moved to another company: the host answers that company's catalogue (empty), never the first one's.
    await changedOutside(company.id, () =>
      api.db.updateTable('company_hosts').set({ company_id: other.id }).where('host', '=', company.host).execute(),
    );
    const moved = await listings(company.host);
    expect(moved.response.status).toBe(200);
    expect(moved.data?.results).toEqual([]);

    await changedOutside(other.id, () => api.db.deleteFrom('company_hosts').where('host', '=', company.host).execute());
    const removed = await listings(company.host);
    expect(removed.response.status).toBe(404);
    expect(removed.response.headers.get('content-type')).toContain('application/problem+json');

    expect((await listings(other.host)).response.status).toBe(200);
    await changedOutside(other.id, () => api.db.deleteFrom('companies').where('id', '=', other.id).execute());
    expect((await listings(other.host)).response.status).toBe(404);
  });

  it('gives a server key’s write and a visitor’s form their company from memory; after a write, the next request waits for its announcements', async () => {
    const company = await demoCompany();
    await listings(company.host);
    statements = [];
    const anonymous = testClient(api, { host: company.host });
    const write = await anonymous.POST('/api/v1/contacts', { body: {} as never });
    expect(write.error?.code).toBe('key_required');
    expect(statements).toEqual([]);
    // That write (refused, but a write) holds the rows back until a round trip on the listening connection came
    // back; a request begun meanwhile waits for it, then is served from memory rather than reading the row again.
    const [listed, form] = await Promise.all([
      anonymous.GET('/api/v1/listings'),
      anonymous.POST('/api/v1/leads', { body: {} as never }),
    ]);
    expect(listed.response.status).toBe(200);
    expect(form.error?.code).toBe('key_required');
    expect(statements.filter((s) => s.includes('company_hosts'))).toEqual([]);
    expect(cache().serving).toBe(true);
  });
});

describe('the TTL mode of Workers', () => {
  it('serves a row for the TTL, then asks again; a write of the isolate drops every row', async () => {
    const company = await createCompany(api);
    let at = 0;
    const ttl = new CompanyCache({ mode: 'ttl', ttlMs: 5_000, now: () => at });
    let loads = 0;
    const load = (host: string) => {
      loads++;
      return companyByHost(api.db, host);
    };
    expect((await ttl.lookup(company.host, load))?.id).toBe(company.id);
    at = 4_999;
    await ttl.lookup(company.host, load);
    expect(loads).toBe(1);
    at = 5_000;
    await ttl.lookup(company.host, load);
    expect(loads).toBe(2);
    ttl.afterWrite();
    await ttl.lookup(company.host, load);
    expect(loads).toBe(3);
    expect(await ttl.lookup('unknown.test', load)).toBeUndefined();
    expect(await ttl.lookup('unknown.test', load)).toBeUndefined();
    expect(loads).toBe(5);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('the listening connection on PostgreSQL', () => {
  it('stops serving from memory when the connection is lost, and serves again once it is back', async () => {
    const own = await createTestApi({ handle: await openTestDatabase({ log, own: true }) });
    try {
      const company = await newDemoCompany(own);
      await own.platform.companyCache.settled();
      const get = async () => {
        statements = [];
        const res = await page(company.host, {}, own);
        expect(res.response.status).toBe(200);
        return statements.filter((s) => s.includes('company_hosts')).length;
      };
      await get();
      expect(await get()).toBe(0);
      await own.platform.companyCache.settled();
      const dropped = own.platform.companyCache.changed();
      await sql`select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and application_name = 'company-cache-listener'`.execute(own.db);
      await dropped;
      expect(own.platform.companyCache.serving).toBe(false);
      expect(await get()).toBe(1);
      await own.platform.companyCache.listening();
      await get();
      expect(await get()).toBe(0);
    } finally {
      await own.close();
    }
  });
});
