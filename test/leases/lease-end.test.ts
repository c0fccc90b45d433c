import { describe, expect, it } from 'vitest';
import { leasesOf, useWorld } from '../support/world';

const w = useWorld();
const l = leasesOf(w);

const activeLease = async () => (await l.active()).reference;

describe('POST /leases/{reference}/end', () => {
  it('ends an active lease with deductions, cancels only the payments due after its end, records lease.ended', async () => {
    const reference = await activeLease();
    const deposit = { outcome: 'returned_with_deductions', deductions: '1500', reason: 'Repainting' };
    const res = await l.end(reference, { ended_on: '2027-05-15', deposit });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toMatchObject({
      status: 'ended',
      ended_on: '2027-05-15',
      deposit: { amount: '6000.00', outcome: 'returned_with_deductions', deductions: '1500.00', reason: 'Repainting' },
    });
    expect(res.data?.schedule.rows.map((r) => [r.due_on, r.status])).toEqual([
      ['2027-01-01', 'due'],
      ['2027-04-01', 'due'],
      ['2027-07-01', 'cancelled'],
      ['2027-10-01', 'cancelled'],
    ]);
    expect(await w.eventsOf(reference)).toEqual(['lease.created', 'lease.activated', 'lease.ended']);
    const again = await l.end(reference, { deposit: { outcome: 'kept' } });
    expect(again.response.status).toBe(409);
    expect(again.error?.code).toBe('invalid_transition');
  });

  it('ends today in the company’s time zone by default', async () => {
    const reference = await activeLease();
    w.api.clock.set(new Date('2027-03-31T21:00:00Z'));
    try {
      const res = await l.end(reference, { deposit: { outcome: 'returned' } });
      expect(res.response.status, JSON.stringify(res.error)).toBe(200);
      expect(res.data?.ended_on).toBe('2027-04-01');
      expect(res.data?.schedule.rows.map((r) => r.status)).toEqual(['due', 'due', 'cancelled', 'cancelled']);
    } finally {
      w.api.clock.set(null);
    }
  });

  it('refuses deductions above the deposit (400), a draft (409), and deductions without their outcome (400)', async () => {
    const reference = await activeLease();
    const above = await l.end(reference, {
      deposit: { outcome: 'returned_with_deductions', deductions: '6000.01', reason: 'x' },
    });
    expect(above.response.status).toBe(400);
    expect(above.error?.errors?.[0]).toMatchObject({ path: 'deposit.deductions', code: 'above_deposit' });
    expect((await l.end(reference, { deposit: { outcome: 'kept', deductions: '1', reason: 'x' } })).response.status).toBe(400);
    const draft = (await l.draft()).reference;
    const refused = await l.end(draft, { deposit: { outcome: 'kept' } });
    expect(refused.response.status).toBe(409);
    expect((await l.get(reference)).data?.status).toBe('active');
  });

  it('refuses a stale If-Match with 412 precondition_failed and changes nothing', async () => {
    const reference = await activeLease();
    const before = (await l.get(reference)).data;
    const stale = await l.end(reference, { deposit: { outcome: 'kept' } }, { 'If-Match': '"v999"' });
    expect(stale.response.status).toBe(412);
    expect(stale.error?.code).toBe('precondition_failed');
    expect((await l.get(reference)).data).toEqual(before);
  });
});
