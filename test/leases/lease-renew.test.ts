import { describe, expect, it } from 'vitest';
import { leasesOf, useWorld } from '../support/world';

const w = useWorld();
const l = leasesOf(w);

const handler = () => w.members.lina;
const activeLease = (overrides: Record<string, unknown> = {}) => l.active({ handler: handler(), ...overrides });

describe('POST /leases/{reference}/renew', () => {
  it('creates the renewal draft: the following term, the rent last proposed, as many payments; sent again, the same', async () => {
    const old = await activeLease({ fee: { kind: 'fixed', value: '250' } });
    await l.notice(old.reference, { given_on: '2027-09-01', by: 'landlord', intent: 'rent_change', proposed_rent: '140000' });
    const res = await l.renew(old.reference);
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    const renewal = res.data!;
    expect(renewal).toMatchObject({
      status: 'draft',
      home: old.home,
      renter: old.renter,
      landlord: old.landlord,
      term: { start: '2028-01-01', end: '2028-12-31' },
      rent: { amount: '140000.00', period: 'year', term_total: '140000.00' },
      deposit: { amount: '6000.00' },
      fee: { kind: 'fixed', value: '250' },
      handler: handler(),
      renewal: { renews: old.reference, renewed_by: null },
      schedule: { payments: 4 },
    });
    expect(renewal.warnings.map((x) => x.code)).toEqual(['rent_above_cap']);
    expect((await l.get(old.reference)).data?.renewal.renewed_by).toBe(renewal.reference);
    const again = await l.renew(old.reference, { rent: { amount: '1', period: 'month' } });
    expect(again.response.status, JSON.stringify(again.error)).toBe(200);
    expect(again.data?.reference).toBe(renewal.reference);
    expect(again.data?.rent.amount).toBe('140000.00');
    expect(await w.eventsOf(renewal.reference)).toEqual(['lease.created']);
  });

  it('takes a term, rent and schedule sent; an ended lease renews too; a draft is 409', async () => {
    const old = await activeLease();
    await l.end(old.reference, { ended_on: '2027-12-31', deposit: { outcome: 'returned' } });
    const res = await l.renew(old.reference, {
      term: { start: '2028-02-01', end: '2028-07-31' },
      rent: { amount: '10000', period: 'month' },
      schedule: { payments: 2 },
    });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data?.schedule.rows.map((r) => [r.due_on, r.amount])).toEqual([
      ['2028-02-01', '30000.00'],
      ['2028-05-01', '30000.00'],
    ]);
    expect(res.data?.warnings).toEqual([]);
    const activated = await l.activate(res.data!.reference);
    expect(activated.response.status, JSON.stringify(activated.error)).toBe(200);
    const draft = (await l.draft()).reference;
    const refused = await l.renew(draft);
    expect(refused.response.status).toBe(409);
    expect(refused.error?.code).toBe('invalid_transition');
    // Through the lease machine (lib/transitions.ts): a draft may only become active, then be renewed.
    expect(refused.error?.allowed).toEqual(['active']);
    expect(refused.error?.errors).toEqual([
      {
        path: 'status',
        code: 'invalid_transition',
        message: `The lease ${draft} is draft and takes no renewal (only when active or ended); allowed next: active.`,
      },
    ]);
  });

  it('gives one renewal draft of 20 concurrent renewals', async () => {
    const old = await activeLease();
    const answers = await Promise.all(Array.from({ length: 20 }, () => l.renew(old.reference)));
    expect(answers.filter((a) => a.response.status !== 200 && a.response.status !== 201).map((a) => a.error)).toEqual([]);
    expect(answers.filter((a) => a.response.status === 201)).toHaveLength(1);
    expect(new Set(answers.map((a) => a.data?.reference)).size).toBe(1);
    const renewals = await w.api.db
      .selectFrom('leases')
      .innerJoin('leases as old', 'old.id', 'leases.renews_id')
      .select('leases.id')
      .where('old.reference', '=', old.reference)
      .execute();
    expect(renewals).toHaveLength(1);
  });
});
