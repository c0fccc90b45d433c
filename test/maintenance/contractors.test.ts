import { describe, expect, it } from 'vitest';
import { useClients, useWorld } from '../support/world';

const w = useWorld();
const [writes, reads] = useClients(w, ['write:maintenance'], ['read:maintenance']);

/** A body as sent (any JSON: the refusals too). */
type Body = Record<string, unknown>;
const post = (body: Body) => writes.POST('/api/v1/contractors', { body: body as never });
const patch = (id: string, body: Body) =>
  writes.PATCH('/api/v1/contractors/{contractor_id}', { params: { path: { contractor_id: id } }, body: body as never });
const read = (id: string) => reads.GET('/api/v1/contractors/{contractor_id}', { params: { path: { contractor_id: id } } });
const job = (reference: string) => reads.GET('/api/v1/jobs/{reference}', { params: { path: { reference } } });
const schedule = (reference: string, body: Body) =>
  writes.POST('/api/v1/jobs/{reference}/schedule', { params: { path: { reference } }, body: body as never });

const audited = async () =>
  (
    await w.api.db
      .selectFrom('audit_log')
      .select('details')
      .where('company_id', '=', w.company.id)
      .where('action', '=', 'personal_data.read')
      .execute()
  ).map((r) => JSON.stringify(r.details));

describe('contractors', () => {
  it('adds a firm (201), gives it back for the same external id (200), and shows it', async () => {
    const external = { source: 'helpdesk', id: `vendor-${w.unique()}` };
    const body = {
      name: 'Gulf Cool LLC',
      trades: ['air_conditioning', 'air_conditioning'],
      email: 'jobs@gulfcool.example',
      external,
    };
    const res = await post(body);
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data).toMatchObject({
      name: 'Gulf Cool LLC',
      kind: 'firm',
      trades: ['air_conditioning'],
      contact_name: null,
      email: 'jobs@gulfcool.example',
      phone: null,
      status: 'active',
      stopped_at: null,
      external: [external],
    });
    const id = res.data?.contractor_id ?? '';
    const again = await post({ ...body, name: 'Other' });
    expect(again.response.status).toBe(200);
    expect(again.data?.contractor_id).toBe(id);
    expect((await read(id)).data).toEqual(res.data);
    const found = await reads.GET('/api/v1/contractors', { params: { query: { external: `helpdesk:${external.id}` } } });
    expect(found.data?.results).toHaveLength(1);
    expect((await read('00000000-0000-4000-8000-000000000000')).response.status).toBe(404);
    expect((await read('not-an-id')).response.status).toBe(404);
    const charge = await writes.PATCH('/api/v1/job-charges/{charge_id}', {
      params: { path: { charge_id: 'not-an-id' } },
      body: { status: 'cancelled' },
    });
    expect(charge.response.status).toBe(404);
  });

  it('audits reads of a sole trader (a person), not of a firm', async () => {
    const firm = await w.contractor({ kind: 'firm' });
    const person = await w.contractor({ kind: 'sole_trader', name: 'Rashid Ali', phone: '+971501234567' });
    await read(firm);
    await read(person);
    const rows = await audited();
    expect(rows.some((r) => r.includes(person))).toBe(true);
    expect(rows.some((r) => r.includes(firm))).toBe(false);
  });

  it('stops a contractor: history stays, new work is refused (409 contractor_stopped), taken back it works again', async () => {
    const contractor = await w.contractor({ trades: ['painting'] });
    const made = await w.job({ contractor });
    const stopped = await patch(contractor, { status: 'stopped' });
    expect(stopped.response.status, JSON.stringify(stopped.error)).toBe(200);
    expect(stopped.data?.status).toBe('stopped');
    expect(Date.parse(stopped.data?.stopped_at ?? '')).not.toBeNaN();
    expect((await job(made.reference)).data?.contractor).toBe(contractor);
    const scheduled = await schedule(made.reference, { day: '2027-03-01' });
    expect(scheduled.response.status, JSON.stringify(scheduled.error)).toBe(409);
    expect(scheduled.error?.code).toBe('contractor_stopped');
    const other = await w.job();
    const assign = await writes.PATCH('/api/v1/jobs/{reference}', {
      params: { path: { reference: other.reference } },
      body: { contractor },
    });
    expect(assign.error?.code).toBe('contractor_stopped');
    const listed = await reads.GET('/api/v1/contractors', { params: { query: { status: 'stopped', trade: 'painting' } } });
    expect(listed.data?.results.map((c) => c.contractor_id)).toContain(contractor);
    const back = await patch(contractor, { status: 'active' });
    expect(back.data).toMatchObject({ status: 'active', stopped_at: null });
    expect((await schedule(made.reference, { day: '2027-03-01' })).response.status).toBe(200);
  });
});
