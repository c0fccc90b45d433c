import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../clients/typescript/src/index';
import { newReference } from '../../lib/references';
import { adminCli, cliTimeout } from '../support/admin-cli';
import type { TestClient } from '../support/client';
import { createTestApi, type TestApi } from '../support/harness';
import { databaseNow, moveUpdatedAtBack, setUpdatedAt } from '../support/times';
import { createCompany, createKey, type Key, type World, world } from '../support/world';

/** The admin API's member is the public one (the admin document is not in the typed client). */
type Member = components['schemas']['Member'];
type SyncQuery = { page_size?: number; cursor?: string; updated_since?: string };

let w: World;
let api: TestApi;
let company: { id: string; host: string };
let key: Key;
let reads: TestClient;

beforeAll(async () => {
  w = await world();
  ({ api, company } = w);
  key = await w.keyWith(['read:members']);
  reads = await w.clientWith(key.secret);
});
afterAll(() => w.close());

const admin = (path: string, method: string, body?: unknown) => api.admin(`/companies/${company.id}${path}`, { method, body });
const members = async (query: SyncQuery = {}) => (await reads.GET('/api/v1/members', { params: { query } })).data!;
const departments = async (query: SyncQuery = {}) => (await reads.GET('/api/v1/departments', { params: { query } })).data!;
/** An instant before every write of this file, for rows whose next write must visibly move their updated_at. */
const past = new Date('2025-01-01T00:00:00.000Z');

describe('departments', () => {
  it('are added and renamed with PUT, and listed by key with both languages', async () => {
    const put = await admin('/departments/sales', 'PUT', { name: { en: 'Sales', ar: 'المبيعات' } });
    expect(put.status, put.text).toBe(200);
    expect(put.json).toEqual({ key: 'sales', name: { en: 'Sales', ar: 'المبيعات' }, updated_at: expect.any(String) });
    const leasing = await admin('/departments/leasing', 'PUT', { name: { en: 'Leasing' } });
    expect(leasing.json.name).toEqual({ en: 'Leasing', ar: 'Leasing' });
    const same = await admin('/departments/sales', 'PUT', { name: { en: 'Sales', ar: 'المبيعات' } });
    expect(same.json.updated_at).toBe(put.json.updated_at); // nothing changed
    // An earlier instant set explicitly: two writes in one millisecond would tie on PGlite's clock.
    await setUpdatedAt(api.db, 'departments', { companyId: company.id, column: 'key', value: 'sales' }, past);
    const renamed = await admin('/departments/sales', 'PUT', { name: { en: 'Sales team', ar: 'المبيعات' } });
    expect(renamed.json.updated_at > past.toISOString()).toBe(true);
    const list = await departments();
    expect(list.results.map((d) => [d.key, d.name.en])).toEqual([
      ['leasing', 'Leasing'],
      ['sales', 'Sales team'],
    ]);
    expect(list.next_cursor).toBeNull();
    expect((await admin('/departments/Bad Key', 'PUT', { name: { en: 'X' } })).status).toBe(400);
  });

  it('can be deleted only when no member or lead refers to them (409), then answer 404', async () => {
    await admin('/departments/temp', 'PUT', { name: { en: 'Temporary' } });
    const member = (await admin('/members', 'POST', { name: 'Temp Member', department: 'temp' })).json;
    const used = await admin('/departments/temp', 'DELETE');
    expect([used.status, used.json.code]).toEqual([409, 'conflict']);
    await admin(`/members/${member.id}`, 'PATCH', { department: null });
    const reference = newReference('L');
    await api.db
      .insertInto('leads')
      .values({ company_id: company.id, reference, caused_by: 'website', department_key: 'temp' })
      .execute();
    expect((await admin('/departments/temp', 'DELETE')).status).toBe(409);
    await api.db.deleteFrom('leads').where('reference', '=', reference).execute();
    expect((await admin('/departments/temp', 'DELETE')).status).toBe(204);
    expect((await admin('/departments/temp', 'DELETE')).status).toBe(404);
    expect((await departments()).results.map((d) => d.key)).not.toContain('temp');
  });
});

