import { beforeAll, describe, expect, it } from 'vitest';
import type { TestClient } from '../support/client';
import { type Key, leasesOf, useWorld } from '../support/world';

const w = useWorld();
let writer: Key;
let reader: Key;
let writes: TestClient;
let reads: TestClient;
beforeAll(async () => {
  writer = await w.keyWith(['write:maintenance']);
  reader = await w.keyWith(['read:maintenance']);
  [writes, reads] = await Promise.all([w.clientWith(writer.secret), w.clientWith(reader.secret)]);
});

/** A body as sent (any JSON: the refusals too). */
type Body = Record<string, unknown>;
const path = (reference: string) => ({ params: { path: { reference } } });
const post = (body: Body) => writes.POST('/api/v1/jobs', { body: body as never });
const patch = (reference: string, body: Body) =>
  writes.PATCH('/api/v1/jobs/{reference}', { ...path(reference), body: body as never });
const read = (reference: string) => reads.GET('/api/v1/jobs/{reference}', path(reference));
const references = (list: { results: Array<{ reference: string }> } | undefined) => list?.results.map((j) => j.reference);

describe('POST /jobs', () => {
  it('adds an open job (201) on a home without a lease, with its fields shown and no warnings', async () => {
    const res = await post({
      home: 'jvc-2br-townhouse',
      category: 'electrical',
      problem: 'The hall light flickers.',
      estimate: '120',
      member: w.members.lina,
    });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data?.reference).toMatch(/^J-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect(res.data).toMatchObject({
      home: 'jvc-2br-townhouse',
      lease: null,
      category: 'electrical',
      priority: 'normal',
      status: 'open',
      problem: 'The hall light flickers.',
      work_done: null,
      contractor: null,
      member: w.members.lina,
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
    const again = await read(res.data?.reference ?? '');
    expect(again.response.status).toBe(200);
    expect(again.response.headers.get('ETag')).toBe('"v1"');
    expect(again.data).toEqual(res.data);
  });

  it('sits on the home’s active lease, set at creation', async () => {
    const lease = await leasesOf(w).active({ home: 'al-reem-3br-sea-view' });
    const job = await w.job({ home: 'al-reem-3br-sea-view' });
    expect(job.lease).toBe(lease.reference);
    const listed = await reads.GET('/api/v1/jobs', { params: { query: { lease: lease.reference } } });
    expect(references(listed.data)).toEqual([job.reference]);
  });

  it('gives the same job (200) for the same helpdesk ticket, also to 20 concurrent identical creates', async () => {
    const external = { source: 'helpdesk', id: `ticket-${w.unique()}` };
    const body = { home: 'jvc-2br-townhouse', category: 'plumbing', problem: 'Drip.', external };
    const first = await post(body);
    expect(first.response.status, JSON.stringify(first.error)).toBe(201);
    const again = await post({ ...body, problem: 'Another text, same ticket.' });
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(first.data);
    expect(first.data?.external).toEqual([external]);

    const burst = { ...body, external: { source: 'helpdesk', id: `ticket-${w.unique()}` } };
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(burst)));
    expect(answers.map((a) => a.response.status).sort(), JSON.stringify(answers.map((a) => a.error))).toEqual([
      200,
      ...Array(18).fill(200),
      201,
    ]);
    expect(new Set(answers.map((a) => a.data?.reference)).size).toBe(1);
    const found = await reads.GET('/api/v1/jobs', { params: { query: { external: `helpdesk:${burst.external.id}` } } });
    expect(references(found.data)).toEqual([answers[0]?.data?.reference]);
  });

  it('refuses an unknown home, an unknown member, both a contractor and a member, and a stopped contractor', async () => {
    const base = { home: 'jvc-2br-townhouse', category: 'plumbing', problem: 'Drip.' };
    const unknownHome = await post({ ...base, home: 'nowhere' });
    expect(unknownHome.response.status).toBe(400);
    expect(unknownHome.error?.errors?.[0]).toMatchObject({ path: 'home', code: 'unknown_reference' });
    const unknownMember = await post({ ...base, member: 'mem_nope' });
    expect(unknownMember.error?.errors?.[0]).toMatchObject({ path: 'member', code: 'unknown_reference' });
    const contractor = await w.contractor();
    const both = await post({ ...base, member: w.members.lina, contractor });
    expect(both.response.status).toBe(400);
    await writes.PATCH('/api/v1/contractors/{contractor_id}', {
      params: { path: { contractor_id: contractor } },
      body: { status: 'stopped' },
    });
    const stopped = await post({ ...base, contractor });
    expect(stopped.response.status, JSON.stringify(stopped.error)).toBe(409);
    expect(stopped.error?.code).toBe('contractor_stopped');
    const digits = await post({ ...base, estimate: '1.5.0' });
    expect(digits.response.status).toBe(400);
  });
});

describe('PATCH /jobs/{reference}', () => {
  it('changes the named fields at any status and links another id; who does it switches', async () => {
    const job = await w.job({ member: w.members.lina });
    const contractor = await w.contractor();
    const res = await patch(job.reference, {
      priority: 'urgent',
      category: 'general',
      payer: 'renter',
      estimate: '75.5',
      contractor,
      work_done: 'Checked.',
      external: { source: 'crm', id: w.unique() },
    });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toMatchObject({
      priority: 'urgent',
      category: 'general',
      payer: 'renter',
      estimate: '75.50',
      contractor,
      member: null,
    });
    expect(res.data?.external).toHaveLength(1);
    expect(res.response.headers.get('ETag')).toBe('"v2"');
    const cleared = await patch(job.reference, { estimate: null, contractor: null });
    expect(cleared.data).toMatchObject({ estimate: null, contractor: null });
    expect((await patch('J-0000000000', { priority: 'low' })).response.status).toBe(404);
  });
});

describe('GET /jobs', () => {
  it('filters by status and home, pages by (updated_at, id) and reads with read:maintenance only', async () => {
    const home = 'marina-gate-2br-sea-view';
    const made = [await w.job({ home }), await w.job({ home }), await w.job({ home })];
    const page = await reads.GET('/api/v1/jobs', { params: { query: { home, page_size: 2 } } });
    expect(page.response.status, JSON.stringify(page.error)).toBe(200);
    expect(page.data?.results).toHaveLength(2);
    const cursor = page.data?.next_cursor ?? undefined;
    const next = await reads.GET('/api/v1/jobs', { params: { query: { home, page_size: 2, cursor } } });
    const seen = [...(page.data?.results ?? []), ...(next.data?.results ?? [])].map((j) => j.reference);
    expect(seen).toEqual(made.map((j) => j.reference));
    const done = await reads.GET('/api/v1/jobs', { params: { query: { status: 'done', home: 'marina-gate-2br-sea-view' } } });
    expect(done.data?.results).toEqual([]);
    const wrong = await writes.GET('/api/v1/jobs');
    expect(wrong.response.status).toBe(403);
  });

  it('audits every read of jobs with the key’s prefix', async () => {
    const job = await w.job();
    await read(job.reference);
    const rows = await w.api.db
      .selectFrom('audit_log')
      .select(['subject', 'details'])
      .where('company_id', '=', w.company.id)
      .where('action', '=', 'personal_data.read')
      .execute();
    expect(rows.some((r) => r.subject === reader.prefix && JSON.stringify(r.details).includes(job.reference))).toBe(true);
  });
});
