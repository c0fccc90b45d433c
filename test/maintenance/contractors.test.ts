import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maintenanceWorld, type World } from './http';

let w: World;
beforeAll(async () => {
  w = await maintenanceWorld();
});
afterAll(() => w.api.close());

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
    const res = await w.write('/contractors', body);
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
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
    const again = await w.write('/contractors', { ...body, name: 'Other' });
    expect(again.status).toBe(200);
    expect(again.json.contractor_id).toBe(res.json.contractor_id);
    const read = await w.get(`/contractors/${res.json.contractor_id}`);
    expect(read.json).toEqual(res.json);
    expect((await w.get(`/contractors?external=helpdesk:${external.id}`)).json.results).toHaveLength(1);
    expect((await w.get('/contractors/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await w.get('/contractors/not-an-id')).status).toBe(404);
    expect((await w.write('/job-charges/not-an-id', { status: 'cancelled' }, {}, 'PATCH')).status).toBe(404);
  });

  it('audits reads of a sole trader (a person), not of a firm', async () => {
    const firm = await w.contractor({ kind: 'firm' });
    const person = await w.contractor({ kind: 'sole_trader', name: 'Rashid Ali', phone: '+971501234567' });
    await w.get(`/contractors/${firm}`);
    await w.get(`/contractors/${person}`);
    const rows = await audited();
    expect(rows.some((r) => r.includes(person))).toBe(true);
    expect(rows.some((r) => r.includes(firm))).toBe(false);
  });

  it('stops a contractor: history stays, new work is refused (409 contractor_stopped), taken back it works again', async () => {
    const contractor = await w.contractor({ trades: ['painting'] });
    const job = await w.job({ contractor });
    const stopped = await w.write(`/contractors/${contractor}`, { status: 'stopped' }, {}, 'PATCH');
    expect(stopped.status, stopped.text).toBe(200);
    expect(stopped.json.status).toBe('stopped');
    expect(Date.parse(stopped.json.stopped_at)).not.toBeNaN();
    expect((await w.get(`/jobs/${job.reference}`)).json.contractor).toBe(contractor);
    const schedule = await w.write(`/jobs/${job.reference}/schedule`, { day: '2027-03-01' });
    expect(schedule.status, schedule.text).toBe(409);
    expect(schedule.json.code).toBe('contractor_stopped');
    const other = await w.job();
    const assign = await w.write(`/jobs/${other.reference}`, { contractor }, {}, 'PATCH');
    expect(assign.json.code).toBe('contractor_stopped');
    expect((await w.get(`/contractors?status=stopped&trade=painting`)).json.results.map((c: any) => c.contractor_id)).toContain(
      contractor,
    );
    const back = await w.write(`/contractors/${contractor}`, { status: 'active' }, {}, 'PATCH');
    expect(back.json).toMatchObject({ status: 'active', stopped_at: null });
    expect((await w.write(`/jobs/${job.reference}/schedule`, { day: '2027-03-01' })).status).toBe(200);
  });
});
