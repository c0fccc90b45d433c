import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseWorld } from './http';

let w: Awaited<ReturnType<typeof leaseWorld>>;
beforeAll(async () => {
  w = await leaseWorld();
});
afterAll(() => w.api.close());

const activeLease = (overrides: Record<string, unknown> = {}) => w.activeLease({ handler: w.handler, ...overrides });
const renew = (reference: string, body: Record<string, unknown> = {}) => w.write(`/leases/${reference}/renew`, body);

describe('POST /leases/{reference}/renew', () => {
  it('creates the renewal draft: the following term, the rent last proposed, as many payments; sent again, the same', async () => {
    const old = await activeLease({ fee: { kind: 'fixed', value: '250' } });
    await w.write(`/leases/${old.reference}/notice`, {
      given_on: '2027-09-01',
      by: 'landlord',
      intent: 'rent_change',
      proposed_rent: '140000',
    });
    const res = await renew(old.reference);
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      status: 'draft',
      home: old.home,
      renter: old.renter,
      landlord: old.landlord,
      term: { start: '2028-01-01', end: '2028-12-31' },
      rent: { amount: '140000.00', period: 'year', term_total: '140000.00' },
      deposit: { amount: '6000.00' },
      fee: { kind: 'fixed', value: '250' },
      handler: w.handler,
      renewal: { renews: old.reference, renewed_by: null },
      schedule: { payments: 4 },
    });
    expect(res.json.warnings.map((x: { code: string }) => x.code)).toEqual(['rent_above_cap']);
    expect((await w.get(`/leases/${old.reference}`)).json.renewal.renewed_by).toBe(res.json.reference);
    const again = await renew(old.reference, { rent: { amount: '1', period: 'month' } });
    expect(again.status, again.text).toBe(200);
    expect(again.json.reference).toBe(res.json.reference);
    expect(again.json.rent.amount).toBe('140000.00');
    expect(await w.eventsOf(res.json.reference)).toEqual(['lease.created']);
  });

  it('takes a term, rent and schedule sent; an ended lease renews too; a draft is 409', async () => {
    const old = await activeLease();
    await w.write(`/leases/${old.reference}/end`, { ended_on: '2027-12-31', deposit: { outcome: 'returned' } });
    const res = await renew(old.reference, {
      term: { start: '2028-02-01', end: '2028-07-31' },
      rent: { amount: '10000', period: 'month' },
      schedule: { payments: 2 },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json.schedule.rows.map((r: { due_on: string; amount: string }) => [r.due_on, r.amount])).toEqual([
      ['2028-02-01', '30000.00'],
      ['2028-05-01', '30000.00'],
    ]);
    expect(res.json.warnings).toEqual([]);
    const activated = await w.write(`/leases/${res.json.reference}/activate`, undefined);
    expect(activated.status, activated.text).toBe(200);
    const draft = (await w.post(w.body())).json.reference;
    const refused = await renew(draft);
    expect(refused.status).toBe(409);
    expect(refused.json.code).toBe('invalid_transition');
  });

  it('gives one renewal draft of 20 concurrent renewals', async () => {
    const old = await activeLease();
    const answers = await Promise.all(Array.from({ length: 20 }, () => renew(old.reference)));
    expect(answers.filter((a) => a.status !== 200 && a.status !== 201).map((a) => a.text)).toEqual([]);
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.json.reference)).size).toBe(1);
    const renewals = await w.api.db
      .selectFrom('leases')
      .innerJoin('leases as old', 'old.id', 'leases.renews_id')
      .select('leases.id')
      .where('old.reference', '=', old.reference)
      .execute();
    expect(renewals).toHaveLength(1);
  });
});
