import { describe, expect, it } from 'vitest';
import { CompanyCache } from '../../lib/company-cache';
import { verifyKey } from '../../lib/keys';
import { openTestDatabase, statementLog } from '../support/harness';
import { testClient } from '../support/client';
import { adminOf, createKey, useApi, useDemoCompany } from '../support/world';

/**
 * API keys kept in memory on Node (lib/company-cache.ts, migration 0018): a keyed request whose key is known sends
 * no statement for it, and every change to a key or its secrets (revocation, rotation, an expiry moved) is seen by
 * the next request: at once when made through this process, once notified when made by another one (here, SQL
 * straight on the database). Workers (TTL mode) never keep a key.
 */

let statements: string[] = [];
const log = statementLog(() => statements);

const api = useApi({ handle: await openTestDatabase({ log }) });
const company = useDemoCompany(api);

const cache = () => api.platform.companyCache;

/** GET /contacts with a server key, and the statements it sent. */
async function read(secret: string) {
  statements = [];
  const res = await clientOn(secret).GET('/api/v1/contacts', { params: { query: { page_size: 1 } } });
  return { ...res, statements };
}

/** The typed client on a key. */
const clientOn = (secret: string) => testClient(api, { host: company.host, serverKey: secret });
const keyPath = (prefix: string) => ({ params: { path: { company_id: company.id, prefix } } });
const revoke = (prefix: string) => adminOf(api).POST('/admin/v1/companies/{company_id}/keys/{prefix}/revoke', keyPath(prefix));
const rotate = (prefix: string) => adminOf(api).POST('/admin/v1/companies/{company_id}/keys/{prefix}/rotate', keyPath(prefix));

/** A key this process has been notified of (its creation's notifications received), used once. */
async function usedKey() {
  const key = await createKey(api, company.id, { scopes: ['read:contacts'] });
  await cache().listening();
  await cache().settled();
  expect((await read(key.secret)).response.status).toBe(200);
  return key;
}

const keyStatements = (sent: string[]) => sent.filter((s) => s.includes('api_key'));

describe('keys in memory', () => {
  it('sends no statement for a known key, and does not drop it for recording its use', async () => {
    const key = await createKey(api, company.id, { scopes: ['read:contacts'] });
    await cache().listening();
    await cache().settled();
    const first = await read(key.secret);
    expect(first.response.status).toBe(200);
    // The key read, and its first use recorded (not announced: the key stays in memory).
    expect(keyStatements(first.statements).map((s) => s.split(' ')[0])).toEqual(['select', 'update']);
    const second = await read(key.secret);
    expect(second.response.status).toBe(200);
    expect(keyStatements(second.statements)).toEqual([]);
  });

  it('refuses a key revoked through this process at the very next request', async () => {
    const key = await usedKey();
    const revoked = await revoke(key.prefix);
    expect(revoked.response.status).toBe(200);
    const res = await read(key.secret);
    expect(res.response.status).toBe(403);
    expect(res.error?.code).toBe('key_revoked');
  });

  it('refuses a key revoked through this process at the very next write, which takes its key from memory (issue 28)', async () => {
    const key = await createKey(api, company.id, { scopes: ['read:contacts', 'write:contacts'] });
    await cache().listening();
    await cache().settled();
    const write = (email: string) => clientOn(key.secret).POST('/api/v1/contacts', { body: { name: 'Key Cache', email } });
    expect((await write('first.write@example.com')).response.status).toBe(201);
    statements = [];
    expect((await write('second.write@example.com')).response.status).toBe(201);
    // The key and the company from memory: the write sends no statement for either.
    expect(keyStatements(statements)).toEqual([]);
    expect(statements.filter((s) => s.includes('company_hosts'))).toEqual([]);
    const revoked = await revoke(key.prefix);
    expect(revoked.response.status).toBe(200);
    const refused = await write('third.write@example.com');
    expect(refused.response.status).toBe(403);
    expect(refused.error?.code).toBe('key_revoked');
  });

  it('refuses a key revoked by another process once the database announced it', async () => {
    const key = await usedKey();
    const noticed = cache().changed(company.id);
    await api.db.updateTable('api_keys').set({ revoked_at: new Date() }).where('prefix', '=', key.prefix).execute();
    await noticed;
    const res = await read(key.secret);
    expect(res.response.status).toBe(403);
    expect(res.error?.code).toBe('key_revoked');
  });

  it('takes a rotated secret at once and keeps the old one until its expiry, moved by another process', async () => {
    const key = await usedKey();
    const rotated = await rotate(key.prefix);
    expect(rotated.response.status).toBe(200);
    expect((await read(rotated.data?.secret as string)).response.status).toBe(200);
    expect((await read(key.secret)).response.status).toBe(200);
    const noticed = cache().changed(company.id);
    await api.db
      .updateTable('api_key_secrets')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('expires_at', 'is not', null)
      .where('key_id', '=', api.db.selectFrom('api_keys').select('id').where('prefix', '=', key.prefix))
      .execute();
    await noticed;
    const old = await read(key.secret);
    expect(old.response.status).toBe(403);
    expect(old.error?.code).toBe('key_invalid');
    expect((await read(rotated.data?.secret as string)).response.status).toBe(200);
  });

  it('refuses a secret kept in memory once its expiry has passed, without asking the database', async () => {
    const key = await usedKey();
    const rotated = await rotate(key.prefix);
    const expires = new Date(rotated.data?.previous_secret_expires_at as string);
    await cache().settled();
    const options = { cache: cache() };
    // Loaded (and kept) while the old secret is still good.
    expect((await verifyKey(api.db, key.secret, { ...options, now: new Date(expires.getTime() - 1) })).prefix).toBe(key.prefix);
    statements = [];
    await expect(verifyKey(api.db, key.secret, { ...options, now: expires })).rejects.toMatchObject({ code: 'key_invalid' });
    expect((await verifyKey(api.db, rotated.data?.secret as string, { ...options, now: expires })).prefix).toBe(key.prefix);
    expect(statements).toEqual([]);
  });
});

describe('the TTL mode of Workers', () => {
  it('never keeps a key: every lookup asks the database, so a revocation is seen at once', async () => {
    const ttl = new CompanyCache({ mode: 'ttl', ttlMs: 60_000, now: () => 0 });
    let loads = 0;
    const load = async () => {
      loads++;
      return { companyId: company.id, value: 'key' };
    };
    expect(await ttl.lookupKey('pk_0123456789', load)).toBe('key');
    expect(await ttl.lookupKey('pk_0123456789', load)).toBe('key');
    expect(loads).toBe(2);
  });
});

describe('a key read with its company (one statement), then kept', () => {
  it('is kept only if no change was announced since its read began', async () => {
    const notified = new CompanyCache({ mode: 'notified' });
    notified.setListening(true);
    const loaded = { companyId: company.id, value: 'read before a revocation' };
    let loads = 0;
    const load = async () => {
      loads++;
      return { companyId: company.id, value: 'read now' };
    };
    // The read began, then the key's company was announced changed (a revocation), then the read is offered.
    const began = notified.generation;
    notified.invalidate(company.id);
    notified.keepKey('pk_0123456789', loaded, began);
    expect(await notified.lookupKey('pk_0123456789', load)).toBe('read now');
    expect(loads).toBe(1);
    // No change since it began: kept, and served without a read.
    notified.keepKey('pk_abcdefghij', loaded, notified.generation);
    expect(await notified.lookupKey('pk_abcdefghij', load)).toBe('read before a revocation');
    expect(loads).toBe(1);
  });
});
