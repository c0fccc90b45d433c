import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../clients/typescript/src/index';
import { eraseContact } from '../../functions/crm/erasure';
import { type TestClient, testClient } from '../support/client';
import { createTestApi, openTestDatabase, type TestApi, statementLog } from '../support/harness';
import { setUpdatedAt } from '../support/times';
import { createCompany, createKey, type Key, type World, world } from '../support/world';

type LeadPatch = components['schemas']['LeadPatch'];
type Status = NonNullable<LeadPatch['status']>;

let statements: string[] | undefined;
const log = statementLog(() => statements);

let w: World;
let api: TestApi;
let company: { id: string; host: string };
let writer: Key;
let reader: Key;
let writes: TestClient;
let reads: TestClient;
let member: string;

beforeAll(async () => {
  w = await world({ api: await createTestApi({ handle: await openTestDatabase({ log }) }) });
  ({ api, company } = w);
  writer = await w.keyWith(['write:leads']);
  reader = await w.keyWith(['read:leads']);
  [writes, reads] = await Promise.all([w.clientWith(writer.secret), w.clientWith(reader.secret)]);
  member = w.members.sara;
});
afterAll(() => api.close());

const newLead = (extra: Record<string, unknown> = {}) => w.lead(extra);
const patch = async (reference: string, body: LeadPatch) => {
  const { data, error, response } = await writes.PATCH('/api/v1/leads/{reference}', { params: { path: { reference } }, body });
  return { status: response.status, data: data!, error: error! };
};
const getLead = async (reference: string) => {
  const { data, response } = await reads.GET('/api/v1/leads/{reference}', { params: { path: { reference } } });
  return { status: response.status, data: data! };
};
const listLeads = async (query: { updated_since?: string; external?: string }) =>
  (await reads.GET('/api/v1/leads', { params: { query } })).data!;
/** The typed client of a new company of its own, on a key with these scopes. */
const otherCompany = async (scopes: Parameters<World['keyWith']>[0]) => {
  const own = await createCompany(api);
  const key = await createKey(api, own.id, { scopes });
  return testClient(api, { host: own.host, serverKey: key.secret });
};
const events = async (type: string, reference: string) =>
  (await w.events(type, reference)).map((e) => ({ caused_by: e.caused_by, data: e.data }));

/** The decided transitions, written out independently of the implementation. */
const allowed: Record<Status, Status[]> = {
  new: ['contacted', 'qualified', 'lost', 'spam'],
  contacted: ['qualified', 'viewing', 'negotiating', 'won', 'lost', 'spam'],
  qualified: ['contacted', 'viewing', 'negotiating', 'won', 'lost'],
  viewing: ['qualified', 'negotiating', 'won', 'lost'],
  negotiating: ['viewing', 'won', 'lost'],
  won: [],
  lost: ['contacted'],
  spam: ['new'],
};
const statuses: Status[] = ['new', 'contacted', 'qualified', 'viewing', 'negotiating', 'won', 'lost', 'spam'];
/** A way from `new` to each status along allowed moves. */
const pathTo: Record<Status, Status[]> = {
  new: [],
  contacted: ['contacted'],
  qualified: ['qualified'],
  viewing: ['contacted', 'viewing'],
  negotiating: ['contacted', 'negotiating'],
  won: ['contacted', 'won'],
  lost: ['lost'],
  spam: ['spam'],
};

describe('PATCH /leads/{reference}: status', () => {
  it.each(statuses)('from %s allows exactly the decided moves (409 invalid_transition naming them otherwise)', async (from) => {
    for (const to of statuses) {
      const { reference } = await newLead();
      for (const step of pathTo[from]!) expect((await patch(reference, { status: step })).status).toBe(200);
      const res = await patch(reference, { status: to });
      if (to === from || allowed[from]!.includes(to)) {
        expect(res.status, `${from} → ${to}: ${JSON.stringify(res.error)}`).toBe(200);
        expect(res.data.status).toBe(to);
      } else {
        expect(res.status, `${from} → ${to}`).toBe(409);
        expect(res.error.code).toBe('invalid_transition');
        const next = allowed[from]!.length > 0 ? allowed[from]!.join(', ') : 'none (final)';
        expect(res.error.errors).toEqual([
          { path: 'status', code: 'invalid_transition', message: expect.stringContaining(next) },
        ]);
        expect(res.error.allowed).toEqual(allowed[from]);
        expect((await getLead(reference)).data.status).toBe(from);
      }
    }
  });

  it('records lead.status_changed (reference, from, to) caused by the key; the same status answers 200 with no event', async () => {
    const { reference } = await newLead();
    await patch(reference, { status: 'contacted' });
    const same = await patch(reference, { status: 'contacted' });
    expect(same.status).toBe(200);
    await patch(reference, { status: 'won' });
    expect(await events('lead.status_changed', reference)).toEqual([
      { caused_by: `api:${writer.prefix}`, data: { reference, from: 'new', to: 'contacted' } },
      { caused_by: `api:${writer.prefix}`, data: { reference, from: 'contacted', to: 'won' } },
    ]);
  });
});

