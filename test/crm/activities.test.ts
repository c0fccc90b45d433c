import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../clients/typescript/src/index';
import { eraseContact } from '../../functions/crm/erasure';
import type { TestClient } from '../support/client';
import { databaseNow, moveUpdatedAtBack, setUpdatedAtInOrder } from '../support/times';
import { type Key, unique, type World, world } from '../support/world';

type ActivityInput = components['schemas']['ActivityInput'];

let w: World;
let writer: Key;
let reader: Key;
let writes: TestClient;
let reads: TestClient;
let member: string;

beforeAll(async () => {
  w = await world();
  writer = await w.keyWith(['write:followups']);
  reader = await w.keyWith(['read:followups']);
  [writes, reads] = await Promise.all([w.clientWith(writer.secret), w.clientWith(reader.secret)]);
  member = w.members.retired;
});
afterAll(() => w.close());

const newLead = () => w.lead();
const readLead = async (reference: string) =>
  (await w.client.GET('/api/v1/leads/{reference}', { params: { path: { reference } } })).data!;
/** A valid body, through the typed client. */
const post = async (body: ActivityInput) => {
  const { data, error, response } = await writes.POST('/api/v1/activities', { body });
  return { status: response.status, data: data!, error };
};
/** Any body, valid or not (the refusals). */
const postRaw = (body: Record<string, unknown>) => writes.POST('/api/v1/activities', { body: body as never });
const list = async (query: { page_size?: number; updated_since?: string; cursor?: string; external?: string } = {}) =>
  (await reads.GET('/api/v1/activities', { params: { query } })).data!;
const created = async (reference: string) => w.events('activity.created', reference);

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
    expect(res.status, JSON.stringify(res.error)).toBe(201);
    expect(Object.keys(res.data).sort()).toEqual(
      'body by created_at external_id lead occurred_at person reference source type updated_at'.split(' ').sort(),
    );
    expect(res.data).toMatchObject({
      type: 'meeting',
      source: 'hubspot',
      lead: lead.reference,
      person: lead.person,
      by: member,
      body: 'Met at the site',
      occurred_at: '2026-11-20T06:00:00.000Z',
    });
    expect(res.data.reference).toMatch(/^A-[0-9A-Z]{10}$/);
    const events = await created(res.data.reference);
    expect(events.map((e) => [e.caused_by, e.data])).toEqual([
      [`api:${writer.prefix}`, { reference: res.data.reference, lead: lead.reference, person: lead.person }],
    ]);
  });

  it('answers 200 with the first record for the same source and external_id, with no new event', async () => {
    const externalId = `n-${unique()}`;
    const first = await post({ type: 'note', source: 'hubspot', external_id: externalId, body: 'first' });
    const again = await post({ type: 'email', source: 'hubspot', external_id: externalId, body: 'second' });
    expect([first.status, again.status]).toEqual([201, 200]);
    expect(again.data).toEqual(first.data);
    const other = await post({ type: 'note', source: 'pipedrive', external_id: externalId });
    expect(other.status).toBe(201);
    expect(await created(first.data.reference)).toHaveLength(1);
  });

  it('gives exactly one record for 20 concurrent identical posts: one 201 and nineteen 200', async () => {
    const lead = await newLead();
    const body: ActivityInput = { type: 'call', source: 'pbx', external_id: `c-${unique()}`, lead: lead.reference };
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(body)));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array(19).fill(200), 201]);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.data.reference)).size).toBe(1);
    const onLead = w.api.db.selectFrom('leads').select('id').where('reference', '=', lead.reference);
    const rows = await w.api.db.selectFrom('activities').select('id').where('lead_id', 'in', onLead).execute();
    const ids = w.api.db.selectFrom('external_ids').select('record_id');
    const held = await ids.where('record_type', '=', 'activity').where('external_id', '=', body.external_id).execute();
    expect(held.map((h) => h.record_id)).toEqual(rows.map((r) => r.id));
    expect(rows).toHaveLength(1);
    expect(await created(answers[0]!.data.reference)).toHaveLength(1);
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
    const res = await postRaw({ type: 'note', source: 'crm', external_id: `x-${unique()}`, ...change });
    expect(res.response.status, JSON.stringify(res.error)).toBe(400);
    expect(res.error?.errors?.map((e) => e.path)).toContain(path);
  });

  it('refuses (409) an activity about an erased person or lead', async () => {
    const lead = await newLead();
    const contact = await w.api.db
      .selectFrom('contacts')
      .select('id')
      .where('reference', '=', lead.person)
      .executeTakeFirstOrThrow();
    await eraseContact(w.api.db, w.company.id, contact.id, { causedBy: 'admin', now: w.api.clock.now() });
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
    await moveUpdatedAtBack(w.api.db, ['activities'], w.company.id, 3_600_000);
    const from = new Date((await databaseNow(w.api.db)).getTime() - 60_000);
    const start = from.toISOString();
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push((await post({ type: 'note', source: 'sync', external_id: `s-${unique()}` })).data.reference);
    await setUpdatedAtInOrder(w.api.db, 'activities', { companyId: w.company.id, column: 'reference', values: made }, from);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await list({ page_size: 2, updated_since: start, cursor });
      seen.push(...page.results.map((a) => a.reference));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(made);
    const one = await list({ external: 'sync:missing' });
    expect(one).toEqual({ results: [], next_cursor: null });
    const sample = await post({ type: 'note', source: 'sync', external_id: 'with:colon' });
    const found = await list({ external: 'sync:with:colon' });
    expect(found.results.map((a) => a.reference)).toEqual([sample.data.reference]);
  });

  it('audits a read that names a person (one row, only those activities), and not one that names nobody', async () => {
    const lead = await newLead();
    await moveUpdatedAtBack(w.api.db, ['activities'], w.company.id, 3_600_000);
    const from = new Date((await databaseNow(w.api.db)).getTime() - 60_000);
    const start = from.toISOString();
    const anonymous = await post({ type: 'note', source: 'audit', external_id: `a-${unique()}` });
    const audits = () =>
      w.api.db
        .selectFrom('audit_log')
        .selectAll()
        .where('company_id', '=', w.company.id)
        .where('action', '=', 'personal_data.read')
        .orderBy('id')
        .execute();
    let before = (await audits()).length;
    await list({ external: `audit:${anonymous.data.external_id}` });
    expect((await audits()).length).toBe(before);
    const named = await post({ type: 'note', source: 'audit', external_id: `b-${unique()}`, person: lead.person });
    const references = [anonymous.data.reference, named.data.reference];
    await setUpdatedAtInOrder(w.api.db, 'activities', { companyId: w.company.id, column: 'reference', values: references }, from);
    before = (await audits()).length;
    const page = await list({ updated_since: start });
    expect(page.results.map((a) => a.reference)).toEqual([anonymous.data.reference, named.data.reference]);
    const rows = (await audits()).slice(before);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor: `api:${reader.prefix}`, details: { references: [named.data.reference] } });
  });
});