describe('members', () => {
  it('are added by the admin API with an id, and listed with the read:members scope', async () => {
    await admin('/departments/sales', 'PUT', { name: { en: 'Sales' } });
    const added = await admin('/members', 'POST', { name: 'Omar Nasser', email: 'omar@agency.example', department: 'sales' });
    expect(added.status, added.text).toBe(201);
    expect(added.json).toEqual({
      id: expect.stringMatching(/^mem_[A-Za-z0-9]{20}$/),
      name: 'Omar Nasser',
      email: 'omar@agency.example',
      department: 'sales',
      active: true,
      updated_at: expect.any(String),
    });
    const plain = await admin('/members', 'POST', { name: 'Lina' });
    expect(plain.json).toMatchObject({ email: null, department: null, active: true });
    const listed = (await members({ page_size: 100 })).results;
    expect(listed).toEqual(expect.arrayContaining([added.json, plain.json]));
    const unknown = await admin('/members', 'POST', { name: 'X', department: 'nowhere' });
    expect([unknown.status, unknown.json.errors[0].path]).toEqual([400, 'department']);
    expect((await admin('/members', 'POST', { name: 'X', email: 'nope' })).status).toBe(400);
    expect((await admin('/members', 'POST', { email: 'x@agency.example' })).status).toBe(400);
  });

  it('are changed and deactivated with PATCH; a deactivated member stays listed; a no-op keeps updated_at', async () => {
    const member = (await admin('/members', 'POST', { name: 'Sara' })).json;
    const same = await admin(`/members/${member.id}`, 'PATCH', { name: 'Sara' });
    expect(same.json.updated_at).toBe(member.updated_at);
    await setUpdatedAt(api.db, 'members', { companyId: company.id, column: 'id', value: member.id }, past);
    const off = await admin(`/members/${member.id}`, 'PATCH', { active: false, email: 'sara@agency.example' });
    expect(off.status, off.text).toBe(200);
    expect(off.json).toMatchObject({ id: member.id, name: 'Sara', email: 'sara@agency.example', active: false });
    expect(off.json.updated_at > past.toISOString()).toBe(true);
    const listed = (await members({ page_size: 100 })).results.find((m) => m.id === member.id);
    expect(listed).toEqual(off.json);
    expect((await admin('/members/mem_unknown', 'PATCH', { active: false })).status).toBe(404);
    // An unknown department is the one refusal every group gives a record the body names (lib/named-records.ts).
    const nowhere = await admin(`/members/${member.id}`, 'PATCH', { department: 'nowhere' });
    expect([nowhere.status, nowhere.json.code, nowhere.json.errors]).toEqual([
      400,
      'invalid_request',
      [{ path: 'department', code: 'unknown_reference', message: 'nowhere is not a department of this company.' }],
    ]);
    const added = await admin('/members', 'POST', { name: 'Nobody', department: 'nowhere' });
    expect([added.status, added.json.errors?.[0]?.code]).toEqual([400, 'unknown_reference']);
    expect((await admin(`/members/${member.id}`, 'PATCH', { id: 'mem_other' })).status).toBe(400);
  });

  it('sync: updated_since includes changes at or after the instant, excludes older ones; pages by cursor', async () => {
    // Every member and department so far is moved an hour back, so the instants below come after all of them.
    await moveUpdatedAtBack(api.db, ['members', 'departments'], company.id, 3_600_000);
    const since = new Date((await databaseNow(api.db)).getTime() - 60_000);
    const add = async (name: string, at: Date) => {
      const { id } = (await admin('/members', 'POST', { name })).json;
      await setUpdatedAt(api.db, 'members', { companyId: company.id, column: 'id', value: id }, at);
      return id as string;
    };
    const older = await add('Older', new Date(since.getTime() - 1));
    const changed = await add('Changed', new Date(since.getTime() - 1000));
    const atSince = await add('At the instant', since);
    await admin(`/members/${changed}`, 'PATCH', { name: 'Changed later' });
    const res = await members({ updated_since: since.toISOString() });
    // In updated_at order: the one set at the instant, then the one the PATCH moved to the database's now.
    expect(res.results.map((m) => m.id)).toEqual([atSince, changed]);
    expect(res.results.map((m) => m.id)).not.toContain(older);

    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page = await members({ page_size: 2, cursor: cursor || undefined });
      expect(page.results.length).toBeLessThanOrEqual(2);
      seen.push(...page.results.map((m) => m.id));
      cursor = page.next_cursor;
    }
    const all = ((await admin('/members', 'GET')).json.results as Member[]).map((m) => m.id);
    expect([...seen].sort()).toEqual([...all].sort());
    expect(new Set(seen).size).toBe(seen.length);

    await admin('/departments/leasing', 'PUT', { name: { en: 'Leasing desk' } });
    const changedDepartments = await departments({ updated_since: since.toISOString() });
    expect(changedDepartments.results.map((d) => d.key)).toEqual(['leasing']);
  });

  it('are staff data: reading members or departments writes no audit row', async () => {
    await members();
    await departments();
    const audit = await api.admin(`/companies/${company.id}/audit-log?action=personal_data.read`);
    // The world's own contacts were read by its setup key; this key read nothing personal.
    expect(audit.json.results.filter((r: { subject: string }) => r.subject === key.prefix)).toEqual([]);
  });

  it('are invisible to another company', async () => {
    const other = await createCompany(api);
    const otherKey = (await createKey(api, other.id, { scopes: ['read:members'] })).secret;
    const res = await api.request('/api/v1/members', { host: other.host, key: otherKey });
    expect(res.json).toEqual({ results: [], next_cursor: null });
  });
});

