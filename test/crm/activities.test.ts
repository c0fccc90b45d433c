import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eraseContact } from '../../functions/crm/erasure';
import { createTestApi, type TestApi } from '../support/harness';
import { databaseNow, moveUpdatedAtBack, setUpdatedAtInOrder } from '../support/times';

let api: TestApi;
let company: { id: string; host: string };
let writer: { secret: string; prefix: string };
let reader: { secret: string; prefix: string };
let leadsKey: string;
let member: string;

beforeAll(async () => {
  api = await createTestApi();
  company = await api.createCompany();
  writer = await api.createKey(company.id, { scopes: ['write:followups'] });
  reader = await api.createKey(company.id, { scopes: ['read:followups'] });
  leadsKey = (await api.createKey(company.id, { scopes: ['write:leads', 'read:leads'] })).secret;
  member = (await api.admin(`/companies/${company.id}/members`, { body: { name: 'Omar', active: false } })).json.id;
});
afterAll(() => api.close());

let serial = 0;
const unique = () => `${Date.now().toString(36)}-${serial++}`;
const newLead = async () => {
  const res = await api.request('/api/v1/leads', {
    host: company.host,
    key: leadsKey,
    body: { consent: true, consent_version: 'v1', email: `a.${unique()}@example.com` },
  });
  return res.json as { reference: string; person: string; created_at: string };
};
const readLead = async (reference: string) =>
  (await api.request(`/api/v1/leads/${reference}`, { host: company.host, key: leadsKey })).json;
const post = (body: Record<string, unknown>) =>
  api.request('/api/v1/activities', { host: company.host, key: writer.secret, body });
const list = (query = '') => api.request(`/api/v1/activities${query}`, { host: company.host, key: reader.secret });
const created = async (reference: string) =>
  (await api.db.selectFrom('events').selectAll().where('type', '=', 'activity.created').execute()).filter(
    (e) => e.data.reference === reference,
  );

