import { describe, expect, it } from 'vitest';
import { leasesOf, useWorld } from '../support/world';

const w = useWorld();
const l = leasesOf(w);

type Schedule = { schedule: { rows: Array<{ amount: string; due_on: string }> } };
const amounts = (lease: Schedule | undefined) => lease?.schedule.rows.map((r) => [r.due_on, r.amount]);
/** A lease made active in the database, as activation leaves it (the activate route has its own tests). */
const activate = (reference: string) =>
  w.api.db
    .updateTable('leases')
    .set({ status: 'active', activated_at: new Date('2027-01-01T00:00:00Z') })
    .where('reference', '=', reference)
    .execute();

describe('PATCH /leases/{reference}', () => {
  it('changes a draft’s rent and splits it again into as many payments, recording lease.updated', async () => {
    const lease = await l.draft({ schedule: { payments: 4 } });
    const old = l.paymentIds(lease);
    const res = await l.patch(lease.reference, { rent: { amount: '10000', period: 'month' } });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data?.rent).toEqual({ amount: '10000.00', period: 'month', term_total: '120000.00' });
    expect(res.data?.schedule.payments).toBe(4);
    expect(amounts(res.data)).toEqual([
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
    const lease = await l.draft({ schedule: { payments: 2 } });
    const withRows = await l.patch(lease.reference, { schedule: { rows } });
    expect(withRows.data?.schedule.payments).toBeNull();
    expect(amounts(withRows.data)).toEqual([['2027-01-01', '120000.00']]);
    expect(withRows.data?.warnings).toEqual([]);
    const shorter = await l.patch(lease.reference, { term: { start: '2027-01-01', end: '2027-06-30' } });
    expect(shorter.response.status, JSON.stringify(shorter.error)).toBe(200);
    expect(amounts(shorter.data)).toEqual([['2027-01-01', '120000.00']]);
    expect(shorter.data?.rent.term_total).toBe('60000.00');
    expect(shorter.data?.warnings.map((x) => x.code)).toEqual(['schedule_total_differs']);
  });

  it('refuses a change of terms on an active lease with 409 lease_terms_locked, and changes nothing', async () => {
    const lease = await l.draft();
    await activate(lease.reference);
    for (const body of [{ rent: { amount: '1', period: 'year' } }, { schedule: { payments: 2 } }, { deposit: '1', notes: 'x' }]) {
      const res = await l.patch(lease.reference, body);
      expect(res.response.status).toBe(409);
      expect(res.error?.code).toBe('lease_terms_locked');
    }
    const now = (await l.get(lease.reference)).data;
    expect(now?.rent).toEqual(lease.rent);
    expect(now?.notes).toBeNull();
  });

  it('changes registration, fee, handler, notes and links an external id on an active lease', async () => {
    const lease = await l.draft({ home: 'executive-towers-1br' });
    await activate(lease.reference);
    const external = { source: 'yardi', id: `act-${w.unique()}` };
    const handler = w.members.lina;
    const body = { registration: 'EJ-1', fee: { kind: 'percent', value: '5' }, handler, notes: 'Keys', external };
    const res = await l.patch(lease.reference, body);
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toMatchObject({ registration: 'EJ-1', fee: { kind: 'percent', value: '5' }, handler, notes: 'Keys' });
    expect(res.data?.external).toEqual([external]);
    const cleared = await l.patch(lease.reference, { registration: null, fee: null, handler: null, notes: null });
    expect(cleared.data).toMatchObject({ registration: null, fee: null, handler: null, notes: null });
  });

  it('refuses unknown parties and the renter as landlord (400), and honours If-Match (412)', async () => {
    const lease = await l.draft();
    expect((await l.patch(lease.reference, { renter: 'P-0000000000' })).error?.errors?.[0]).toMatchObject({
      path: 'renter',
      code: 'unknown_reference',
    });
    const same = await l.patch(lease.reference, { landlord: w.contacts.renter });
    expect(same.response.status).toBe(400);
    expect(same.error?.errors?.[0]).toMatchObject({ path: 'landlord', code: 'same_party' });
    const stale = await l.patch(lease.reference, { notes: 'late' }, { 'If-Match': '"v999"' });
    expect(stale.response.status).toBe(412);
    expect((await l.patch('T-0000000000', { notes: 'x' })).response.status).toBe(404);
  });

  it('writes nothing and records no event when nothing changes', async () => {
    const lease = await l.draft({ notes: 'same' });
    const res = await l.patch(lease.reference, { notes: 'same' });
    expect(res.response.status).toBe(200);
    expect(res.data?.updated_at).toBe(lease.updated_at);
    expect(await w.eventsOf(lease.reference)).toEqual(['lease.created']);
  });
});