describe('the admin CLI', cliTimeout, () => {
  const cli = adminCli(() => api);

  it('puts and deletes departments, adds, updates, deactivates and lists members', async () => {
    expect(await cli('departments', 'put', company.id, 'cli-desk', '--name-en', 'Desk', '--name-ar', 'مكتب')).toMatchObject({
      key: 'cli-desk',
      name: { en: 'Desk', ar: 'مكتب' },
    });
    const member = await cli('members', 'add', company.id, '--name', 'Cli Member', '--department', 'cli-desk');
    expect(member).toMatchObject({ name: 'Cli Member', department: 'cli-desk', active: true });
    const updated = await cli('members', 'update', company.id, member.id, '--department', '', '--active', 'false');
    expect(updated).toMatchObject({ id: member.id, department: null, active: false });
    const listed = await cli('members', 'list', company.id);
    expect((listed.results as Member[]).find((m) => m.id === member.id)).toEqual(updated);
    expect(await cli('departments', 'delete', company.id, 'cli-desk')).toEqual({ status: 204 });
  }, 60_000);
});

describe('no browser access to CRM routes', () => {
  it('grants no CORS: neither a preflight nor a request with an Origin gets Access-Control-Allow-Origin', async () => {
    const t = await createTestApi();
    try {
      const company = await createCompany(t);
      const { secret } = await createKey(t, company.id, { scopes: ['read:contacts', 'read:members'] });
      for (const path of ['/api/v1/contacts', '/api/v1/members', '/api/v1/leads']) {
        const preflight = await t.request(path, {
          method: 'OPTIONS',
          host: company.host,
          headers: { Origin: 'https://www.example.com', 'Access-Control-Request-Method': 'GET' },
        });
        expect(preflight.headers.get('access-control-allow-origin'), path).toBeNull();
        const res = await t.request(path, { host: company.host, key: secret, headers: { Origin: 'https://www.example.com' } });
        expect(res.headers.get('access-control-allow-origin'), path).toBeNull();
      }
    } finally {
      await t.close();
    }
  });
});
