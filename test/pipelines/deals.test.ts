import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipelineWorld, type PipelineWorld } from './http';

let w: PipelineWorld;
beforeAll(async () => {
  w = await pipelineWorld();
});
afterAll(() => w.api.close());

const lead = async (body: Record<string, unknown> = {}) => {
  const email = `lead.${w.unique()}@example.com`;
  const res = await w.api.request('/api/v1/leads', {
    host: w.company.host,
    key: w.crmKey,
    body: { consent: true, consent_version: 'v1', email, ...body },
  });
  if (res.status !== 201) throw new Error(res.text);
  return { reference: res.json.reference as string, email };
};
const contactOf = async (email: string) =>
  w.api.db.selectFrom('contacts').selectAll().where('company_id', '=', w.company.id).where('email_key', '=', email).execute();

describe('POST /deals', () => {
  it('adds a deal from a person’s reference (201), in the first pipeline’s first open stage', async () => {
    const person = await w.contact();
    const res = await w.write('/deals', { person, title: 'Flat', value: '1250000', home: 'marina-gate-2br-sea-view' });
    expect(res.status, res.text).toBe(201);
    expect(res.json.reference).toMatch(/^D-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(res.json).toMatchObject({
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
    await w.api.request(`/api/v1/leads/${enquiry.reference}`, {
      host: w.company.host,
      key: (await w.api.createKey(w.company.id, { scopes: ['write:leads'] })).secret,
      method: 'PATCH',
      body: { assignee: w.handler },
    });
    const res = await w.write('/deals', { enquiry: enquiry.reference, pipeline: 'leasing' });
    expect(res.status, res.text).toBe(201);
    const [person] = await contactOf(enquiry.email);
    expect(res.json).toMatchObject({
      pipeline: 'leasing',
      stage: 'new',
      enquiry: enquiry.reference,
      person: person?.reference,
      home: 'marina-gate-1br-furnished',
      handler: w.handler,
    });
    const sent = await w.write('/deals', { enquiry: enquiry.reference, home: 'jvc-2br-townhouse', handler: null });
    expect(sent.status, sent.text).toBe(400);
  });

  it('adds a deal from a person’s details, matched exactly as POST /contacts: email, filling, never overwriting', async () => {
    const email = `Match.${w.unique()}@Example.com`;
    const person = await w.contact(email.toLowerCase());
    const res = await w.write('/deals', { person: { email, name: 'Other Name', phone: '+971501234567' } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.person).toBe(person);
    const [row] = await contactOf(email.toLowerCase());
    expect(row?.name).toBe(email.toLowerCase());
    expect(row?.phone).toBe('+971501234567');
    const fresh = await w.write('/deals', { person: { email: `new.${w.unique()}@example.com`, name: 'New' } });
    expect(fresh.status).toBe(201);
    expect(fresh.json.person).not.toBe(person);
    const types = (await w.events()).map((e) => e.type);
    expect(types).toContain('contact.created');
    expect(types).toContain('contact.updated');
  });

  it('refuses what names nothing of the company (400), and writes nothing', async () => {
    const person = await w.contact();
    const count = async () =>
      (await w.api.db.selectFrom('deals').select('id').where('company_id', '=', w.company.id).execute()).length;
    const before = await count();
    const cases: Array<[Record<string, unknown>, string, string]> = [
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
      const res = await w.write('/deals', body);
      expect(res.status, res.text).toBe(400);
      expect(res.json.errors, JSON.stringify(body)).toEqual([expect.objectContaining({ path, code })]);
    }
    for (const body of [{}, { person, enquiry: 'L-0000000000' }, { person, value: '-1' }, { person, probability: 101 }]) {
      expect((await w.write('/deals', body)).status).toBe(400);
    }
    expect(await count()).toBe(before);
  });

  it('answers 400 no_pipeline for a company without pipelines', async () => {
    const company = await w.api.createCompany();
    const key = await w.api.createKey(company.id, { scopes: ['write:pipelines'] });
    const res = await w.api.request('/api/v1/deals', {
      host: company.host,
      key: key.secret,
      body: { person: { email: 'a@example.com' } },
    });
    expect(res.status).toBe(400);
    expect(res.json.errors[0].code).toBe('no_pipeline');
  });

  it('answers the first deal (200) for the same external id, writing nothing more', async () => {
    const external = { source: 'pipedrive', id: `deal-${w.unique()}` };
    const first = await w.deal({ external, value: '10' });
    expect(first.external).toEqual([external]);
    const again = await w.write('/deals', { person: { email: `other.${w.unique()}@example.com` }, external, value: '99' });
    expect(again.status, again.text).toBe(200);
    expect(again.json).toEqual(first);
    const byExternal = await w.get(`/deals?external=pipedrive:${external.id}`);
    expect(byExternal.json.results.map((d: { reference: string }) => d.reference)).toEqual([first.reference]);
  });
});

describe.skipIf(!process.env.DATABASE_URL)('20 concurrent identical creates (PostgreSQL)', () => {
  it('give one deal and one person; one 201, the others 200 with the same deal', async () => {
    const external = { source: 'hubspot', id: `race-${w.unique()}` };
    const email = `race.${w.unique()}@example.com`;
    const body = { person: { email, name: 'Race' }, external, title: 'Race' };
    const answers = await Promise.all(Array.from({ length: 20 }, () => w.write('/deals', body)));
    expect(answers.map((a) => a.status).sort(), answers.map((a) => a.text).join('\n')).toEqual([...Array(19).fill(200), 201]);
    expect(new Set(answers.map((a) => a.json.reference)).size).toBe(1);
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
    const res = await w.get(`/deals/${deal.reference}`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual(deal);
    expect((await w.get('/deals/D-0000000000')).status).toBe(404);
    const audit = await w.api.db.selectFrom('audit_log').selectAll().where('company_id', '=', w.company.id).execute();
    expect(JSON.stringify(audit)).toContain(deal.reference);
  });

  it('filters by pipeline, stage, status and person, and pages through every deal', async () => {
    const person = await w.contact();
    const mine = await w.deal({ person, pipeline: 'leasing', stage: 'viewing' });
    const refs = async (query: string) =>
      (await w.get(`/deals?${query}`)).json.results.map((d: { reference: string }) => d.reference);
    expect(await refs(`person=${person}`)).toEqual([mine.reference]);
    expect(await refs(`person=${person}&pipeline=leasing&stage=viewing&status=open`)).toEqual([mine.reference]);
    expect(await refs(`person=${person}&pipeline=sales`)).toEqual([]);
    expect(await refs(`person=${person}&status=won`)).toEqual([]);
    expect((await w.get('/deals?status=closed')).status).toBe(400);
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { json: { results: Array<{ reference: string }>; next_cursor: string | null } } = await w.get(
        `/deals?page_size=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      all.push(...page.json.results.map((d) => d.reference));
      cursor = page.json.next_cursor;
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
      handler: w.handler,
      department: 'sales',
      value: '99.5',
      commission: '2.25',
      probability: 75,
      expected_close: '2027-03-31',
      external,
    };
    const res = await w.write(`/deals/${deal.reference}`, body, {}, 'PATCH');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      title: 'Renamed',
      home: 'jvc-2br-townhouse',
      owner,
      handler: w.handler,
      department: 'sales',
      value: '99.50',
      money: { currency: 'AED', commission: '2.25' },
      probability: 75,
      probability_source: 'deal',
      expected_close: '2027-03-31',
      external: [external],
    });
    expect(res.json.updated_at > deal.updated_at).toBe(true);
    expect(res.headers.get('ETag')).toBe('"v2"');
    const back = await w.write(`/deals/${deal.reference}`, { probability: null, home: null, owner: null }, {}, 'PATCH');
    expect(back.json).toMatchObject({ probability: 10, probability_source: 'stage', home: null, owner: null });
  });

  it('changes nothing for the same values (no new version), refuses a stage or status, and 404s an unknown deal', async () => {
    const deal = await w.deal({ title: 'Same' });
    const same = await w.write(`/deals/${deal.reference}`, { title: 'Same' }, {}, 'PATCH');
    expect(same.headers.get('ETag')).toBe('"v1"');
    expect((await w.write(`/deals/${deal.reference}`, { stage: 'won' }, {}, 'PATCH')).status).toBe(400);
    expect((await w.write(`/deals/${deal.reference}`, { value: '1.234' }, {}, 'PATCH')).status).toBe(400);
    expect((await w.write('/deals/D-0000000000', { title: 'x' }, {}, 'PATCH')).status).toBe(404);
  });

  it('refuses an If-Match of an older version (412)', async () => {
    const deal = await w.deal();
    await w.write(`/deals/${deal.reference}`, { title: 'One' }, {}, 'PATCH');
    const stale = await w.write(`/deals/${deal.reference}`, { title: 'Two' }, { 'If-Match': '"v1"' }, 'PATCH');
    expect(stale.status).toBe(412);
    expect((await w.get(`/deals/${deal.reference}`)).json.title).toBe('One');
  });
});
