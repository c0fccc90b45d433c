import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../clients/typescript/src/index';
import { newReference } from '../../lib/references';
import { adminCli, cliTimeout } from '../support/admin-cli';
import { type TestClient, testClient } from '../support/client';
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

/** The admin routes of the company's departments and members, through the typed admin client (any body: the refusals too). */
type Body = Record<string, unknown>;
const at = <P extends Record<string, string>>(path: P) => ({ params: { path: { company_id: company.id, ...path } } });
const putDepartment = (key: string, body: Body) =>
  w.adminClient.PUT('/admin/v1/companies/{company_id}/departments/{key}', { ...at({ key }), body: body as never });
const deleteDepartment = (key: string) => w.adminClient.DELETE('/admin/v1/companies/{company_id}/departments/{key}', at({ key }));
const addMember = (body: Body) =>
  w.adminClient.POST('/admin/v1/companies/{company_id}/members', { ...at({}), body: body as never });
const changeMember = (memberId: string, body: Body) =>
  w.adminClient.PATCH('/admin/v1/companies/{company_id}/members/{member_id}', {
    ...at({ member_id: memberId }),
    body: body as never,
  });
const members = async (query: SyncQuery = {}) => (await reads.GET('/api/v1/members', { params: { query } })).data!;
const departments = async (query: SyncQuery = {}) => (await reads.GET('/api/v1/departments', { params: { query } })).data!;
/** An instant before every write of this file, for rows whose next write must visibly move their updated_at. */
const past = new Date('2025-01-01T00:00:00.000Z');

describe('departments', () => {
  it('are added and renamed with PUT, and listed by key with both languages', async () => {
    const put = await putDepartment('sales', { name: { en: 'Sales', ar: 'المبيعات' } });
    expect(put.response.status, JSON.stringify(put.error)).toBe(200);
    expect(put.data).toEqual({ key: 'sales', name: { en: 'Sales', ar: 'المبيعات' }, updated_at: expect.any(String) });
    const leasing = await putDepartment('leasing', { name: { en: 'Leasing' } });
    expect(leasing.data?.name).toEqual({ en: 'Leasing', ar: 'Leasing' });
    const same = await putDepartment('sales', { name: { en: 'Sales', ar: 'المبيعات' } });
    expect(same.data?.updated_at).toBe(put.data?.updated_at); // nothing changed
    // An earlier instant set explicitly: two writes in one millisecond would tie on PGlite's clock.
    await setUpdatedAt(api.db, 'departments', { companyId: company.id, column: 'key', value: 'sales' }, past);
    const renamed = await putDepartment('sales', { name: { en: 'Sales team', ar: 'المبيعات' } });
    expect((renamed.data?.updated_at ?? '') > past.toISOString()).toBe(true);
    const list = await departments();
    expect(list.results.map((d) => [d.key, d.name.en])).toEqual([
      ['leasing', 'Leasing'],
      ['sales', 'Sales team'],
    ]);
    expect(list.next_cursor).toBeNull();
    expect((await putDepartment('Bad Key', { name: { en: 'X' } })).response.status).toBe(400);
  });

  it('can be deleted only when no member or lead refers to them (409), then answer 404', async () => {
    await putDepartment('temp', { name: { en: 'Temporary' } });
    const member = (await addMember({ name: 'Temp Member', department: 'temp' })).data!;
    const used = await deleteDepartment('temp');
    expect([used.response.status, used.error?.code]).toEqual([409, 'conflict']);
    await changeMember(member.id, { department: null });
    const reference = newReference('L');
    await api.db
      .insertInto('leads')
      .values({ company_id: company.id, reference, caused_by: 'website', department_key: 'temp' })
      .execute();
    expect((await deleteDepartment('temp')).response.status).toBe(409);
    await api.db.deleteFrom('leads').where('reference', '=', reference).execute();
    expect((await deleteDepartment('temp')).response.status).toBe(204);
    expect((await deleteDepartment('temp')).response.status).toBe(404);
    expect((await departments()).results.map((d) => d.key)).not.toContain('temp');
  });
});

