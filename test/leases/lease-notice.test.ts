import { describe, expect, it } from 'vitest';
import { leasesOf, useWorld } from '../support/world';

const w = useWorld();
const l = leasesOf(w);

const activeLease = async () => (await l.active()).reference;
const codes = (lease: { warnings: Array<{ code: string }> } | undefined) => lease?.warnings.map((x) => x.code);

describe('POST /leases/{reference}/notice', () => {
  it('records a timely renewal notice, lists it and records lease.notice_given; a late one warns notice_late', async () => {
    const reference = await activeLease();
    const timely = await l.notice(reference, { given_on: '2027-10-02', by: 'renter', intent: 'renew', proposed_rent: '126000' });
    expect(timely.response.status, JSON.stringify(timely.error)).toBe(200);
    expect(timely.data?.notice.given).toEqual([
      expect.objectContaining({
        given_on: '2027-10-02',
        by: 'renter',
        intent: 'renew',
        vacate_on: null,
        proposed_rent: '126000.00',
        text: null,
      }),
    ]);
    expect(codes(timely.data)).toEqual([]);
    const late = await l.notice(reference, {
      given_on: '2027-10-03',
      by: 'landlord',
      intent: 'rent_change',
      proposed_rent: '130000',
    });
    expect(late.response.status, JSON.stringify(late.error)).toBe(200);
    expect(late.data?.notice.given).toHaveLength(2);
    expect(codes(late.data)).toEqual(['notice_late']);
    expect(await w.eventsOf(reference)).toEqual(['lease.created', 'lease.activated', 'lease.notice_given', 'lease.notice_given']);
  });

  it('warns vacate_notice_short for a vacate notice under the notice period, dated today by default', async () => {
    const reference = await activeLease();
    w.api.clock.set(new Date('2027-11-01T08:00:00Z'));
    try {
      const res = await l.notice(reference, { by: 'renter', intent: 'vacate', text: 'Moving out' });
      expect(res.response.status, JSON.stringify(res.error)).toBe(200);
      expect(res.data?.notice.given[0]).toMatchObject({ given_on: '2027-11-01', vacate_on: null, text: 'Moving out' });
      expect(codes(res.data)).toEqual(['vacate_notice_short']);
    } finally {
      w.api.clock.set(null);
    }
    const other = await activeLease();
    const early = await l.notice(other, { given_on: '2027-06-01', by: 'renter', intent: 'vacate', vacate_on: '2027-08-30' });
    expect(codes(early.data)).toEqual([]);
  });

  it('refuses a notice on a draft (409 invalid_transition) and a proposed rent on a vacate notice (400)', async () => {
    const draft = (await l.draft()).reference;
    const refused = await l.notice(draft, { by: 'renter', intent: 'renew' });
    expect(refused.response.status).toBe(409);
    expect(refused.error?.code).toBe('invalid_transition');
    // Through the lease machine (lib/transitions.ts): what the draft may become before it takes a notice.
    expect(refused.error?.allowed).toEqual(['active']);
    expect(refused.error?.detail).toBe(
      `The lease ${draft} is draft and takes no notice (only when active); allowed next: active.`,
    );
    expect((await l.notice(draft, { by: 'renter', intent: 'vacate', proposed_rent: '1' })).response.status).toBe(400);
    expect(await w.eventsOf(draft)).toEqual(['lease.created']);
  });

  it('refuses a stale If-Match with 412 precondition_failed and changes nothing', async () => {
    const reference = await activeLease();
    const before = (await l.get(reference)).data;
    const stale = await l.notice(
      reference,
      { given_on: '2027-10-02', by: 'renter', intent: 'renew', proposed_rent: '126000' },
      { 'If-Match': '"v999"' },
    );
    expect(stale.response.status).toBe(412);
    expect(stale.error?.code).toBe('precondition_failed');
    expect((await l.get(reference)).data).toEqual(before);
  });
});
