import { afterEach, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { leaseJobs } from '../../functions/leases/jobs';
import { leasesOf, useWorld } from '../support/world';

const w = useWorld();
const l = leasesOf(w);
afterEach(() => w.api.clock.set(null));

/** Runs the lease group's scheduled work at an instant; its report of how many payments were announced. */
async function runAt(instant: string) {
  w.api.clock.set(new Date(instant));
  return (await runScheduledWork(w.api.platform.services(), leaseJobs)).rent_overdue as number;
}
/** PATCH the company's rent_grace_days (null: the default) through the typed admin client. */
const setGraceDays = (days: number | null) =>
  w.adminClient.PATCH('/admin/v1/companies/{company_id}', {
    params: { path: { company_id: w.company.id } },
    body: { settings: { rent_grace_days: days } } as never,
  });
const overdueAt = async (id: string) => (await l.payment(id)).data?.overdue_at;

describe('rent_payment.overdue (scheduled work)', () => {
  it('announces a payment once, from the day after its due date plus the grace days in the company’s time zone', async () => {
    // Due 2027-01-01 with 5 grace days: overdue from 2027-01-07 in Dubai, which starts at 2027-01-06T20:00Z.
    const lease = await l.active();
    const [jan, apr] = l.paymentIds(lease) as [string, string];
    await runAt('2027-01-06T19:59:59Z');
    expect(await overdueAt(jan)).toBeNull();
    expect(await l.paymentEvents(jan)).toEqual([]);
    expect(await runAt('2027-01-06T20:00:00Z')).toBeGreaterThanOrEqual(1);
    expect(await overdueAt(jan)).toBe('2027-01-06T20:00:00.000Z');
    await runAt('2027-01-20T00:00:00Z');
    expect(await l.paymentEvents(jan)).toEqual(['rent_payment.overdue']);
    expect(await overdueAt(apr)).toBeNull();
    // Paid late: the announcement stays what it was, and receipt is still possible.
    expect((await l.changePayment(jan, { status: 'received' })).data).toMatchObject({
      status: 'received',
      overdue_at: '2027-01-06T20:00:00.000Z',
    });
  });

  it('follows the company’s rent_grace_days, and skips drafts, settled payments; an ended lease’s arrears stay overdue', async () => {
    const settings = await setGraceDays(0);
    expect(settings.response.status, JSON.stringify(settings.error)).toBe(200);
    try {
      const draft = await l.draft({ term: { start: '2028-01-01', end: '2028-12-31' } });
      const active = await l.active({ term: { start: '2028-01-01', end: '2028-12-31' } });
      const [paid, cancelled, bounced] = l.paymentIds(active).slice(1) as [string, string, string];
      await l.changePayment(paid, { status: 'received' });
      await l.changePayment(cancelled, { status: 'cancelled' });
      await l.changePayment(bounced, { status: 'bounced' });
      const ending = await l.active({ term: { start: '2028-01-01', end: '2028-12-31' } });
      const ended = await l.end(ending.reference, { ended_on: '2028-01-31', deposit: { outcome: 'kept' } });
      expect(ended.response.status, JSON.stringify(ended.error)).toBe(200);
      await runAt('2028-01-01T19:59:59Z');
      expect(await overdueAt(l.paymentIds(active)[0] as string)).toBeNull();
      // No grace days: due on 1 January, overdue from 2 January in Dubai.
      await runAt('2028-01-01T20:00:00Z');
      expect(await overdueAt(l.paymentIds(active)[0] as string)).toBe('2028-01-01T20:00:00.000Z');
      for (const id of [...l.paymentIds(draft), paid, cancelled, bounced]) expect(await overdueAt(id), id).toBeNull();
      const endedPayments = (await w.client.GET('/api/v1/rent-payments', { params: { query: { lease: ending.reference } } }))
        .data;
      expect(endedPayments?.results.map((p) => [p.status, p.overdue_at !== null]).sort()).toEqual([
        ['cancelled', false],
        ['cancelled', false],
        ['cancelled', false],
        ['due', true],
      ]);
    } finally {
      await setGraceDays(null);
    }
  });
});
