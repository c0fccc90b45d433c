import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maintenanceWorld, type World } from './http';

let w: World;
beforeAll(async () => {
  w = await maintenanceWorld();
});
afterAll(() => w.api.close());

const plan = (body: Record<string, unknown>) => w.write('/inspections', body);

describe('inspections', () => {
  it('plans a routine inspection of a home with its areas (201) and reads it back', async () => {
    const areas = [{ name: 'Kitchen' }, { name: 'Bathroom', condition: 'fair', notes: 'Grout stained.' }];
    const res = await plan({ kind: 'routine', home: 'jvc-2br-townhouse', planned_on: '2027-02-01', areas, inspector: w.member });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      kind: 'routine',
      home: 'jvc-2br-townhouse',
      lease: null,
      planned_on: '2027-02-01',
      inspector: w.member,
      notes: null,
      areas: [
        { name: 'Kitchen', condition: null, notes: null },
        { name: 'Bathroom', condition: 'fair', notes: 'Grout stained.' },
      ],
    });
    expect(res.json.reference).toMatch(/^I-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect((await w.get(`/inspections/${res.json.reference}`)).json).toEqual(res.json);
    expect((await w.get('/inspections/I-0000000000')).status).toBe(404);
  });

  it('plans a lease’s move-in once: planned again, the first comes back (200); also under 10 concurrent plans', async () => {
    const lease = await w.activeLease('burj-vista-2br-fountain-view');
    const first = await plan({ kind: 'move_in', lease: lease.reference, planned_on: '2027-01-01' });
    expect(first.status, first.text).toBe(201);
    expect(first.json).toMatchObject({ home: 'burj-vista-2br-fountain-view', lease: lease.reference });
    const again = await plan({ kind: 'move_in', lease: lease.reference, planned_on: '2027-01-02' });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => plan({ kind: 'move_out', lease: lease.reference, planned_on: '2027-12-31' })),
    );
    expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.text))).toEqual([...Array(9).fill(200), 201]);
    expect(new Set(answers.map((a) => a.json.reference)).size).toBe(1);
    const listed = await w.get(`/inspections?lease=${lease.reference}`);
    expect(listed.json.results.map((i: { kind: string }) => i.kind).sort()).toEqual(['move_in', 'move_out']);
  });

  it('is enforced by the database: a second move-in of a lease is refused there', async () => {
    const lease = await w.activeLease('jvc-studio-unfurnished');
    const first = (await plan({ kind: 'move_in', lease: lease.reference, planned_on: '2027-01-01' })).json;
    const row = await w.api.db
      .selectFrom('inspections')
      .selectAll()
      .where('reference', '=', first.reference)
      .executeTakeFirstOrThrow();
    const { id, version, created_at, updated_at, ...copy } = row;
    const second = w.api.db
      .insertInto('inspections')
      .values({ ...copy, reference: 'I-DUPLICATE0', areas: JSON.stringify(copy.areas) })
      .execute();
    await expect(second).rejects.toMatchObject({ constraint: 'inspections_once_per_lease' });
  });

  it('refuses a move-in without a lease, a lease of another home, an unknown inspector', async () => {
    const noLease = await plan({ kind: 'move_in', home: 'jvc-2br-townhouse', planned_on: '2027-01-01' });
    expect(noLease.status).toBe(400);
    expect(noLease.json.errors[0].path).toBe('lease');
    const lease = await w.activeLease('business-bay-fitted-office');
    const mismatch = await plan({
      kind: 'move_out',
      lease: lease.reference,
      home: 'jvc-2br-townhouse',
      planned_on: '2027-01-01',
    });
    expect(mismatch.json.errors[0]).toMatchObject({ path: 'lease', code: 'lease_not_of_home' });
    const inspector = await plan({ kind: 'routine', home: 'jvc-2br-townhouse', planned_on: '2027-01-01', inspector: 'mem_x' });
    expect(inspector.json.errors[0]).toMatchObject({ path: 'inspector', code: 'unknown_reference' });
  });

  it('filters by kind and home, and finds one by its external id', async () => {
    const external = { source: 'inspect-app', id: w.unique() };
    const made = await plan({ kind: 'routine', home: 'marina-gate-2br-sea-view', planned_on: '2027-05-01', external });
    expect((await plan({ kind: 'routine', home: 'marina-gate-2br-sea-view', planned_on: '2027-06-01', external })).status).toBe(
      200,
    );
    const found = await w.get(`/inspections?external=inspect-app:${external.id}`);
    expect(found.json.results.map((i: { reference: string }) => i.reference)).toEqual([made.json.reference]);
    const routine = await w.get('/inspections?kind=routine&home=marina-gate-2br-sea-view');
    expect(routine.json.results.map((i: { reference: string }) => i.reference)).toEqual([made.json.reference]);
  });
});
