import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseWorld } from './http';

let w: Awaited<ReturnType<typeof leaseWorld>>;
beforeAll(async () => {
  w = await leaseWorld();
});
afterAll(() => w.api.close());

const patch = (reference: string, body: unknown, headers: Record<string, string> = {}) =>
  w.write(`/leases/${reference}`, body, headers, 'PATCH');
const amounts = (lease: { schedule: { rows: Array<{ amount: string; due_on: string }> } }) =>
  lease.schedule.rows.map((r) => [r.due_on, r.amount]);
/** A lease made active in the database, as activation leaves it (the activate route has its own tests). */
const activate = (reference: string) =>
  w.api.db.updateTable('leases').set({ status: 'active', activated_at: new Date() }).where('reference', '=', reference).execute();

describe('PATCH /leases/{reference}', () => {
  it('changes a draft’s rent and splits it again into as many payments, recording lease.updated', async () => {
    const lease = (await w.post(w.body({ schedule: { payments: 4 } }))).json;
    const old = lease.schedule.rows.map((r: { payment_id: string }) => r.payment_id);
    const res = await patch(lease.reference, { rent: { amount: '10000', period: 'month' } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.rent).toEqual({ amount: '10000.00', period: 'month', term_total: '120000.00' });
    expect(res.json.schedule.payments).toBe(4);
    expect(amounts(res.json)).toEqual([
      ['2027-01-01', '30000.00'],
      ['2027-04-01', '30000.00'],
      ['2027-07-01', '30000.00'],
      ['2027-10-01', '30000.00'],
    ]);
    const left = await w.api.db.selectFrom('rent_payments').select('id').where('id', 'in', old).execute();
    expect(left).toEqual([]);
    expect(await w.eventsOf(lease.reference)).toEqual(['lease.created', 'lease.updated']);
  });

  it('takes a new schedule, and keeps explicit rows when only the term changes (their warning judged again)', async () => {
    const rows = [{ due_on: '2027-01-01', amount: '120000' }];
    const lease = (await w.post(w.body({ schedule: { payments: 2 } }))).json;
    const withRows = await patch(lease.reference, { schedule: { rows } });
    expect(withRows.json.schedule.payments).toBeNull();
    expect(amounts(withRows.json)).toEqual([['2027-01-01', '120000.00']]);
    expect(withRows.json.warnings).toEqual([]);
    const shorter = await patch(lease.reference, { term: { start: '2027-01-01', end: '2027-06-30' } });
    expect(shorter.status, shorter.text).toBe(200);
    expect(amounts(shorter.json)).toEqual([['2027-01-01', '120000.00']]);
    expect(shorter.json.rent.term_total).toBe('60000.00');
    expect(shorter.json.warnings.map((x: { code: string }) => x.code)).toEqual(['schedule_total_differs']);
  });

  it('refuses a change of terms on an active lease with 409 lease_terms_locked, and changes nothing', async () => {
    const lease = (await w.post(w.body())).json;
    await activate(lease.reference);
    for (const body of [{ rent: { amount: '1', period: 'year' } }, { schedule: { payments: 2 } }, { deposit: '1', notes: 'x' }]) {
      const res = await patch(lease.reference, body);
      expect(res.status, res.text).toBe(409);
      expect(res.json.code).toBe('lease_terms_locked');
    }
    const now = (await w.get(`/leases/${lease.reference}`)).json;
    expect(now.rent).toEqual(lease.rent);
    expect(now.notes).toBeNull();
  });

  it('changes registration, fee, handler, notes and links an external id on an active lease', async () => {
    const lease = (await w.post(w.body({ home: 'executive-towers-1br' }))).json;
    await activate(lease.reference);
    const external = { source: 'yardi', id: `act-${w.unique()}` };
    const body = { registration: 'EJ-1', fee: { kind: 'percent', value: '5' }, handler: w.handler, notes: 'Keys', external };
    const res = await patch(lease.reference, body);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      registration: 'EJ-1',
      fee: { kind: 'percent', value: '5' },
      handler: w.handler,
      notes: 'Keys',
    });
    expect(res.json.external).toEqual([external]);
    const cleared = await patch(lease.reference, { registration: null, fee: null, handler: null, notes: null });
    expect(cleared.json).toMatchObject({ registration: null, fee: null, handler: null, notes: null });
  });

  it('refuses unknown parties and the renter as landlord (400), and honours If-Match (412)', async () => {
    const lease = (await w.post(w.body())).json;
    expect((await patch(lease.reference, { renter: 'P-0000000000' })).json.errors[0]).toMatchObject({
      path: 'renter',
      code: 'unknown_reference',
    });
    const same = await patch(lease.reference, { landlord: w.renter });
    expect(same.status, same.text).toBe(400);
    expect(same.json.errors[0]).toMatchObject({ path: 'landlord', code: 'same_party' });
    const stale = await patch(lease.reference, { notes: 'late' }, { 'If-Match': '"v999"' });
    expect(stale.status).toBe(412);
    expect((await patch('T-0000000000', { notes: 'x' })).status).toBe(404);
  });

  it('writes nothing and records no event when nothing changes', async () => {
    const lease = (await w.post(w.body({ notes: 'same' }))).json;
    const res = await patch(lease.reference, { notes: 'same' });
    expect(res.status).toBe(200);
    expect(res.json.updated_at).toBe(lease.updated_at);
    expect(await w.eventsOf(lease.reference)).toEqual(['lease.created']);
  });
});
