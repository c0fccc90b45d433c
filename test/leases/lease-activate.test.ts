import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leaseWorld } from './http';

let w: Awaited<ReturnType<typeof leaseWorld>>;
beforeAll(async () => {
  w = await leaseWorld();
});
afterAll(() => w.api.close());

const activate = (reference: string, headers: Record<string, string> = {}) =>
  w.write(`/leases/${reference}/activate`, undefined, headers);

describe('POST /leases/{reference}/activate', () => {
  it('activates a draft (200) and records lease.activated; sent again it answers the active lease, no event', async () => {
    const lease = (await w.post(w.body({ home: 'burj-vista-2br-fountain-view' }))).json;
    const res = await activate(lease.reference);
    expect(res.status, res.text).toBe(200);
    expect(res.json.status).toBe('active');
    expect(Date.parse(res.json.activated_at)).not.toBeNaN();
    expect(res.headers.get('ETag')).toBe('"v2"');
    const again = await activate(lease.reference);
    expect(again.status, again.text).toBe(200);
    expect(again.json.activated_at).toBe(res.json.activated_at);
    expect(await w.eventsOf(lease.reference)).toEqual(['lease.created', 'lease.activated']);
  });

  it('refuses a second active lease of the home with 409 lease_home_occupied; warnings never refuse', async () => {
    const first = (await w.post(w.body({ home: 'al-reem-3br-sea-view' }))).json;
    const second = (await w.post(w.body({ home: 'al-reem-3br-sea-view', deposit: '99999' }))).json;
    expect(second.warnings.map((x: { code: string }) => x.code)).toEqual(['deposit_above_default']);
    expect((await activate(second.reference)).status).toBe(200);
    const refused = await activate(first.reference);
    expect(refused.status, refused.text).toBe(409);
    expect(refused.json.code).toBe('lease_home_occupied');
    expect((await w.get(`/leases/${first.reference}`)).json.status).toBe('draft');
    expect(await w.eventsOf(first.reference)).toEqual(['lease.created']);
    const other = (await w.post(w.body({ home: 'jvc-2br-townhouse' }))).json;
    expect((await activate(other.reference)).status).toBe(200);
  });

  it('refuses an ended lease (409 invalid_transition), a stale If-Match (412) and an unknown lease (404)', async () => {
    const lease = (await w.post(w.body({ home: 'business-bay-fitted-office' }))).json;
    const stale = await activate(lease.reference, { 'If-Match': '"v999"' });
    expect(stale.status).toBe(412);
    await w.api.db
      .updateTable('leases')
      .set({ status: 'ended', activated_at: new Date(), ended_on: '2027-12-31', deposit_outcome: 'kept' })
      .where('reference', '=', lease.reference)
      .execute();
    const ended = await activate(lease.reference);
    expect(ended.status, ended.text).toBe(409);
    expect(ended.json.code).toBe('invalid_transition');
    expect((await activate('T-0000000000')).status).toBe(404);
  });

  it('gives exactly one active lease of 20 concurrent activations of two drafts of one home', async () => {
    const home = 'mamsha-saadiyat-2br-beachfront';
    const drafts = [(await w.post(w.body({ home }))).json.reference, (await w.post(w.body({ home }))).json.reference];
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => activate(drafts[i % 2] as string)));
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s !== 200 && s !== 409),
      JSON.stringify(answers.map((a) => a.text)),
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
    const winner = active[0]?.reference as string;
    expect(answers.filter((a) => a.status === 409).every((a) => a.json.code === 'lease_home_occupied')).toBe(true);
    const events = [...(await w.eventsOf(drafts[0] as string)), ...(await w.eventsOf(drafts[1] as string))];
    expect(events.filter((e) => e === 'lease.activated')).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200).every((a) => a.json.reference === winner)).toBe(true);
  });
});
