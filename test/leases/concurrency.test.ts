import { afterEach, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { leaseJobs } from '../../functions/leases/jobs';
import { leasesOf, useWorld } from '../support/world';

/**
 * Twenty identical requests at once: on PostgreSQL (DATABASE_URL, as CI runs it) they really overlap; on PGlite they
 * queue. Either way the database decides, and exactly one of each thing is written.
 */
const w = useWorld();
const l = leasesOf(w);
afterEach(() => w.api.clock.set(null));

const twenty = <T>(send: () => Promise<T>) => Promise.all(Array.from({ length: 20 }, send));
type Answer = { response: Response; error?: unknown };
const texts = (answers: Answer[]) => JSON.stringify(answers.map((a) => a.error ?? a.response.status));
const statuses = (answers: Answer[]) => answers.map((a) => a.response.status);

describe('twenty concurrent writes', () => {
  it('of one lease with one external id give one lease (one 201, the others 200 with it)', async () => {
    const external = { source: 'yardi', id: `L-${w.unique()}` };
    const answers = await twenty(() => l.post({ external }));
    expect(
      statuses(answers).filter((s) => s === 201),
      texts(answers),
    ).toHaveLength(1);
    expect(statuses(answers).filter((s) => s === 200)).toHaveLength(19);
    expect(new Set(answers.map((a) => a.data?.reference)).size).toBe(1);
    const leases = await w.client.GET('/api/v1/leases', { params: { query: { external: `yardi:${external.id}` } } });
    expect(leases.data?.results).toHaveLength(1);
    expect(await w.eventsOf(answers[0]?.data?.reference ?? '')).toEqual(['lease.created']);
  });

  it('receiving one payment give one receipt and one rent_payment.received', async () => {
    const lease = await l.draft({ fee: { kind: 'percent', value: '5' } });
    const id = l.paymentIds(lease)[0] as string;
    const answers = await twenty(() => l.changePayment(id, { status: 'received' }));
    expect(statuses(answers), texts(answers)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => `${a.data?.booked_on} ${a.data?.fee_amount} ${a.data?.received_at}`)).size).toBe(1);
    expect(await l.paymentEvents(id)).toEqual(['rent_payment.received']);
  });

  it('replacing a bounced payment with one external id give one replacement', async () => {
    const lease = await l.draft();
    const bounced = l.paymentIds(lease)[0] as string;
    await l.changePayment(bounced, { status: 'bounced' });
    const external = { source: 'xero', id: `R-${w.unique()}` };
    const answers = await twenty(() => l.replace({ replaces: bounced, due_on: '2027-01-15', amount: '30000', external }));
    expect(
      statuses(answers).filter((s) => s === 201),
      texts(answers),
    ).toHaveLength(1);
    expect(statuses(answers).filter((s) => s === 200)).toHaveLength(19);
    const replacements = await w.api.db.selectFrom('rent_payments').select('id').where('replaces_id', '=', bounced).execute();
    expect(replacements).toHaveLength(1);
  });

  it('of the overdue work announce each payment once', async () => {
    const lease = await l.active({ term: { start: '2030-01-01', end: '2030-12-31' } });
    const id = l.paymentIds(lease)[0] as string;
    w.api.clock.set(new Date('2030-02-01T00:00:00Z'));
    await twenty(() => runScheduledWork(w.api.platform.services(), leaseJobs));
    expect(await l.paymentEvents(id)).toEqual(['rent_payment.overdue']);
  });
});

describe('thirty concurrent PATCHes of one draft', () => {
  it('changing its home, renter and landlord: every one 200 (never 404), the draft ends as one of them sent it', async () => {
    const lease = await l.draft();
    const { renter, landlord } = w.contacts;
    const sent = [
      { home: 'burj-vista-2br-fountain-view', renter, landlord },
      { home: 'marina-gate-1br-furnished', renter: landlord, landlord: renter },
      { home: 'jvc-2br-townhouse', renter, landlord },
    ];
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => l.patch(lease.reference, sent[i % 3] ?? {})));
    expect(statuses(answers), texts(answers.filter((a) => a.response.status !== 200))).toEqual(Array(30).fill(200));
    const final = (await l.get(lease.reference)).data;
    expect(sent).toContainEqual({ home: final?.home, renter: final?.renter, landlord: final?.landlord });
  });
});
