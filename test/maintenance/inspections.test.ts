import { describe, expect, it } from 'vitest';
import { leasesOf, useClients, useWorld } from '../support/world';

const w = useWorld();
const [writes, reads] = useClients(w, ['write:maintenance'], ['read:maintenance']);

/** A body as sent (any JSON: the refusals too). */
const plan = (body: Record<string, unknown>) => writes.POST('/api/v1/inspections', { body: body as never });
const read = (reference: string) => reads.GET('/api/v1/inspections/{reference}', { params: { path: { reference } } });
const activeLease = (home: string) => leasesOf(w).active({ home });

describe('inspections', () => {
  it('plans a routine inspection of a home with its areas (201) and reads it back', async () => {
    const areas = [{ name: 'Kitchen' }, { name: 'Bathroom', condition: 'fair', notes: 'Grout stained.' }];
    const res = await plan({
      kind: 'routine',
      home: 'jvc-2br-townhouse',
      planned_on: '2027-02-01',
      areas,
      inspector: w.members.lina,
    });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data).toMatchObject({
      kind: 'routine',
      home: 'jvc-2br-townhouse',
      lease: null,
      planned_on: '2027-02-01',
      inspector: w.members.lina,
      notes: null,
      areas: [
        { name: 'Kitchen', condition: null, notes: null },
        { name: 'Bathroom', condition: 'fair', notes: 'Grout stained.' },
      ],
    });
    expect(res.data?.reference).toMatch(/^I-[0-9A-HJKMNP-TV-Z]{10}$/);
    expect((await read(res.data?.reference ?? '')).data).toEqual(res.data);
    expect((await read('I-0000000000')).response.status).toBe(404);
  });

  it('plans a lease’s move-in once: planned again, the first comes back (200); also under 10 concurrent plans', async () => {
    const lease = await activeLease('burj-vista-2br-fountain-view');
    const first = await plan({ kind: 'move_in', lease: lease.reference, planned_on: '2027-01-01' });
    expect(first.response.status, JSON.stringify(first.error)).toBe(201);
    expect(first.data).toMatchObject({ home: 'burj-vista-2br-fountain-view', lease: lease.reference });
    const again = await plan({ kind: 'move_in', lease: lease.reference, planned_on: '2027-01-02' });
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(first.data);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => plan({ kind: 'move_out', lease: lease.reference, planned_on: '2027-12-31' })),
    );
    expect(answers.map((a) => a.response.status).sort(), JSON.stringify(answers.map((a) => a.error))).toEqual([
      ...Array(9).fill(200),
      201,
    ]);
    expect(new Set(answers.map((a) => a.data?.reference)).size).toBe(1);
    const listed = await reads.GET('/api/v1/inspections', { params: { query: { lease: lease.reference } } });
    expect(listed.data?.results.map((i) => i.kind).sort()).toEqual(['move_in', 'move_out']);
  });

  it('is enforced by the database: a second move-in of a lease is refused there', async () => {
    const lease = await activeLease('jvc-studio-unfurnished');
    const first = (await plan({ kind: 'move_in', lease: lease.reference, planned_on: '2027-01-01' })).data;
    const row = await w.api.db
      .selectFrom('inspections')
      .selectAll()
      .where('reference', '=', first?.reference ?? '')
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
    expect(noLease.response.status).toBe(400);
    expect(noLease.error?.errors?.[0]?.path).toBe('lease');
    const lease = await activeLease('business-bay-fitted-office');
    const mismatch = await plan({
      kind: 'move_out',
      lease: lease.reference,
      home: 'jvc-2br-townhouse',
      planned_on: '2027-01-01',
    });
    expect(mismatch.error?.errors?.[0]).toMatchObject({ path: 'lease', code: 'lease_not_of_home' });
    const inspector = await plan({ kind: 'routine', home: 'jvc-2br-townhouse', planned_on: '2027-01-01', inspector: 'mem_x' });
    expect(inspector.error?.errors?.[0]).toMatchObject({ path: 'inspector', code: 'unknown_reference' });
  });

  it('filters by kind and home, and finds one by its external id', async () => {
    const external = { source: 'inspect-app', id: w.unique() };
    const made = await plan({ kind: 'routine', home: 'marina-gate-2br-sea-view', planned_on: '2027-05-01', external });
    const again = await plan({ kind: 'routine', home: 'marina-gate-2br-sea-view', planned_on: '2027-06-01', external });
    expect(again.response.status).toBe(200);
    const found = await reads.GET('/api/v1/inspections', { params: { query: { external: `inspect-app:${external.id}` } } });
    expect(found.data?.results.map((i) => i.reference)).toEqual([made.data?.reference]);
    const routine = await reads.GET('/api/v1/inspections', {
      params: { query: { kind: 'routine', home: 'marina-gate-2br-sea-view' } },
    });
    expect(routine.data?.results.map((i) => i.reference)).toEqual([made.data?.reference]);
  });
});
