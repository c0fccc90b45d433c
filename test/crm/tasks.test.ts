import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../clients/typescript/src/index';
import { type TestClient, testClient } from '../support/client';
import { databaseNow, expectStampedSince, moveUpdatedAtBack, setUpdatedAt, setUpdatedAtInOrder } from '../support/times';
import { createCompany, createKey, type Key, unique, type World, world } from '../support/world';

type TaskInput = components['schemas']['TaskInput'];
type TaskPatch = components['schemas']['TaskPatch'];

let w: World;
let writer: Key;
let reader: Key;
let writes: TestClient;
let reads: TestClient;
let lead: { reference: string; person: string };
let member: string;
let retired: string;

beforeAll(async () => {
  w = await world();
  writer = await w.keyWith(['write:followups']);
  reader = await w.keyWith(['read:followups']);
  [writes, reads] = await Promise.all([w.clientWith(writer.secret), w.clientWith(reader.secret)]);
  lead = await w.lead();
  member = w.members.lina;
  retired = w.members.retired;
});
afterAll(() => w.close());

const post = async (body: TaskInput) => {
  const { data, error, response } = await writes.POST('/api/v1/tasks', { body });
  return { status: response.status, data: data!, error };
};
const postRaw = (body: Record<string, unknown>) => writes.POST('/api/v1/tasks', { body: body as never });
const patch = async (task_id: string, body: TaskPatch) => {
  const { data, error, response } = await writes.PATCH('/api/v1/tasks/{task_id}', { params: { path: { task_id } }, body });
  return { status: response.status, data: data!, error };
};
const getOne = async (task_id: string) => reads.GET('/api/v1/tasks/{task_id}', { params: { path: { task_id } } });
const list = async (query: { page_size?: number; updated_since?: string; cursor?: string; external?: string }) =>
  (await reads.GET('/api/v1/tasks', { params: { query } })).data!;
const eventsOf = async (taskId: string) =>
  (await w.api.db.selectFrom('events').selectAll().where('company_id', '=', w.company.id).orderBy('created_at').execute())
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
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    expect(Object.keys(res.data).sort()).toEqual(
      'assignee created_at done_at due_on external_id lead person source status task_id title updated_at'.split(' ').sort(),
    );
    expect(res.data).toMatchObject({
      title: 'Send the brochure',
      due_on: '2026-12-01',
      assignee: member,
      status: 'open',
      done_at: null,
      lead: lead.reference,
      person: lead.person,
    });
    expect(res.data.task_id).toMatch(/^task_[A-Za-z0-9]{20}$/);
    expect(await eventsOf(res.data.task_id)).toEqual([
      ['task.created', `api:${writer.prefix}`, { task_id: res.data.task_id, lead: lead.reference, person: lead.person }],
    ]);
  });

  it('answers 200 with the first task for the same source and external_id', async () => {
    const externalId = `t-${unique()}`;
    const first = await post({ title: 'First', source: 'hubspot', external_id: externalId });
    const again = await post({ title: 'Second', source: 'hubspot', external_id: externalId, due_on: '2027-01-01' });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.data).toEqual(first.data);
    expect(await eventsOf(first.data.task_id)).toHaveLength(1);
  });

  it('gives exactly one task for 20 concurrent identical posts: one 201 and nineteen 200', async () => {
    const race = unique();
    const body = { title: `Race ${race}`, source: 'pbx', external_id: `r-${race}`, person: lead.person };
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(body)));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(19).fill(200), 201]);
    expect(new Set(answers.map((a) => a.data.task_id)).size).toBe(1);
    const rows = await w.api.db.selectFrom('tasks').select('id').where('title', '=', body.title).execute();
    expect(rows.map((r) => r.id)).toEqual([answers[0]!.data.task_id]);
    const held = await w.api.db.selectFrom('external_ids').selectAll().where('record_id', '=', rows[0]!.id).execute();
    expect(held.map((h) => [h.record_type, h.source, h.external_id])).toEqual([['task', 'pbx', body.external_id]]);
    expect(await eventsOf(answers[0]!.data.task_id)).toHaveLength(1);
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
    const res = await postRaw(body);
    expect(res.response.status, JSON.stringify(res.error)).toBe(400);
    expect(res.error?.errors?.map((e) => e.path)).toContain(path);
  });
});

