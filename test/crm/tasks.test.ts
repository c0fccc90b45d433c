import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, type TestApi } from '../support/harness';
import { databaseNow, moveUpdatedAtBack, setUpdatedAt, setUpdatedAtInOrder, expectStampedSince } from '../support/times';

let api: TestApi;
let company: { id: string; host: string };
let writer: { secret: string; prefix: string };
let reader: { secret: string; prefix: string };
let lead: { reference: string; person: string };
let member: string;
let retired: string;

beforeAll(async () => {
  api = await createTestApi();
  company = await api.createCompany();
  writer = await api.createKey(company.id, { scopes: ['write:followups'] });
  reader = await api.createKey(company.id, { scopes: ['read:followups'] });
  const leadsKey = (await api.createKey(company.id, { scopes: ['write:leads'] })).secret;
  lead = (
    await api.request('/api/v1/leads', {
      host: company.host,
      key: leadsKey,
      body: { consent: true, consent_version: 'v1', email: 'task.person@example.com' },
    })
  ).json;
  member = (await api.admin(`/companies/${company.id}/members`, { body: { name: 'Lina' } })).json.id;
  retired = (await api.admin(`/companies/${company.id}/members`, { body: { name: 'Retired', active: false } })).json.id;
});
afterAll(() => api.close());

let serial = 0;
const unique = () => `${Date.now().toString(36)}-${serial++}`;
const post = (body: Record<string, unknown>) => api.request('/api/v1/tasks', { host: company.host, key: writer.secret, body });
const patch = (id: string, body: unknown) =>
  api.request(`/api/v1/tasks/${id}`, { host: company.host, key: writer.secret, method: 'PATCH', body });
const get = (path: string) => api.request(`/api/v1${path}`, { host: company.host, key: reader.secret });
const eventsOf = async (taskId: string) =>
  (await api.db.selectFrom('events').selectAll().where('company_id', '=', company.id).orderBy('created_at').execute())
    .filter((e) => e.data.task_id === taskId)
    .map((e) => [e.type, e.caused_by, e.data]);

describe('POST /tasks', () => {
  it('adds an open task (201) and records task.created with ids and references only', async () => {
    const res = await post({
      title: 'Send the brochure',
      source: 'hubspot',
      external_id: `t-${unique()}`,
      due_on: '2026-12-01',
      assignee: member,
      lead: lead.reference,
    });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.json).sort()).toEqual(
      'assignee created_at done_at due_on external_id lead person source status task_id title updated_at'.split(' ').sort(),
    );
    expect(res.json).toMatchObject({
      title: 'Send the brochure',
      due_on: '2026-12-01',
      assignee: member,
      status: 'open',
      done_at: null,
      lead: lead.reference,
      person: lead.person,
    });
    expect(res.json.task_id).toMatch(/^task_[A-Za-z0-9]{20}$/);
    expect(await eventsOf(res.json.task_id)).toEqual([
      ['task.created', `api:${writer.prefix}`, { task_id: res.json.task_id, lead: lead.reference, person: lead.person }],
    ]);
  });

  it('answers 200 with the first task for the same source and external_id', async () => {
    const externalId = `t-${unique()}`;
    const first = await post({ title: 'First', source: 'hubspot', external_id: externalId });
    const again = await post({ title: 'Second', source: 'hubspot', external_id: externalId, due_on: '2027-01-01' });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.json).toEqual(first.json);
    expect(await eventsOf(first.json.task_id)).toHaveLength(1);
  });

  it('gives exactly one task for 20 concurrent identical posts: one 201 and nineteen 200', async () => {
    const race = unique();
    const body = { title: `Race ${race}`, source: 'pbx', external_id: `r-${race}`, person: lead.person };
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(body)));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(19).fill(200), 201]);
    expect(new Set(answers.map((a) => a.json.task_id)).size).toBe(1);
    const rows = await api.db.selectFrom('tasks').select('id').where('title', '=', body.title).execute();
    expect(rows.map((r) => r.id)).toEqual([answers[0]!.json.task_id]);
    const held = await api.db.selectFrom('external_ids').selectAll().where('record_id', '=', rows[0]!.id).execute();
    expect(held.map((h) => [h.record_type, h.source, h.external_id])).toEqual([['task', 'pbx', body.external_id]]);
    expect(await eventsOf(answers[0]!.json.task_id)).toHaveLength(1);
  });

  it.each([
    ['a date that does not exist', { due_on: '2026-02-30' }, 'due_on'],
    ['a date with a time', { due_on: '2026-02-01T10:00:00Z' }, 'due_on'],
    ['an inactive assignee', { assignee: 'RETIRED' }, 'assignee'],
    ['an unknown assignee', { assignee: 'mem_nobody' }, 'assignee'],
    ['an unknown lead', { lead: 'L-0000000000' }, 'lead'],
    ['an empty title', { title: ' ' }, 'title'],
  ])('refuses %s with 400 at its field', async (_name, change, path) => {
    const body: Record<string, unknown> = { title: 'x', source: 'crm', external_id: `x-${unique()}`, ...change };
    if (body.assignee === 'RETIRED') body.assignee = retired;
    const res = await post(body);
    expect(res.status, res.text).toBe(400);
    expect(res.json.errors.map((e: { path: string }) => e.path)).toContain(path);
  });
});