describe('PATCH /leads/{reference}: assignee, department, next action, external id', () => {
  it('assigns an active member and records lead.assigned; null unassigns (and is recorded too)', async () => {
    const { reference } = await newLead();
    const res = await patch(reference, { assignee: member });
    expect(res.status).toBe(200);
    expect(res.data.assignee).toBe(member);
    expect((await patch(reference, { assignee: member })).status).toBe(200);
    expect((await patch(reference, { assignee: null })).data.assignee).toBeNull();
    expect(await events('lead.assigned', reference)).toEqual([
      { caused_by: `api:${writer.prefix}`, data: { reference, assignee: member } },
      { caused_by: `api:${writer.prefix}`, data: { reference, assignee: null } },
    ]);
  });

  it('refuses with 400 an unknown member, an inactive one, and one of another company', async () => {
    const other = await createCompany(api);
    const addMember = async (companyId: string, body: { name: string; active?: boolean }) =>
      (
        await w.adminClient.POST('/admin/v1/companies/{company_id}/members', {
          params: { path: { company_id: companyId } },
          body: body as never,
        })
      ).data?.id ?? '';
    const foreign = await addMember(other.id, { name: 'Elsewhere' });
    const inactive = await addMember(company.id, { name: 'Gone', active: false });
    const { reference } = await newLead();
    for (const assignee of ['mem_unknown', foreign, inactive]) {
      const res = await patch(reference, { assignee });
      expect(res.status, assignee).toBe(400);
      expect(res.error.errors?.[0]?.path).toBe('assignee');
    }
    expect(await events('lead.assigned', reference)).toEqual([]);
  });

  it('sets and clears the department (unknown: 400) and the next action', async () => {
    const { reference } = await newLead();
    expect((await patch(reference, { department: 'nope' })).error.errors?.[0]?.path).toBe('department');
    const due = '2026-12-01T08:00:00+04:00';
    const res = await patch(reference, { department: 'sales', next_action: { text: 'Call back', due_at: due } });
    expect(res.data).toMatchObject({
      department: 'sales',
      next_action: { text: 'Call back', due_at: '2026-12-01T04:00:00.000Z' },
    });
    const cleared = await patch(reference, { department: null, next_action: null });
    expect(cleared.data).toMatchObject({ department: null, next_action: null });
    expect((await patch(reference, { next_action: { text: 'Email' } })).data.next_action).toEqual({
      text: 'Email',
      due_at: null,
    });
  });

  it('keeps the client id: ?external finds the lead; another lead cannot take it (409)', async () => {
    const first = await newLead();
    const second = await newLead();
    // An earlier instant set explicitly: two writes in one millisecond would tie on PGlite's clock.
    await setUpdatedAt(
      api.db,
      'leads',
      { companyId: company.id, column: 'reference', value: first.reference },
      new Date('2025-01-01T00:00:00.000Z'),
    );
    const before = (await getLead(first.reference)).data.updated_at;
    const res = await patch(first.reference, { external: { source: 'hubspot', id: `deal:${first.reference}` } });
    expect(res.data.external).toEqual([{ source: 'hubspot', id: `deal:${first.reference}` }]);
    expect(res.data.updated_at > before).toBe(true);
    const found = await listLeads({ external: `hubspot:deal:${first.reference}` });
    expect(found.results.map((l) => l.reference)).toEqual([first.reference]);
    expect(await listLeads({ external: 'hubspot:none' })).toEqual({ results: [], next_cursor: null });
    const taken = await patch(second.reference, { external: { source: 'hubspot', id: `deal:${first.reference}` } });
    expect(taken.status).toBe(409);
  });

  it('answers 404 for an unknown lead and 409 for an erased one (any change)', async () => {
    expect((await patch('L-0000000000', { status: 'contacted' })).status).toBe(404);
    const lead = await newLead({ details: { note: 'private' }, message: 'hello' });
    const contact = await api.db
      .selectFrom('contacts')
      .select('id')
      .where('reference', '=', lead.person)
      .executeTakeFirstOrThrow();
    await eraseContact(api.db, company.id, contact.id, { causedBy: 'admin', now: api.clock.now() });
    const bodies: LeadPatch[] = [{ status: 'contacted' }, { assignee: member }, { external: { source: 'crm', id: 'x' } }];
    for (const body of bodies) {
      const res = await patch(lead.reference, body);
      expect(res.status).toBe(409);
      expect(res.error.code).toBe('conflict');
    }
    const read = await getLead(lead.reference);
    expect(read.data).toMatchObject({ erased: true, details: null, message: null, status: 'new' });
  });
});

