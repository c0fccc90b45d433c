import { expectStampedSince } from '../support/times';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testClient } from '../support/client';
import { adminOf, createCompany, createKey, useApi, useDemoCompany } from '../support/world';

const api = useApi();
const company = useDemoCompany(api);

/** A read of one listing with `key` (the typed client on that key). */
const read = (key: string) =>
  testClient(api, { host: company.host, serverKey: key }).GET('/api/v1/listings', { params: { query: { page_size: 1 } } });
const companyPath = () => ({ params: { path: { company_id: company.id } } });
const keyPath = (prefix: string) => ({ params: { path: { company_id: company.id, prefix } } });
const keys = () => adminOf(api).GET('/admin/v1/companies/{company_id}/keys', companyPath());
const rotate = (prefix: string) => adminOf(api).POST('/admin/v1/companies/{company_id}/keys/{prefix}/rotate', keyPath(prefix));
const revoke = (prefix: string) => adminOf(api).POST('/admin/v1/companies/{company_id}/keys/{prefix}/revoke', keyPath(prefix));

describe('server keys', () => {
  it('shows the secret once, stores only its SHA-256 hash and a display prefix', async () => {
    const { secret, prefix } = await createKey(api, company.id, { scopes: ['read:listings'] });
    expect(secret).toMatch(/^sk_[A-Za-z0-9]{42}$/);
    expect(secret.startsWith(prefix)).toBe(true);
    expect(prefix).toHaveLength(13);
    const rows = await api.db
      .selectFrom('api_key_secrets as s')
      .innerJoin('api_keys as k', 'k.id', 's.key_id')
      .select(['s.secret_hash', 'k.prefix'])
      .where('k.prefix', '=', prefix)
      .execute();
    expect(rows).toHaveLength(1);
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(secret)));
    expect(Buffer.from(rows[0]!.secret_hash).equals(Buffer.from(digest))).toBe(true);
    // Nowhere in the database is the secret itself.
    const dump = await sql<{ t: string }>`select row_to_json(x)::text as t from (
        select * from api_keys k join api_key_secrets s on s.key_id = k.id) x`.execute(api.db);
    for (const row of dump.rows) expect(row.t).not.toContain(secret.slice(13));
    const listed = await keys();
    expect(JSON.stringify(listed.data)).not.toContain(secret.slice(13));
  });

  it('records when a key was last used', async () => {
    const started = Date.now();
    const { secret, prefix } = await createKey(api, company.id, { scopes: ['read:listings'] });
    const before = (await keys()).data?.results.find((k) => k.prefix === prefix);
    expect(before?.last_used_at).toBeNull();
    expect((await read(secret)).response.status).toBe(200);
    const after = (await keys()).data?.results.find((k) => k.prefix === prefix);
    expectStampedSince(after?.last_used_at as string, started);
  });

  it('keeps the old secret working for 24 hours after a rotation, then refuses it', async () => {
    const before = Date.now();
    const { secret: old, prefix } = await createKey(api, company.id, { scopes: ['read:listings'] });
    const rotated = await rotate(prefix);
    expect(rotated.response.status).toBe(200);
    const fresh = rotated.data?.secret as string;
    expect(fresh).not.toBe(old);
    expect(rotated.data?.prefix).toBe(prefix);
    expectStampedSince(rotated.data?.previous_secret_expires_at as string, before, 24 * 3600 * 1000);
    expect((await read(old)).response.status).toBe(200);
    expect((await read(fresh)).response.status).toBe(200);
    // 24 hours later (moved in the database rather than in time): the old secret is refused, the new works. Keys are
    // kept in memory until the database announces a change to them: the next request after that notice sees it.
    const noticed = api.platform.companyCache.changed(company.id);
    await api.db
      .updateTable('api_key_secrets')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('expires_at', 'is not', null)
      .where('key_id', '=', api.db.selectFrom('api_keys').select('id').where('prefix', '=', prefix))
      .execute();
    await noticed;
    const refused = await read(old);
    expect(refused.response.status).toBe(403);
    expect(refused.error?.code).toBe('key_invalid');
    expect((await read(fresh)).response.status).toBe(200);
  });

  it('revokes at once, every secret of the key, and a revoked key cannot be rotated', async () => {
    const { secret: old, prefix } = await createKey(api, company.id, { scopes: ['read:listings'] });
    const fresh = (await rotate(prefix)).data?.secret as string;
    const revoked = await revoke(prefix);
    expect(revoked.response.status).toBe(200);
    expect(revoked.data?.revoked_at).not.toBeNull();
    for (const secret of [old, fresh]) {
      const res = await read(secret);
      expect(res.response.status).toBe(403);
      expect(res.error?.code).toBe('key_revoked');
    }
    const again = await rotate(prefix);
    expect(again.response.status).toBe(409);
  });

  it('writes creation, rotation and revocation to the audit log with the key prefix', async () => {
    const { prefix } = await createKey(api, company.id, { scopes: ['read:listings'] });
    await rotate(prefix);
    await revoke(prefix);
    const log = await adminOf(api).GET('/admin/v1/companies/{company_id}/audit-log', {
      params: { path: { company_id: company.id }, query: { page_size: 100 } },
    });
    const mine = (log.data?.results ?? []).filter((e) => e.subject === prefix).map((e) => [e.action, e.actor]);
    expect(mine).toEqual([
      ['key.revoked', 'admin'],
      ['key.rotated', 'admin'],
      ['key.created', 'admin'],
    ]);
  });

  it('refuses a key on another company’s host', async () => {
    const other = await createCompany(api);
    const { secret } = await createKey(api, other.id, { scopes: ['read:listings'] });
    const res = await read(secret);
    expect(res.response.status).toBe(403);
    expect(res.error?.code).toBe('key_wrong_company');
  });

  it('refuses a tampered secret with the right prefix', async () => {
    const { secret } = await createKey(api, company.id, { scopes: ['read:listings'] });
    const tampered = secret.slice(0, -1) + (secret.endsWith('a') ? 'b' : 'a');
    expect((await read(tampered)).response.status).toBe(403);
  });

  it.each([
    [{ kind: 'server', scopes: [] }, 'scopes'],
    [{ kind: 'server', scopes: ['read:everything'] }, 'scopes.0'],
    [{ kind: 'server', scopes: ['read:listings'], origins: ['https://a.example'] }, 'origins'],
    [{ kind: 'publishable', origins: [] }, 'origins'],
    [{ kind: 'publishable', origins: ['https://a.example/path'] }, 'origins.0'],
    [{ kind: 'publishable', origins: ['https://a.example'], scopes: ['read:listings'] }, 'scopes'],
  ])('refuses an invalid key definition %j', async (body, path) => {
    const count = async () =>
      (await api.db.selectFrom('api_keys').select('id').where('company_id', '=', company.id).execute()).length;
    const before = await count();
    const res = await adminOf(api).POST('/admin/v1/companies/{company_id}/keys', { ...companyPath(), body: body as never });
    expect(res.response.status).toBe(400);
    expect(res.error?.errors?.map((e) => e.path)).toContain(path);
    expect(await count()).toBe(before);
  });
});
