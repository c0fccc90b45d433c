import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseWorld } from './http';

let w: Awaited<ReturnType<typeof leaseWorld>>;
beforeAll(async () => {
  w = await leaseWorld();
});
afterAll(() => w.api.close());

const activeLease = async () => (await w.activeLease()).reference as string;
const end = (reference: string, body: Record<string, unknown>) => w.write(`/leases/${reference}/end`, body);

describe('POST /leases/{reference}/end', () => {
  it('ends an active lease with deductions, cancels only the payments due after its end, records lease.ended', async () => {
    const reference = await activeLease();
    const deposit = { outcome: 'returned_with_deductions', deductions: '1500', reason: 'Repainting' };
    const res = await end(reference, { ended_on: '2027-05-15', deposit });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      status: 'ended',
      ended_on: '2027-05-15',
      deposit: { amount: '6000.00', outcome: 'returned_with_deductions', deductions: '1500.00', reason: 'Repainting' },
    });
    expect(res.json.schedule.rows.map((r: { due_on: string; status: string }) => [r.due_on, r.status])).toEqual([
      ['2027-01-01', 'due'],
      ['2027-04-01', 'due'],
      ['2027-07-01', 'cancelled'],
      ['2027-10-01', 'cancelled'],
    ]);
    expect(await w.eventsOf(reference)).toEqual(['lease.created', 'lease.activated', 'lease.ended']);
    const again = await end(reference, { deposit: { outcome: 'kept' } });
    expect(again.status, again.text).toBe(409);
    expect(again.json.code).toBe('invalid_transition');
  });

  it('ends today in the company’s time zone by default', async () => {
    const reference = await activeLease();
    w.api.clock.set(new Date('2027-03-31T21:00:00Z'));
    try {
      const res = await end(reference, { deposit: { outcome: 'returned' } });
      expect(res.status, res.text).toBe(200);
      expect(res.json.ended_on).toBe('2027-04-01');
      expect(res.json.schedule.rows.map((r: { status: string }) => r.status)).toEqual(['due', 'due', 'cancelled', 'cancelled']);
    } finally {
      w.api.clock.set(null);
    }
  });

  it('refuses deductions above the deposit (400), a draft (409), and deductions without their outcome (400)', async () => {
    const reference = await activeLease();
    const above = await end(reference, { deposit: { outcome: 'returned_with_deductions', deductions: '6000.01', reason: 'x' } });
    expect(above.status, above.text).toBe(400);
    expect(above.json.errors[0]).toMatchObject({ path: 'deposit.deductions', code: 'above_deposit' });
    expect((await end(reference, { deposit: { outcome: 'kept', deductions: '1', reason: 'x' } })).status).toBe(400);
    const draft = (await w.post(w.body())).json.reference;
    const refused = await end(draft, { deposit: { outcome: 'kept' } });
    expect(refused.status).toBe(409);
    expect((await w.get(`/leases/${reference}`)).json.status).toBe('active');
  });

  it('refuses a stale If-Match with 412 precondition_failed and changes nothing', async () => {
    const reference = await activeLease();
    const before = (await w.get(`/leases/${reference}`)).json;
    const stale = await w.write(`/leases/${reference}/end`, { deposit: { outcome: 'kept' } }, { 'If-Match': '"v999"' });
    expect(stale.status, stale.text).toBe(412);
    expect(stale.json.code).toBe('precondition_failed');
    expect((await w.get(`/leases/${reference}`)).json).toEqual(before);
  });
});
