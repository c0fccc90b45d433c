import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseWorld } from './http';

let w: Awaited<ReturnType<typeof leaseWorld>>;
beforeAll(async () => {
  w = await leaseWorld();
});
afterAll(() => w.api.close());

const activeLease = async () => (await w.activeLease()).reference as string;
const notice = (reference: string, body: Record<string, unknown>) => w.write(`/leases/${reference}/notice`, body);
const codes = (lease: { warnings: Array<{ code: string }> }) => lease.warnings.map((x) => x.code);

describe('POST /leases/{reference}/notice', () => {
  it('records a timely renewal notice, lists it and records lease.notice_given; a late one warns notice_late', async () => {
    const reference = await activeLease();
    const timely = await notice(reference, { given_on: '2027-10-02', by: 'renter', intent: 'renew', proposed_rent: '126000' });
    expect(timely.status, timely.text).toBe(200);
    expect(timely.json.notice.given).toEqual([
      expect.objectContaining({
        given_on: '2027-10-02',
        by: 'renter',
        intent: 'renew',
        vacate_on: null,
        proposed_rent: '126000.00',
        text: null,
      }),
    ]);
    expect(codes(timely.json)).toEqual([]);
    const late = await notice(reference, {
      given_on: '2027-10-03',
      by: 'landlord',
      intent: 'rent_change',
      proposed_rent: '130000',
    });
    expect(late.status, late.text).toBe(200);
    expect(late.json.notice.given).toHaveLength(2);
    expect(codes(late.json)).toEqual(['notice_late']);
    expect(await w.eventsOf(reference)).toEqual(['lease.created', 'lease.activated', 'lease.notice_given', 'lease.notice_given']);
  });

  it('warns vacate_notice_short for a vacate notice under the notice period, dated today by default', async () => {
    const reference = await activeLease();
    w.api.clock.set(new Date('2027-11-01T08:00:00Z'));
    try {
      const res = await notice(reference, { by: 'renter', intent: 'vacate', text: 'Moving out' });
      expect(res.status, res.text).toBe(200);
      expect(res.json.notice.given[0]).toMatchObject({ given_on: '2027-11-01', vacate_on: null, text: 'Moving out' });
      expect(codes(res.json)).toEqual(['vacate_notice_short']);
    } finally {
      w.api.clock.set(null);
    }
    const other = await activeLease();
    const early = await notice(other, { given_on: '2027-06-01', by: 'renter', intent: 'vacate', vacate_on: '2027-08-30' });
    expect(codes(early.json)).toEqual([]);
  });

  it('refuses a notice on a draft (409 invalid_transition) and a proposed rent on a vacate notice (400)', async () => {
    const draft = (await w.post(w.body())).json.reference;
    const refused = await notice(draft, { by: 'renter', intent: 'renew' });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.json.code).toBe('invalid_transition');
    expect((await notice(draft, { by: 'renter', intent: 'vacate', proposed_rent: '1' })).status).toBe(400);
    expect(await w.eventsOf(draft)).toEqual(['lease.created']);
  });

  it('refuses a stale If-Match with 412 precondition_failed and changes nothing', async () => {
    const reference = await activeLease();
    const before = (await w.get(`/leases/${reference}`)).json;
    const stale = await w.write(
      `/leases/${reference}/notice`,
      { given_on: '2027-10-02', by: 'renter', intent: 'renew', proposed_rent: '126000' },
      { 'If-Match': '"v999"' },
    );
    expect(stale.status, stale.text).toBe(412);
    expect(stale.json.code).toBe('precondition_failed');
    expect((await w.get(`/leases/${reference}`)).json).toEqual(before);
  });
});
