import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { leaseJobs } from '../../functions/leases/jobs';
import { leaseWorld } from './http';

/**
 * Twenty identical requests at once: on PostgreSQL (DATABASE_URL, as CI runs it) they really overlap; on PGlite they
 * queue. Either way the database decides, and exactly one of each thing is written.
 */
let w: Awaited<ReturnType<typeof leaseWorld>>;
beforeAll(async () => {
  w = await leaseWorld();
});
afterEach(() => w.api.clock.set(null));
afterAll(() => w.api.close());

const twenty = <T>(send: () => Promise<T>) => Promise.all(Array.from({ length: 20 }, send));
const texts = (answers: Array<{ text: string }>) => JSON.stringify(answers.map((a) => a.text));

describe('twenty concurrent writes', () => {
  it('of one lease with one external id give one lease (one 201, the others 200 with it)', async () => {
    const external = { source: 'yardi', id: `L-${w.unique()}` };
    const answers = await twenty(() => w.post(w.body({ external })));
    expect(
      answers.filter((a) => a.status === 201),
      texts(answers),
    ).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(19);
    expect(new Set(answers.map((a) => a.json.reference)).size).toBe(1);
    const leases = await w.get(`/leases?external=yardi:${external.id}`);
    expect(leases.json.results).toHaveLength(1);
    expect(await w.eventsOf(answers[0]?.json.reference)).toEqual(['lease.created']);
  });

  it('receiving one payment give one receipt and one rent_payment.received', async () => {
    const lease = (await w.post(w.body({ fee: { kind: 'percent', value: '5' } }))).json;
    const id = w.paymentsOf(lease)[0] as string;
    const answers = await twenty(() => w.payment(id, { status: 'received' }));
    expect(
      answers.map((a) => a.status),
      texts(answers),
    ).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => `${a.json.booked_on} ${a.json.fee_amount} ${a.json.received_at}`)).size).toBe(1);
    expect(await w.paymentEvents(id)).toEqual(['rent_payment.received']);
  });

  it('replacing a bounced payment with one external id give one replacement', async () => {
    const lease = (await w.post(w.body())).json;
    const bounced = w.paymentsOf(lease)[0] as string;
    await w.payment(bounced, { status: 'bounced' });
    const external = { source: 'xero', id: `R-${w.unique()}` };
    const answers = await twenty(() =>
      w.write('/rent-payments', { replaces: bounced, due_on: '2027-01-15', amount: '30000', external }),
    );
    expect(
      answers.filter((a) => a.status === 201),
      texts(answers),
    ).toHaveLength(1);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(19);
    const replacements = await w.api.db.selectFrom('rent_payments').select('id').where('replaces_id', '=', bounced).execute();
    expect(replacements).toHaveLength(1);
  });

  it('of the overdue work announce each payment once', async () => {
    const lease = await w.activeLease({ term: { start: '2030-01-01', end: '2030-12-31' } });
    const id = w.paymentsOf(lease)[0] as string;
    w.api.clock.set(new Date('2030-02-01T00:00:00Z'));
    await twenty(() => runScheduledWork(w.api.platform.services(), leaseJobs));
    expect(await w.paymentEvents(id)).toEqual(['rent_payment.overdue']);
  });
});

describe('thirty concurrent PATCHes of one draft', () => {
  it('changing its home, renter and landlord: every one 200 (never 404), the draft ends as one of them sent it', async () => {
    const lease = (await w.post(w.body())).json;
    const sent = [
      { home: 'burj-vista-2br-fountain-view', renter: w.renter, landlord: w.landlord },
      { home: 'marina-gate-1br-furnished', renter: w.landlord, landlord: w.renter },
      { home: 'jvc-2br-townhouse', renter: w.renter, landlord: w.landlord },
    ];
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => w.write(`/leases/${lease.reference}`, sent[i % 3], {}, 'PATCH')),
    );
    expect(
      answers.map((a) => a.status),
      texts(answers.filter((a) => a.status !== 200)),
    ).toEqual(Array(30).fill(200));
    const final = (await w.get(`/leases/${lease.reference}`)).json;
    expect(sent).toContainEqual({ home: final.home, renter: final.renter, landlord: final.landlord });
  });
});