describe('GET /leads', () => {
  it('pages in (updated_at, id) order with updated_since, missing nothing', async () => {
    const own = await otherCompany(['read:leads', 'write:leads']);
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await own.POST('/api/v1/leads', {
        body: { consent: true, consent_version: 'v1', phone: `+97150${1000000 + i}` },
      });
      made.push(res.data?.reference ?? '');
    }
    const seen: string[] = [];
    const pageAt = (cursor: string | null | undefined) =>
      own.GET('/api/v1/leads', { params: { query: { page_size: 2, cursor: cursor ?? undefined } } });
    let cursor: string | null | undefined = null;
    do {
      const page = await pageAt(cursor);
      expect(page.data?.results.length).toBeLessThanOrEqual(2);
      seen.push(...(page.data?.results ?? []).map((l) => l.reference));
      cursor = page.data?.next_cursor;
    } while (cursor);
    expect(seen).toEqual(made);
    const lead = (reference: string) => ({ params: { path: { reference } } });
    const third = await own.GET('/api/v1/leads/{reference}', lead(made[2] ?? ''));
    await own.PATCH('/api/v1/leads/{reference}', { ...lead(made[1] ?? ''), body: { status: 'spam' } });
    const since = await own.GET('/api/v1/leads', { params: { query: { updated_since: third.data?.updated_at } } });
    expect(since.data?.results.map((l) => l.reference)).toEqual([made[2], made[3], made[4], made[1]]);
  });

  it('writes one audit row per request with the key prefix and every reference returned', async () => {
    const a = await newLead();
    const b = await newLead();
    const audits = () =>
      api.db
        .selectFrom('audit_log')
        .selectAll()
        .where('company_id', '=', company.id)
        .where('action', '=', 'personal_data.read')
        .orderBy('id')
        .execute();
    const before = (await audits()).length;
    const page = await listLeads({ updated_since: (await getLead(a.reference)).data.updated_at });
    const rows = (await audits()).slice(before);
    expect(rows).toHaveLength(2); // the GET of one lead, then the page
    const last = rows[1]!;
    expect(last).toMatchObject({ actor: `api:${reader.prefix}`, subject: reader.prefix });
    expect(last.details.references).toEqual(page.results.map((l) => l.reference));
    expect(last.details.references).toEqual(expect.arrayContaining([a.reference, b.reference]));
  });

  it('costs the same number of queries for a page of 1, 5 and 20 leads (with details and external ids)', async () => {
    const own = await otherCompany(['read:leads', 'write:leads']);
    for (let i = 0; i < 20; i++) {
      const res = await own.POST('/api/v1/leads', {
        body: { consent: true, consent_version: 'v1', phone: `+97155${1000000 + i}`, details: { n: i } },
      });
      await own.PATCH('/api/v1/leads/{reference}', {
        params: { path: { reference: res.data?.reference ?? '' } },
        body: { external: { source: 'crm', id: String(i) } },
      });
    }
    // Once per key or process, not per request: the key's last use, and the company row kept in memory once the
    // listening connection is up and this process's writes are notified (lib/company-cache.ts).
    await api.platform.companyCache.listening();
    await api.platform.companyCache.settled();
    await own.GET('/api/v1/leads', { params: { query: { page_size: 1 } } });
    const counts: number[] = [];
    for (const size of [1, 5, 20]) {
      statements = [];
      const res = await own.GET('/api/v1/leads', { params: { query: { page_size: size } } });
      counts.push(statements.length);
      statements = undefined;
      expect(res.data?.results).toHaveLength(size);
      expect(res.data?.results.every((l) => l.details && l.external.length === 1)).toBe(true);
    }
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts).toEqual([counts[0], counts[0], counts[0]]);
  });

  it('answers 404 for an unknown reference and for a lead of another company', async () => {
    expect((await getLead('L-0000000000')).status).toBe(404);
    const other = await otherCompany(['write:leads']);
    const res = await other.POST('/api/v1/leads', { body: { consent: true, consent_version: 'v1', email: 'x@example.com' } });
    expect((await getLead(res.data?.reference ?? '')).status).toBe(404);
  });
});