describe('PATCH /tasks/{task_id}', () => {
  it('marks done (done_at, task.done), reopens (done_at cleared, no event) and marks done again', async () => {
    const before = Date.now();
    const task = (await post({ title: 'Call back', source: 'crm', external_id: `p-${unique()}` })).json;
    const done = await patch(task.task_id, { status: 'done' });
    expect(done.json.status).toBe('done');
    expectStampedSince(done.json.done_at, before);
    expect((await patch(task.task_id, { status: 'done' })).json.done_at).toBe(done.json.done_at);
    // An earlier instant set explicitly: two writes in one millisecond would tie on PGlite's clock.
    const past = new Date('2025-01-01T00:00:00.000Z');
    await setUpdatedAt(api.db, 'tasks', { companyId: company.id, column: 'id', value: task.task_id }, past);
    const reopened = await patch(task.task_id, { status: 'open' });
    expect(reopened.json).toMatchObject({ status: 'open', done_at: null });
    expect(reopened.json.updated_at > past.toISOString()).toBe(true);
    await patch(task.task_id, { status: 'done' });
    expect((await eventsOf(task.task_id)).map((e) => e[0])).toEqual(['task.created', 'task.done', 'task.done']);
  });

  it('changes title, due date and assignee, and clears them with null', async () => {
    const task = (await post({ title: 'Old', source: 'crm', external_id: `q-${unique()}`, due_on: '2026-05-05' })).json;
    const changed = await patch(task.task_id, { title: 'New', due_on: '2026-06-30', assignee: member });
    expect(changed.json).toMatchObject({ title: 'New', due_on: '2026-06-30', assignee: member, status: 'open' });
    const cleared = await patch(task.task_id, { due_on: null, assignee: null });
    expect(cleared.json).toMatchObject({ title: 'New', due_on: null, assignee: null });
    expect((await patch(task.task_id, { assignee: retired })).status).toBe(400);
    expect((await patch(task.task_id, { status: 'closed' })).status).toBe(400);
  });

  it('answers 404 for an unknown task and for a task of another company', async () => {
    expect((await patch('task_unknown', { status: 'done' })).status).toBe(404);
    expect((await get('/tasks/task_unknown')).status).toBe(404);
    const other = await api.createCompany();
    const key = await api.createKey(other.id, { scopes: ['write:followups'] });
    const foreign = await api.request('/api/v1/tasks', {
      host: other.host,
      key: key.secret,
      body: { title: 'Theirs', source: 'crm', external_id: 'x' },
    });
    expect((await get(`/tasks/${foreign.json.task_id}`)).status).toBe(404);
  });
});

describe('GET /tasks', () => {
  it('pages in (updated_at, id) order with updated_since; external=<source>:<external_id> finds one; one task by id', async () => {
    // Times set, not waited for: earlier tasks an hour back, these five a second apart from `start` (two
    // inserts in one millisecond of PGlite's clock would tie), then the PATCH stamps the database's now.
    await moveUpdatedAtBack(api.db, ['tasks'], company.id, 3_600_000);
    const from = new Date((await databaseNow(api.db)).getTime() - 60_000);
    const start = from.toISOString();
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push((await post({ title: `T${i}`, source: 'sync', external_id: `s-${unique()}` })).json.task_id);
    await setUpdatedAtInOrder(api.db, 'tasks', { companyId: company.id, column: 'id', values: made }, from);
    await patch(made[0]!, { status: 'done' });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(`/tasks?page_size=2&updated_since=${encodeURIComponent(start)}${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.json.results.map((t: { task_id: string }) => t.task_id));
      cursor = page.json.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...made.slice(1), made[0]]);
    const one = (await get(`/tasks/${made[2]}`)).json;
    const found = await get(`/tasks?external=sync:${encodeURIComponent(one.external_id)}`);
    expect(found.json.results).toEqual([one]);
  });

  it('audits reads of tasks that name a person, one row per request', async () => {
    const named = (await post({ title: 'Named', source: 'audit', external_id: `n-${unique()}`, lead: lead.reference })).json;
    const audits = () =>
      api.db
        .selectFrom('audit_log')
        .selectAll()
        .where('company_id', '=', company.id)
        .where('action', '=', 'personal_data.read')
        .orderBy('id')
        .execute();
    const before = (await audits()).length;
    await get(`/tasks/${named.task_id}`);
    await get(`/tasks?external=audit:${named.external_id}`);
    const rows = (await audits()).slice(before);
    expect(rows.map((r) => [r.actor, r.details.references])).toEqual([
      [`api:${reader.prefix}`, [named.task_id]],
      [`api:${reader.prefix}`, [named.task_id]],
    ]);
  });
});
