import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maintenanceWorld, type World } from './http';

let w: World;
beforeAll(async () => {
  w = await maintenanceWorld();
});
afterAll(() => w.api.close());

describe('POST /jobs', () => {
  it('adds an open job (201) on a home without a lease, with its fields shown and no warnings', async () => {
    const res = await w.write('/jobs', {
      home: 'jvc-2br-townhouse',
      category: 'electrical',
      problem: 'The hall light flickers.',
      estimate: '120',
      member: w.member,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.reference).toMatch(/^J-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(res.json).toMatchObject({
      home: 'jvc-2br-townhouse',
      lease: null,
      category: 'electrical',
      priority: 'normal',
      status: 'open',
      problem: 'The hall light flickers.',
      work_done: null,
      contractor: null,
      member: w.member,
      day: null,
      window: null,
      calendar: { block_wanted: false, blocked: false },
      estimate: '120.00',
      payer: 'owner',
      approval: { status: 'none', note: null, requested_at: null, answered_at: null },
      photos: 0,
      external: [],
      warnings: [],
    });
    const read = await w.get(`/jobs/${res.json.reference}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('ETag')).toBe('"v1"');
    expect(read.json).toEqual(res.json);
  });

  it('sits on the home’s active lease, set at creation', async () => {
    const lease = await w.activeLease('al-reem-3br-sea-view');
    const job = await w.job({ home: 'al-reem-3br-sea-view' });
    expect(job.lease).toBe(lease.reference);
    const listed = await w.get(`/jobs?lease=${lease.reference}`);
    expect(listed.json.results.map((j: { reference: string }) => j.reference)).toEqual([job.reference]);
  });

  it('gives the same job (200) for the same helpdesk ticket, also to 20 concurrent identical creates', async () => {
    const external = { source: 'helpdesk', id: `ticket-${w.unique()}` };
    const body = { home: 'jvc-2br-townhouse', category: 'plumbing', problem: 'Drip.', external };
    const first = await w.write('/jobs', body);
    expect(first.status, first.text).toBe(201);
    const again = await w.write('/jobs', { ...body, problem: 'Another text, same ticket.' });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(first.json.external).toEqual([external]);

    const burst = { ...body, external: { source: 'helpdesk', id: `ticket-${w.unique()}` } };
    const answers = await Promise.all(Array.from({ length: 20 }, () => w.write('/jobs', burst)));
    expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.text))).toEqual([
      200,
      ...Array(18).fill(200),
      201,
    ]);
    expect(new Set(answers.map((a) => a.json.reference)).size).toBe(1);
    const found = await w.get(`/jobs?external=helpdesk:${burst.external.id}`);
    expect(found.json.results.map((j: { reference: string }) => j.reference)).toEqual([answers[0]?.json.reference]);
  });

  it('refuses an unknown home, an unknown member, both a contractor and a member, and a stopped contractor', async () => {
    const base = { home: 'jvc-2br-townhouse', category: 'plumbing', problem: 'Drip.' };
    const unknownHome = await w.write('/jobs', { ...base, home: 'nowhere' });
    expect(unknownHome.status).toBe(400);
    expect(unknownHome.json.errors[0]).toMatchObject({ path: 'home', code: 'unknown_reference' });
    const unknownMember = await w.write('/jobs', { ...base, member: 'mem_nope' });
    expect(unknownMember.json.errors[0]).toMatchObject({ path: 'member', code: 'unknown_reference' });
    const contractor = await w.contractor();
    const both = await w.write('/jobs', { ...base, member: w.member, contractor });
    expect(both.status).toBe(400);
    await w.write(`/contractors/${contractor}`, { status: 'stopped' }, {}, 'PATCH');
    const stopped = await w.write('/jobs', { ...base, contractor });
    expect(stopped.status, stopped.text).toBe(409);
    expect(stopped.json.code).toBe('contractor_stopped');
    const digits = await w.write('/jobs', { ...base, estimate: '1.5.0' });
    expect(digits.status).toBe(400);
  });
});

describe('PATCH /jobs/{reference}', () => {
  it('changes the named fields at any status and links another id; who does it switches', async () => {
    const job = await w.job({ member: w.member });
    const contractor = await w.contractor();
    const res = await w.write(
      `/jobs/${job.reference}`,
      {
        priority: 'urgent',
        category: 'general',
        payer: 'renter',
        estimate: '75.5',
        contractor,
        work_done: 'Checked.',
        external: { source: 'crm', id: w.unique() },
      },
      {},
      'PATCH',
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      priority: 'urgent',
      category: 'general',
      payer: 'renter',
      estimate: '75.50',
      contractor,
      member: null,
    });
    expect(res.json.external).toHaveLength(1);
    expect(res.headers.get('ETag')).toBe('"v2"');
    const cleared = await w.write(`/jobs/${job.reference}`, { estimate: null, contractor: null }, {}, 'PATCH');
    expect(cleared.json).toMatchObject({ estimate: null, contractor: null });
    expect((await w.write('/jobs/J-0000000000', { priority: 'low' }, {}, 'PATCH')).status).toBe(404);
  });
});

describe('GET /jobs', () => {
  it('filters by status and home, pages by (updated_at, id) and reads with read:maintenance only', async () => {
    const home = 'marina-gate-2br-sea-view';
    const made = [await w.job({ home }), await w.job({ home }), await w.job({ home })];
    const page = await w.get(`/jobs?home=${home}&page_size=2`);
    expect(page.status, page.text).toBe(200);
    expect(page.json.results).toHaveLength(2);
    const next = await w.get(`/jobs?home=${home}&page_size=2&cursor=${encodeURIComponent(page.json.next_cursor)}`);
    const seen = [...page.json.results, ...next.json.results].map((j: { reference: string }) => j.reference);
    expect(seen).toEqual(made.map((j) => j.reference));
    expect((await w.get('/jobs?status=done&home=marina-gate-2br-sea-view')).json.results).toEqual([]);
    const wrong = await w.api.request('/api/v1/jobs', { host: w.company.host, key: w.writer.secret });
    expect(wrong.status).toBe(403);
  });

  it('audits every read of jobs with the key’s prefix', async () => {
    const job = await w.job();
    await w.get(`/jobs/${job.reference}`);
    const rows = await w.api.db
      .selectFrom('audit_log')
      .select(['subject', 'details'])
      .where('company_id', '=', w.company.id)
      .where('action', '=', 'personal_data.read')
      .execute();
    expect(rows.some((r) => r.subject === w.reader.prefix && JSON.stringify(r.details).includes(job.reference))).toBe(true);
  });
});