describe('PATCH /tasks/{task_id}', () => {
  it('marks done (done_at, task.done), reopens (done_at cleared, no event) and marks done again', async () => {
    const before = Date.now();
    const task = (await post({ title: 'Call back', source: 'crm', external_id: `p-${unique()}` })).data;
    const done = await patch(task.task_id, { status: 'done' });
    expect(done.data.status).toBe('done');
    expectStampedSince(done.data.done_at ?? '', before);
    expect((await patch(task.task_id, { status: 'done' })).data.done_at).toBe(done.data.done_at);
    // An earlier instant set explicitly: two writes in one millisecond would tie on PGlite's clock.
    const past = new Date('2025-01-01T00:00:00.000Z');
    await setUpdatedAt(w.api.db, 'tasks', { companyId: w.company.id, column: 'id', value: task.task_id }, past);
    const reopened = await patch(task.task_id, { status: 'open' });
    expect(reopened.data).toMatchObject({ status: 'open', done_at: null });
    expect(reopened.data.updated_at > past.toISOString()).toBe(true);
    await patch(task.task_id, { status: 'done' });
    expect((await eventsOf(task.task_id)).map((e) => e[0])).toEqual(['task.created', 'task.done', 'task.done']);
  });

  it('changes title, due date and assignee, and clears them with null', async () => {
    const task = (await post({ title: 'Old', source: 'crm', external_id: `q-${unique()}`, due_on: '2026-05-05' })).data;
    const changed = await patch(task.task_id, { title: 'New', due_on: '2026-06-30', assignee: member });
    expect(changed.data).toMatchObject({ title: 'New', due_on: '2026-06-30', assignee: member, status: 'open' });
    const cleared = await patch(task.task_id, { due_on: null, assignee: null });
    expect(cleared.data).toMatchObject({ title: 'New', due_on: null, assignee: null });
    expect((await patch(task.task_id, { assignee: retired })).status).toBe(400);
    const closed = await patch(task.task_id, { status: 'closed' as never });
    expect(closed.status).toBe(400);
  });

  it('answers 404 for an unknown task and for a task of another company', async () => {
    expect((await patch('task_unknown', { status: 'done' })).status).toBe(404);
    expect((await getOne('task_unknown')).response.status).toBe(404);
    const other = await createCompany(w.api);
    const key = await createKey(w.api, other.id, { scopes: ['write:followups'] });
    const foreign = await testClient(w.api, { host: other.host, serverKey: key.secret }).POST('/api/v1/tasks', {
      body: { title: 'Theirs', source: 'crm', external_id: 'x' },
    });
    expect((await getOne(foreign.data?.task_id ?? '')).response.status).toBe(404);
  });
});

describe('GET /tasks', () => {
  it('pages in (updated_at, id) order with updated_since; external=<source>:<external_id> finds one; one task by id', async () => {
    // Times set, not waited for: earlier tasks an hour back, these five a second apart from `start` (two
    // inserts in one millisecond of PGlite's clock would tie), then the PATCH stamps the database's now.
    await moveUpdatedAtBack(w.api.db, ['tasks'], w.company.id, 3_600_000);
    const from = new Date((await databaseNow(w.api.db)).getTime() - 60_000);
    const start = from.toISOString();
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push((await post({ title: `T${i}`, source: 'sync', external_id: `s-${unique()}` })).data.task_id);
    await setUpdatedAtInOrder(w.api.db, 'tasks', { companyId: w.company.id, column: 'id', values: made }, from);
    await patch(made[0]!, { status: 'done' });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list({ page_size: 2, updated_since: start, cursor });
      seen.push(...page.results.map((t) => t.task_id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...made.slice(1), made[0]]);
    const one = (await getOne(made[2]!)).data!;
    const found = await list({ external: `sync:${one.external_id}` });
    expect(found.results).toEqual([one]);
  });

  it('audits reads of tasks that name a person, one row per request', async () => {
    const named = (await post({ title: 'Named', source: 'audit', external_id: `n-${unique()}`, lead: lead.reference })).data;
    const audits = () =>
      w.api.db
        .selectFrom('audit_log')
        .selectAll()
        .where('company_id', '=', w.company.id)
        .where('action', '=', 'personal_data.read')
        .orderBy('id')
        .execute();
    const before = (await audits()).length;
    await getOne(named.task_id);
    await list({ external: `audit:${named.external_id}` });
    const rows = (await audits()).slice(before);
    expect(rows.map((r) => [r.actor, r.details.references])).toEqual([
      [`api:${reader.prefix}`, [named.task_id]],
      [`api:${reader.prefix}`, [named.task_id]],
    ]);
  });
});
