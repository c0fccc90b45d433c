import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { testClient } from '../support/client';
import { createCompany, createKey, useClients, useWorld } from '../support/world';

const w = useWorld({ pipelines: true });
const [writes, reads] = useClients(w, ['write:pipelines'], ['read:pipelines']);

/** A body as sent (any JSON: the refusals too). */
type Body = Record<string, unknown>;
const path = (reference: string) => ({ params: { path: { reference } } });
const post = (body: Body, client = writes) => client.POST('/api/v1/deals', { body: body as never });
const patch = (reference: string, body: Body, headers: Record<string, string> = {}) =>
  writes.PATCH('/api/v1/deals/{reference}', { ...path(reference), body: body as never, headers });
const read = (reference: string) => reads.GET('/api/v1/deals/{reference}', path(reference));
const lead = async (body: Body = {}) => {
  const email = `lead.${w.unique()}@example.com`;
  const { reference } = await w.lead({ email, ...body });
  return { reference, email };
};
const contactOf = async (email: string) =>
  w.api.db.selectFrom('contacts').selectAll().where('company_id', '=', w.company.id).where('email_key', '=', email).execute();

describe('POST /deals', () => {
  it('adds a deal from a person’s reference (201), in the first pipeline’s first open stage', async () => {
    const person = await w.contact();
    const res = await post({ person, title: 'Flat', value: '1250000', home: 'marina-gate-2br-sea-view' });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data?.reference).toMatch(/^D-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(res.data).toMatchObject({
      pipeline: 'sales',
      stage: 'new',
      status: 'open',
      person,
      enquiry: null,
      home: 'marina-gate-2br-sea-view',
      title: 'Flat',
      value: '1250000.00',
      money: { currency: 'AED', commission: null },
      probability: 10,
      probability_source: 'stage',
      outcome: null,
      external: [],
    });
  });

  it('adds a deal from an enquiry’s reference: its person, home, department and assignee', async () => {
    const enquiry = await lead({ listing: 'marina-gate-1br-furnished' });
    const leads = await w.clientWith(['write:leads']);
    await leads.PATCH('/api/v1/leads/{reference}', { ...path(enquiry.reference), body: { assignee: w.members.lina } });
    const res = await post({ enquiry: enquiry.reference, pipeline: 'leasing' });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    const [person] = await contactOf(enquiry.email);
    expect(res.data).toMatchObject({
      pipeline: 'leasing',
      stage: 'new',
      enquiry: enquiry.reference,
      person: person?.reference,
      home: 'marina-gate-1br-furnished',
      handler: w.members.lina,
    });
    const sent = await post({ enquiry: enquiry.reference, home: 'jvc-2br-townhouse', handler: null });
    expect(sent.response.status, JSON.stringify(sent.error)).toBe(400);
  });

  it('adds a deal from a person’s details, matched exactly as POST /contacts: email, filling, never overwriting', async () => {
    const email = `Match.${w.unique()}@Example.com`;
    const person = await w.contact({ email: email.toLowerCase() });
    const res = await post({ person: { email, name: 'Other Name', phone: '+971501234567' } });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data?.person).toBe(person);
    const [row] = await contactOf(email.toLowerCase());
    expect(row?.name).toBe(email.toLowerCase());
    expect(row?.phone).toBe('+971501234567');
    const fresh = await post({ person: { email: `new.${w.unique()}@example.com`, name: 'New' } });
    expect(fresh.response.status).toBe(201);
    expect(fresh.data?.person).not.toBe(person);
    const types = (await w.allEvents()).map((e) => e.type);
    expect(types).toContain('contact.created');
    expect(types).toContain('contact.updated');
  });

  it('refuses what names nothing of the company (400), and writes nothing', async () => {
    const person = await w.contact();
    const count = async () =>
      (await w.api.db.selectFrom('deals').select('id').where('company_id', '=', w.company.id).execute()).length;
    const before = await count();
    const cases: Array<[Body, string, string]> = [
      [{ person: 'P-0000000000' }, 'person', 'unknown_reference'],
      [{ enquiry: 'L-0000000000' }, 'enquiry', 'unknown_reference'],
      [{ person, pipeline: 'nope' }, 'pipeline', 'unknown_pipeline'],
      [{ person, stage: 'nope' }, 'stage', 'unknown_stage'],
      [{ person, stage: 'won' }, 'stage', 'stage_not_open'],
      [{ person, home: 'no-such-home' }, 'home', 'unknown_reference'],
      [{ person, owner: person }, 'owner', 'same_party'],
      [{ person, handler: 'mem_nobody' }, 'handler', 'unknown_reference'],
      [{ person, department: 'nope' }, 'department', 'unknown_reference'],
    ];
    for (const [body, path, code] of cases) {
      const res = await post(body);
      expect(res.response.status, JSON.stringify(res.error)).toBe(400);
      expect(res.error?.errors, JSON.stringify(body)).toEqual([expect.objectContaining({ path, code })]);
    }
    for (const body of [{}, { person, enquiry: 'L-0000000000' }, { person, value: '-1' }, { person, probability: 101 }]) {
      expect((await post(body)).response.status).toBe(400);
    }
    expect(await count()).toBe(before);
  });

  it('answers 400 no_pipeline for a company without pipelines', async () => {
    const company = await createCompany(w.api);
    const key = await createKey(w.api, company.id, { scopes: ['write:pipelines'] });
    const res = await post(
      { person: { email: 'a@example.com' } },
      testClient(w.api, { host: company.host, serverKey: key.secret }),
    );
    expect(res.response.status).toBe(400);
    expect(res.error?.errors?.[0]?.code).toBe('no_pipeline');
  });

  it('answers the first deal (200) for the same external id, writing nothing more', async () => {
    const external = { source: 'pipedrive', id: `deal-${w.unique()}` };
    const first = await w.deal({ external, value: '10' });
    expect(first.external).toEqual([external]);
    const again = await post({ person: { email: `other.${w.unique()}@example.com` }, external, value: '99' });
    expect(again.response.status, JSON.stringify(again.error)).toBe(200);
    expect(again.data).toEqual(first);
    const byExternal = await reads.GET('/api/v1/deals', { params: { query: { external: `pipedrive:${external.id}` } } });
    expect(byExternal.data?.results.map((d) => d.reference)).toEqual([first.reference]);
  });

  it('gives the person’s external id held by an erased person to the new person it adds', async () => {
    const external = { source: 'crm', id: `p-${w.unique()}` };
    const email = `gone.${w.unique()}@example.com`;
    const first = await post({ person: { email, external } });
    expect(first.response.status, JSON.stringify(first.error)).toBe(201);
    const erased = await w.adminClient.POST('/admin/v1/companies/{company_id}/contacts/{reference}/erase', {
      params: { path: { company_id: w.company.id, reference: first.data?.person ?? '' } },
    });
    expect(erased.data).toMatchObject({ erased: true });
    const again = await post({ person: { email, external } });
    expect(again.response.status, JSON.stringify(again.error)).toBe(201);
    expect(again.data?.person).not.toBe(first.data?.person);
    const holders = await w.api.db
      .selectFrom('external_ids')
      .innerJoin('contacts', (join) => join.on(sql`contacts.id::text`, '=', sql.ref('external_ids.record_id')))
      .select('contacts.reference')
      .where('external_ids.company_id', '=', w.company.id)
      .where('external_ids.record_type', '=', 'contact')
      .where('external_ids.external_id', '=', external.id)
      .execute();
    expect(holders.map((h) => h.reference)).toEqual([again.data?.person]);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('20 concurrent identical creates (PostgreSQL)', () => {
  it('give one deal and one person; one 201, the others 200 with the same deal', async () => {
    const external = { source: 'hubspot', id: `race-${w.unique()}` };
    const email = `race.${w.unique()}@example.com`;
    const body = { person: { email, name: 'Race' }, external, title: 'Race' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(body)));
    expect(answers.map((a) => a.response.status).sort(), answers.map((a) => JSON.stringify(a.error)).join('\n')).toEqual([
      ...Array(19).fill(200),
      201,
    ]);
    expect(new Set(answers.map((a) => a.data?.reference)).size).toBe(1);
    expect(await contactOf(email)).toHaveLength(1);
    const links = await w.api.db
      .selectFrom('external_ids')
      .select('record_id')
      .where('company_id', '=', w.company.id)
      .where('external_id', '=', external.id)
      .execute();
    expect(links).toHaveLength(1);
  });
});

describe('GET /deals and /deals/{reference}', () => {
  it('reads one deal, 404 for an unknown one, and audits the read', async () => {
    const deal = await w.deal();
    const res = await read(deal.reference);
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual(deal);
    expect((await read('D-0000000000')).response.status).toBe(404);
    const audit = await w.api.db.selectFrom('audit_log').selectAll().where('company_id', '=', w.company.id).execute();
    expect(JSON.stringify(audit)).toContain(deal.reference);
  });

  it('filters by pipeline, stage, status and person, and pages through every deal', async () => {
    const person = await w.contact();
    const mine = await w.deal({ person, pipeline: 'leasing', stage: 'viewing' });
    type Query = { person: string; pipeline?: string; stage?: string; status?: 'open' | 'won' | 'lost' };
    const refs = async (query: Query) =>
      (await reads.GET('/api/v1/deals', { params: { query } })).data?.results.map((d) => d.reference);
    expect(await refs({ person })).toEqual([mine.reference]);
    expect(await refs({ person, pipeline: 'leasing', stage: 'viewing', status: 'open' })).toEqual([mine.reference]);
    expect(await refs({ person, pipeline: 'sales' })).toEqual([]);
    expect(await refs({ person, status: 'won' })).toEqual([]);
    const closed = await reads.GET('/api/v1/deals', { params: { query: { status: 'closed' as never } } });
    expect(closed.response.status).toBe(400);
    const all: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await reads.GET('/api/v1/deals', { params: { query: { page_size: 3, cursor } } });
      all.push(...(page.data?.results ?? []).map((d) => d.reference));
      cursor = page.data?.next_cursor ?? undefined;
    } while (cursor);
    const count = await w.api.db.selectFrom('deals').select('id').where('company_id', '=', w.company.id).execute();
    expect(new Set(all).size).toBe(count.length);
  });
});

describe('PATCH /deals/{reference}', () => {
  it('changes title, home, owner, handler, department, value, commission, probability, expected close and the id', async () => {
    const deal = await w.deal();
    const owner = await w.contact();
    const external = { source: 'crm', id: `p-${w.unique()}` };
    const body = {
      title: 'Renamed',
      home: 'jvc-2br-townhouse',
      owner,
      handler: w.members.lina,
      department: 'sales',
      value: '99.5',
      commission: '2.25',
      probability: 75,
      expected_close: '2027-03-31',
      external,
    };
    const res = await patch(deal.reference, body);
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toMatchObject({
      title: 'Renamed',
      home: 'jvc-2br-townhouse',
      owner,
      handler: w.members.lina,
      department: 'sales',
      value: '99.50',
      money: { currency: 'AED', commission: '2.25' },
      probability: 75,
      probability_source: 'deal',
      expected_close: '2027-03-31',
      external: [external],
    });
    expect((res.data?.updated_at ?? '') > deal.updated_at).toBe(true);
    expect(res.response.headers.get('ETag')).toBe('"v2"');
    const back = await patch(deal.reference, { probability: null, home: null, owner: null });
    expect(back.data).toMatchObject({ probability: 10, probability_source: 'stage', home: null, owner: null });
  });

  it('changes nothing for the same values (no new version), refuses a stage or status, and 404s an unknown deal', async () => {
    const deal = await w.deal({ title: 'Same' });
    const same = await patch(deal.reference, { title: 'Same' });
    expect(same.response.headers.get('ETag')).toBe('"v1"');
    expect((await patch(deal.reference, { stage: 'won' })).response.status).toBe(400);
    expect((await patch(deal.reference, { value: '1.234' })).response.status).toBe(400);
    expect((await patch('D-0000000000', { title: 'x' })).response.status).toBe(404);
  });

  it('refuses an If-Match of an older version (412)', async () => {
    const deal = await w.deal();
    await patch(deal.reference, { title: 'One' });
    const stale = await patch(deal.reference, { title: 'Two' }, { 'If-Match': '"v1"' });
    expect(stale.response.status).toBe(412);
    expect((await read(deal.reference)).data?.title).toBe('One');
  });
});
