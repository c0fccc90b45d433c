import { expectStampedSince } from '../support/times';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { createCompany, createKey, useApi, useDemoCompany } from '../support/world';

const api = useApi();
const company = useDemoCompany(api);

const read = (key: string) => api.request('/api/v1/listings?page_size=1', { host: company.host, key });

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
    const listed = await api.admin(`/companies/${company.id}/keys`);
    expect(listed.text).not.toContain(secret.slice(13));
  });

  it('records when a key was last used', async () => {
    const started = Date.now();
    const { secret, prefix } = await createKey(api, company.id, { scopes: ['read:listings'] });
    const before = (await api.admin(`/companies/${company.id}/keys`)).json.results.find((k: any) => k.prefix === prefix);
    expect(before.last_used_at).toBeNull();
    expect((await read(secret)).status).toBe(200);
    const after = (await api.admin(`/companies/${company.id}/keys`)).json.results.find((k: any) => k.prefix === prefix);
    expectStampedSince(after.last_used_at, started);
  });

  it('keeps the old secret working for 24 hours after a rotation, then refuses it', async () => {
    const before = Date.now();
    const { secret: old, prefix } = await createKey(api, company.id, { scopes: ['read:listings'] });
    const rotated = await api.admin(`/companies/${company.id}/keys/${prefix}/rotate`, { method: 'POST' });
    expect(rotated.status).toBe(200);
    const fresh = rotated.json.secret as string;
    expect(fresh).not.toBe(old);
    expect(rotated.json.prefix).toBe(prefix);
    expectStampedSince(rotated.json.previous_secret_expires_at, before, 24 * 3600 * 1000);
    expect((await read(old)).status).toBe(200);
    expect((await read(fresh)).status).toBe(200);
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
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('key_invalid');
    expect((await read(fresh)).status).toBe(200);
  });

  it('revokes at once, every secret of the key, and a revoked key cannot be rotated', async () => {
    const { secret: old, prefix } = await createKey(api, company.id, { scopes: ['read:listings'] });
    const fresh = (await api.admin(`/companies/${company.id}/keys/${prefix}/rotate`, { method: 'POST' })).json.secret;
    const revoked = await api.admin(`/companies/${company.id}/keys/${prefix}/revoke`, { method: 'POST' });
    expect(revoked.status).toBe(200);
    expect(revoked.json.revoked_at).not.toBeNull();
    for (const secret of [old, fresh]) {
      const res = await read(secret);
      expect(res.status).toBe(403);
      expect(res.json.code).toBe('key_revoked');
    }
    const again = await api.admin(`/companies/${company.id}/keys/${prefix}/rotate`, { method: 'POST' });
    expect(again.status).toBe(409);
  });

  it('writes creation, rotation and revocation to the audit log with the key prefix', async () => {
    const { prefix } = await createKey(api, company.id, { scopes: ['read:listings'] });
    await api.admin(`/companies/${company.id}/keys/${prefix}/rotate`, { method: 'POST' });
    await api.admin(`/companies/${company.id}/keys/${prefix}/revoke`, { method: 'POST' });
    const log = await api.admin(`/companies/${company.id}/audit-log?page_size=100`);
    const mine = log.json.results.filter((e: any) => e.subject === prefix).map((e: any) => [e.action, e.actor]);
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
    expect(res.status).toBe(403);
    expect(res.json.code).toBe('key_wrong_company');
  });

  it('refuses a tampered secret with the right prefix', async () => {
    const { secret } = await createKey(api, company.id, { scopes: ['read:listings'] });
    const tampered = secret.slice(0, -1) + (secret.endsWith('a') ? 'b' : 'a');
    expect((await read(tampered)).status).toBe(403);
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
    const res = await api.admin(`/companies/${company.id}/keys`, { body });
    expect(res.status).toBe(400);
    expect(res.json.errors.map((e: any) => e.path)).toContain(path);
    expect(await count()).toBe(before);
  });
});
