import { describe, expect, it } from 'vitest';
import { leasesOf, useWorld } from '../support/world';

const w = useWorld();
const l = leasesOf(w);

describe('POST /leases/{reference}/activate', () => {
  it('activates a draft (200) and records lease.activated; sent again it answers the active lease, no event', async () => {
    const lease = await l.draft({ home: 'burj-vista-2br-fountain-view' });
    const res = await l.activate(lease.reference);
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data?.status).toBe('active');
    expect(Date.parse(res.data?.activated_at ?? '')).not.toBeNaN();
    expect(res.response.headers.get('ETag')).toBe('"v2"');
    const again = await l.activate(lease.reference);
    expect(again.response.status, JSON.stringify(again.error)).toBe(200);
    expect(again.data?.activated_at).toBe(res.data?.activated_at);
    expect(await w.eventsOf(lease.reference)).toEqual(['lease.created', 'lease.activated']);
  });

  it('refuses a second active lease of the home with 409 lease_home_occupied; warnings never refuse', async () => {
    const first = await l.draft({ home: 'al-reem-3br-sea-view' });
    const second = await l.draft({ home: 'al-reem-3br-sea-view', deposit: '99999' });
    expect(second.warnings.map((x) => x.code)).toEqual(['deposit_above_default']);
    expect((await l.activate(second.reference)).response.status).toBe(200);
    const refused = await l.activate(first.reference);
    expect(refused.response.status).toBe(409);
    expect(refused.error?.code).toBe('lease_home_occupied');
    expect((await l.get(first.reference)).data?.status).toBe('draft');
    expect(await w.eventsOf(first.reference)).toEqual(['lease.created']);
    const other = await l.draft({ home: 'jvc-2br-townhouse' });
    expect((await l.activate(other.reference)).response.status).toBe(200);
  });

  it('refuses an ended lease (409 invalid_transition), a stale If-Match (412) and an unknown lease (404)', async () => {
    const lease = await l.draft({ home: 'business-bay-fitted-office' });
    const stale = await l.activate(lease.reference, { 'If-Match': '"v999"' });
    expect(stale.response.status).toBe(412);
    await w.api.db
      .updateTable('leases')
      .set({ status: 'ended', activated_at: new Date('2027-01-01T00:00:00Z'), ended_on: '2027-12-31', deposit_outcome: 'kept' })
      .where('reference', '=', lease.reference)
      .execute();
    const ended = await l.activate(lease.reference);
    expect(ended.response.status).toBe(409);
    expect(ended.error?.code).toBe('invalid_transition');
    expect((await l.activate('T-0000000000')).response.status).toBe(404);
  });

  it('gives exactly one active lease of 20 concurrent activations of two drafts of one home', async () => {
    const home = 'mamsha-saadiyat-2br-beachfront';
    const drafts = [(await l.draft({ home })).reference, (await l.draft({ home })).reference];
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => l.activate(drafts[i % 2] as string)));
    const statuses = answers.map((a) => a.response.status);
    expect(
      statuses.filter((s) => s !== 200 && s !== 409),
      JSON.stringify(answers.map((a) => a.error)),
    ).toEqual([]);
    const active = await w.api.db
      .selectFrom('leases')
      .innerJoin('listings', 'listings.id', 'leases.listing_id')
      .select('leases.reference')
      .where('listings.slug_en', '=', home)
      .where('leases.company_id', '=', w.company.id)
      .where('leases.status', '=', 'active')
      .execute();
    expect(active).toHaveLength(1);
    const winner = active[0]?.reference;
    expect(answers.filter((a) => a.response.status === 409).every((a) => a.error?.code === 'lease_home_occupied')).toBe(true);
    const events = [...(await w.eventsOf(drafts[0] as string)), ...(await w.eventsOf(drafts[1] as string))];
    expect(events.filter((e) => e === 'lease.activated')).toHaveLength(1);
    expect(answers.filter((a) => a.response.status === 200).every((a) => a.data?.reference === winner)).toBe(true);
  });
});