describe('members', () => {
  it('are added by the admin API with an id, and listed with the read:members scope', async () => {
    await putDepartment('sales', { name: { en: 'Sales' } });
    const added = await addMember({ name: 'Omar Nasser', email: 'omar@agency.example', department: 'sales' });
    expect(added.response.status, JSON.stringify(added.error)).toBe(201);
    expect(added.data).toEqual({
      id: expect.stringMatching(/^mem_[A-Za-z0-9]{20}$/),
      name: 'Omar Nasser',
      email: 'omar@agency.example',
      department: 'sales',
      active: true,
      updated_at: expect.any(String),
    });
    const plain = await addMember({ name: 'Lina' });
    expect(plain.data).toMatchObject({ email: null, department: null, active: true });
    const listed = (await members({ page_size: 100 })).results;
    expect(listed).toEqual(expect.arrayContaining([added.data, plain.data]));
    const unknown = await addMember({ name: 'X', department: 'nowhere' });
    expect([unknown.response.status, unknown.error?.errors?.[0]?.path]).toEqual([400, 'department']);
    expect((await addMember({ name: 'X', email: 'nope' })).response.status).toBe(400);
    expect((await addMember({ email: 'x@agency.example' })).response.status).toBe(400);
  });

  it('are changed and deactivated with PATCH; a deactivated member stays listed; a no-op keeps updated_at', async () => {
    const member = (await addMember({ name: 'Sara' })).data!;
    const same = await changeMember(member.id, { name: 'Sara' });
    expect(same.data?.updated_at).toBe(member.updated_at);
    await setUpdatedAt(api.db, 'members', { companyId: company.id, column: 'id', value: member.id }, past);
    const off = await changeMember(member.id, { active: false, email: 'sara@agency.example' });
    expect(off.response.status, JSON.stringify(off.error)).toBe(200);
    expect(off.data).toMatchObject({ id: member.id, name: 'Sara', email: 'sara@agency.example', active: false });
    expect((off.data?.updated_at ?? '') > past.toISOString()).toBe(true);
    const listed = (await members({ page_size: 100 })).results.find((m) => m.id === member.id);
    expect(listed).toEqual(off.data);
    expect((await changeMember('mem_unknown', { active: false })).response.status).toBe(404);
    // An unknown department is the one refusal every group gives a record the body names (lib/named-records.ts).
    const nowhere = await changeMember(member.id, { department: 'nowhere' });
    expect([nowhere.response.status, nowhere.error?.code, nowhere.error?.errors]).toEqual([
      400,
      'invalid_request',
      [{ path: 'department', code: 'unknown_reference', message: 'nowhere is not a department of this company.' }],
    ]);
    const added = await addMember({ name: 'Nobody', department: 'nowhere' });
    expect([added.response.status, added.error?.errors?.[0]?.code]).toEqual([400, 'unknown_reference']);
    expect((await changeMember(member.id, { id: 'mem_other' })).response.status).toBe(400);
  });

  it('sync: updated_since includes changes at or after the instant, excludes older ones; pages by cursor', async () => {
    // Every member and department so far is moved an hour back, so the instants below come after all of them.
    await moveUpdatedAtBack(api.db, ['members', 'departments'], company.id, 3_600_000);
    const since = new Date((await databaseNow(api.db)).getTime() - 60_000);
    const add = async (name: string, at: Date) => {
      const { id } = (await addMember({ name })).data!;
      await setUpdatedAt(api.db, 'members', { companyId: company.id, column: 'id', value: id }, at);
      return id as string;
    };
    const older = await add('Older', new Date(since.getTime() - 1));
    const changed = await add('Changed', new Date(since.getTime() - 1000));
    const atSince = await add('At the instant', since);
    await changeMember(changed, { name: 'Changed later' });
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
    const all = ((await w.adminClient.GET('/admin/v1/companies/{company_id}/members', at({}))).data?.results ?? []).map(
      (m) => m.id,
    );
    expect([...seen].sort()).toEqual([...all].sort());
    expect(new Set(seen).size).toBe(seen.length);

    await putDepartment('leasing', { name: { en: 'Leasing desk' } });
    const changedDepartments = await departments({ updated_since: since.toISOString() });
    expect(changedDepartments.results.map((d) => d.key)).toEqual(['leasing']);
  });

  it('are staff data: reading members or departments writes no audit row', async () => {
    await members();
    await departments();
    const audit = await w.adminClient.GET('/admin/v1/companies/{company_id}/audit-log', {
      params: { path: { company_id: company.id }, query: { action: 'personal_data.read' } },
    });
    // The world's own contacts were read by its setup key; this key read nothing personal.
    expect(audit.data?.results.filter((r) => r.subject === key.prefix)).toEqual([]);
  });

  it('are invisible to another company', async () => {
    const other = await createCompany(api);
    const otherKey = (await createKey(api, other.id, { scopes: ['read:members'] })).secret;
    const res = await testClient(api, { host: other.host, serverKey: otherKey }).GET('/api/v1/members');
    expect(res.data).toEqual({ results: [], next_cursor: null });
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
      const withOrigin = testClient(t, { host: company.host, serverKey: secret, headers: { Origin: 'https://www.example.com' } });
      const reads = {
        '/api/v1/contacts': () => withOrigin.GET('/api/v1/contacts'),
        '/api/v1/members': () => withOrigin.GET('/api/v1/members'),
        '/api/v1/leads': () => withOrigin.GET('/api/v1/leads'),
      };
      for (const [path, read] of Object.entries(reads)) {
        // raw: a CORS preflight (OPTIONS), which the typed client does not send
        const preflight = await t.request(path, {
          method: 'OPTIONS',
          host: company.host,
          headers: { Origin: 'https://www.example.com', 'Access-Control-Request-Method': 'GET' },
        });
        expect(preflight.headers.get('access-control-allow-origin'), path).toBeNull();
        const res = await read();
        expect(res.response.headers.get('access-control-allow-origin'), path).toBeNull();
      }
    } finally {
      await t.close();
    }
  });
});