describe('POST /activities', () => {
  it('logs an activity (201) with the lead’s person, and records activity.created with references only', async () => {
    const lead = await newLead();
    const res = await post({
      type: 'meeting',
      source: 'hubspot',
      external_id: `m-${unique()}`,
      lead: lead.reference,
      by: member,
      body: 'Met at the site',
      occurred_at: '2026-11-20T10:00:00+04:00',
    });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.json).sort()).toEqual(
      'body by created_at external_id lead occurred_at person reference source type updated_at'.split(' ').sort(),
    );
    expect(res.json).toMatchObject({
      type: 'meeting',
      source: 'hubspot',
      lead: lead.reference,
      person: lead.person,
      by: member,
      body: 'Met at the site',
      occurred_at: '2026-11-20T06:00:00.000Z',
    });
    expect(res.json.reference).toMatch(/^A-[0-9A-Z]{10}$/);
    const events = await created(res.json.reference);
    expect(events.map((e) => [e.caused_by, e.data])).toEqual([
      [`api:${writer.prefix}`, { reference: res.json.reference, lead: lead.reference, person: lead.person }],
    ]);
  });

  it('answers 200 with the first record for the same source and external_id, with no new event', async () => {
    const externalId = `n-${unique()}`;
    const first = await post({ type: 'note', source: 'hubspot', external_id: externalId, body: 'first' });
    const again = await post({ type: 'email', source: 'hubspot', external_id: externalId, body: 'second' });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.json).toEqual(first.json);
    const other = await post({ type: 'note', source: 'pipedrive', external_id: externalId });
    expect(other.status).toBe(201);
    expect(await created(first.json.reference)).toHaveLength(1);
  });

  it('gives exactly one record for 20 concurrent identical posts: one 201 and nineteen 200', async () => {
    const lead = await newLead();
    const body = { type: 'call', source: 'pbx', external_id: `c-${unique()}`, lead: lead.reference };
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(body)));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(19).fill(200), 201]);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.json.reference)).size).toBe(1);
    const onLead = api.db.selectFrom('leads').select('id').where('reference', '=', lead.reference);
    const rows = await api.db.selectFrom('activities').select('id').where('lead_id', 'in', onLead).execute();
    const ids = api.db.selectFrom('external_ids').select('record_id');
    const held = await ids.where('record_type', '=', 'activity').where('external_id', '=', body.external_id).execute();
    expect(held.map((h) => h.record_id)).toEqual(rows.map((r) => r.id));
    expect(rows).toHaveLength(1);
    expect(await created(answers[0]!.json.reference)).toHaveLength(1);
  });

  it('counts the first call logged on a lead as its first answer; notes and later calls do not change it', async () => {
    const lead = await newLead();
    await post({ type: 'note', source: 'crm', external_id: `n-${unique()}`, lead: lead.reference });
    expect((await readLead(lead.reference)).first_answered_at).toBeNull();
    const callAt = new Date(Date.parse(lead.created_at) + 90_000).toISOString();
    await post({ type: 'call', source: 'crm', external_id: `c-${unique()}`, lead: lead.reference, occurred_at: callAt });
    const answered = await readLead(lead.reference);
    expect(answered.first_answered_at).toBe(callAt);
    expect(answered.first_answer_seconds).toBe(90);
    await post({ type: 'call', source: 'crm', external_id: `c-${unique()}`, lead: lead.reference });
    expect((await readLead(lead.reference)).first_answered_at).toBe(callAt);
  });

  it('never puts the first answer before the lead arrived', async () => {
    const lead = await newLead();
    await post({
      type: 'call',
      source: 'crm',
      external_id: `c-${unique()}`,
      lead: lead.reference,
      occurred_at: '2020-01-01T00:00:00Z',
    });
    const answered = await readLead(lead.reference);
    expect(answered.first_answered_at).toBe(lead.created_at);
    expect(answered.first_answer_seconds).toBe(0);
  });

  it.each([
    ['an unknown lead', { lead: 'L-0000000000' }, 'lead'],
    ['an unknown person', { person: 'P-0000000000' }, 'person'],
    ['an unknown member', { by: 'mem_nobody' }, 'by'],
    ['an unknown type', { type: 'fax' }, 'type'],
    ['a bad source', { source: 'has space' }, 'source'],
    ['a missing external_id', { external_id: undefined }, 'external_id'],
  ])('refuses %s with 400 at its field', async (_name, change, path) => {
    const res = await post({ type: 'note', source: 'crm', external_id: `x-${unique()}`, ...change });
    expect(res.status, res.text).toBe(400);
    expect(res.json.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('refuses (409) an activity about an erased person or lead', async () => {
    const lead = await newLead();
    const contact = await api.db
      .selectFrom('contacts')
      .select('id')
      .where('reference', '=', lead.person)
      .executeTakeFirstOrThrow();
    await eraseContact(api.db, company.id, contact.id, { causedBy: 'admin', now: api.clock.now() });
    for (const link of [{ lead: lead.reference }, { person: lead.person }]) {
      const res = await post({ type: 'note', source: 'crm', external_id: `e-${unique()}`, ...link });
      expect(res.status).toBe(409);
    }
  });
});

describe('GET /activities', () => {
  it('pages in (updated_at, id) order, filters by updated_since and by external=<source>:<external_id>', async () => {
    // Times set, not waited for: earlier activities an hour back, these five a second apart from `start` (two
    // inserts in one millisecond of PGlite's clock would tie).
    await moveUpdatedAtBack(api.db, ['activities'], company.id, 3_600_000);
    const from = new Date((await databaseNow(api.db)).getTime() - 60_000);
    const start = from.toISOString();
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push((await post({ type: 'note', source: 'sync', external_id: `s-${unique()}` })).json.reference);
    await setUpdatedAtInOrder(api.db, 'activities', { companyId: company.id, column: 'reference', values: made }, from);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`?page_size=2&updated_since=${encodeURIComponent(start)}${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.json.results.map((a: { reference: string }) => a.reference));
      cursor = page.json.next_cursor;
    } while (cursor);
    expect(seen).toEqual(made);
    const one = await list('?external=sync:missing');
    expect(one.json).toEqual({ results: [], next_cursor: null });
    const sample = await post({ type: 'note', source: 'sync', external_id: 'with:colon' });
    const found = await list(`?external=${encodeURIComponent('sync:with:colon')}`);
    expect(found.json.results.map((a: { reference: string }) => a.reference)).toEqual([sample.json.reference]);
  });

  it('audits a read that names a person (one row, only those activities), and not one that names nobody', async () => {
    const lead = await newLead();
    await moveUpdatedAtBack(api.db, ['activities'], company.id, 3_600_000);
    const from = new Date((await databaseNow(api.db)).getTime() - 60_000);
    const start = from.toISOString();
    const anonymous = await post({ type: 'note', source: 'audit', external_id: `a-${unique()}` });
    const audits = () =>
      api.db
        .selectFrom('audit_log')
        .selectAll()
        .where('company_id', '=', company.id)
        .where('action', '=', 'personal_data.read')
        .orderBy('id')
        .execute();
    let before = (await audits()).length;
    await list(`?external=audit:${anonymous.json.external_id}`);
    expect((await audits()).length).toBe(before);
    const named = await post({ type: 'note', source: 'audit', external_id: `b-${unique()}`, person: lead.person });
    const references = [anonymous.json.reference, named.json.reference];
    await setUpdatedAtInOrder(api.db, 'activities', { companyId: company.id, column: 'reference', values: references }, from);
    before = (await audits()).length;
    const page = await list(`?updated_since=${encodeURIComponent(start)}`);
    expect(page.json.results.map((a: { reference: string }) => a.reference)).toEqual([
      anonymous.json.reference,
      named.json.reference,
    ]);
    const rows = (await audits()).slice(before);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor: `api:${reader.prefix}`, details: { references: [named.json.reference] } });
  });
});
