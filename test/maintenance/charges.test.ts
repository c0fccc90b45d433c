import Big from 'big.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { todayInZone } from '../stay/support';
import { maintenanceWorld, type World } from './http';

let w: World;
beforeAll(async () => {
  w = await maintenanceWorld();
});
afterAll(() => w.api.close());

const charge = async (body: Record<string, unknown>) => {
  const res = await w.write('/job-charges', body);
  if (res.status !== 201) throw new Error(res.text);
  return res.json;
};
const patch = (id: string, body: Record<string, unknown>) => w.write(`/job-charges/${id}`, body, {}, 'PATCH');
const setOwner = (home: string, owner: string) =>
  w.api.admin(`/companies/${w.company.id}/listings/${home}/maintenance`, { method: 'PUT', body: { owner } });

describe('POST /job-charges', () => {
  it('books a charge today to the landlord of the home’s lease, payer from the job; job_charge.booked; one per external id', async () => {
    const lease = await w.activeLease('executive-towers-1br');
    const job = await w.job({ home: 'executive-towers-1br', payer: 'renter' });
    const external = { source: 'books', id: `line-${w.unique()}` };
    const res = await w.write('/job-charges', { job: job.reference, cost: '450', description: 'Tap cartridge', external });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({
      job: job.reference,
      home: 'executive-towers-1br',
      cost: '450.00',
      payer: 'renter',
      description: 'Tap cartridge',
      status: 'booked',
      booked_on: todayInZone(),
      booked_owner: lease.landlord,
      paid_on: null,
      cancelled_on: null,
      external: [external],
    });
    const again = await w.write('/job-charges', { job: job.reference, cost: '999', external });
    expect(again.status).toBe(200);
    expect(again.json).toEqual(res.json);
    expect(await w.eventsOf(job.reference)).toEqual(['job_charge.booked']);
    const unknown = await w.write('/job-charges', { job: 'J-0000000000', cost: '1' });
    expect(unknown.json.errors[0]).toMatchObject({ path: 'job', code: 'unknown_reference' });
    expect((await w.write('/job-charges', { job: job.reference, cost: '0' })).status).toBe(400);
  });

  it('keeps the owner of its day when the home changes hands', async () => {
    const home = await w.holidayHome();
    const [first, second] = [await w.contact(`o1.${w.unique()}@example.com`), await w.contact(`o2.${w.unique()}@example.com`)];
    await setOwner(home, first);
    const job = await w.job({ home });
    const before = await charge({ job: job.reference, cost: '100' });
    await setOwner(home, second);
    const after = await charge({ job: job.reference, cost: '100' });
    expect([before.booked_owner, after.booked_owner]).toEqual([first, second]);
    expect((await w.get(`/job-charges/${before.charge_id}`)).json.booked_owner).toBe(first);
    const owned = await w.get(`/job-charges?owner=${first}`);
    expect(owned.json.results.map((c: { charge_id: string }) => c.charge_id)).toEqual([before.charge_id]);
  });
});

describe('PATCH /job-charges/{charge_id}', () => {
  it('cancels a charge once (cancelled_on today, job_charge.cancelled); any other change is 409 charge_fixed', async () => {
    const job = await w.job();
    const booked = await charge({ job: job.reference, cost: '80' });
    for (const body of [
      { cost: '90' },
      { payer: 'company' },
      { booked_on: '2020-01-01' },
      { description: 'x' },
      { job: 'J-1' },
    ]) {
      const refused = await patch(booked.charge_id, body);
      expect(refused.status, JSON.stringify(body)).toBe(409);
      expect(refused.json.code).toBe('charge_fixed');
    }
    const cancelled = await patch(booked.charge_id, { status: 'cancelled' });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.json).toMatchObject({ status: 'cancelled', cancelled_on: todayInZone(), cost: '80.00' });
    expect((await patch(booked.charge_id, { status: 'cancelled' })).json).toEqual(cancelled.json);
    const paid = await patch(booked.charge_id, { status: 'paid' });
    expect(paid.status).toBe(409);
    expect(paid.json.code).toBe('invalid_transition');
    expect(await w.eventsOf(job.reference)).toEqual(['job_charge.booked', 'job_charge.cancelled']);
  });

  it('marks only a renter’s charge paid', async () => {
    const job = await w.job();
    const owners = await charge({ job: job.reference, cost: '50', payer: 'owner' });
    expect((await patch(owners.charge_id, { status: 'paid' })).json.code).toBe('invalid_transition');
    const renters = await charge({ job: job.reference, cost: '50', payer: 'renter' });
    const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const future = await patch(renters.charge_id, { status: 'paid', paid_on: tomorrow });
    expect(future.status, future.text).toBe(400);
    expect(future.json.errors).toEqual([expect.objectContaining({ path: 'paid_on', code: 'in_the_future' })]);
    const paid = await patch(renters.charge_id, { status: 'paid', paid_on: todayInZone() });
    expect(paid.json).toMatchObject({ status: 'paid', paid_on: todayInZone() });
    expect((await patch(renters.charge_id, { status: 'cancelled' })).json.status).toBe('cancelled');
    expect((await w.get(`/job-charges?job=${job.reference}&payer=renter`)).json.results).toHaveLength(1);
  });

  it('is refused by the database too: booked fields, a second payment day, a cancelled charge', async () => {
    const job = await w.job();
    const booked = await charge({ job: job.reference, cost: '70', payer: 'renter' });
    const update = (set: Record<string, unknown>) =>
      w.api.db.updateTable('job_charges').set(set).where('id', '=', booked.charge_id).execute();
    const constraintOf = (p: Promise<unknown>) =>
      p.then(
        () => 'accepted',
        (e: { constraint?: string; message: string }) => e.constraint ?? e.message,
      );
    expect(await constraintOf(update({ cost: '71' }))).toBe('job_charges_booked_fixed');
    expect(await constraintOf(update({ booked_on: '2020-01-01' }))).toBe('job_charges_booked_fixed');
    expect(await constraintOf(update({ booked_owner_id: null, payer: 'owner' }))).toBe('job_charges_booked_fixed');
    await update({ status: 'paid', paid_on: todayInZone() });
    expect(await constraintOf(update({ paid_on: '2999-01-01' }))).toBe('job_charges_paid_fixed');
    expect(await constraintOf(update({ status: 'booked' }))).toBe('job_charges_status_forward');
    await update({ status: 'cancelled', cancelled_on: todayInZone() });
    expect(await constraintOf(update({ cancelled_on: '2999-01-01' }))).toBe('job_charges_cancelled_final');
  });
});

describe('the owner’s statement by month', () => {
  /** A month of the owner's statement from the list alone: charges booked in it, less those cancelled in it. */
  async function statement(owner: string, month: string) {
    const last = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 0)).toISOString().slice(0, 10);
    const sum = async (query: string) => {
      const rows = (await w.get(`/job-charges?owner=${owner}&page_size=100&${query}`)).json.results as Array<{ cost: string }>;
      return rows.reduce((total, row) => total.plus(row.cost), new Big(0));
    };
    const booked = await sum(`booked_from=${month}-01&booked_to=${last}`);
    const reversed = await sum(`cancelled_from=${month}-01&cancelled_to=${last}`);
    return booked.minus(reversed).toFixed(2);
  }

  it('never changes a month already reported: a cancellation counts in its own month', async () => {
    const home = await w.holidayHome();
    const owner = await w.contact(`statement.${w.unique()}@example.com`);
    await setOwner(home, owner);
    const job = await w.job({ home });
    try {
      w.api.clock.set(new Date('2027-03-10T08:00:00Z'));
      const a = await charge({ job: job.reference, cost: '300' });
      await charge({ job: job.reference, cost: '45.50' });
      expect(await statement(owner, '2027-03')).toBe('345.50');
      w.api.clock.set(new Date('2027-04-02T08:00:00Z'));
      const cancelled = await patch(a.charge_id, { status: 'cancelled' });
      expect(cancelled.json).toMatchObject({ booked_on: '2027-03-10', cancelled_on: '2027-04-02' });
      await charge({ job: job.reference, cost: '310' });
      expect(await statement(owner, '2027-03')).toBe('345.50');
      expect(await statement(owner, '2027-04')).toBe('10.00');
    } finally {
      w.api.clock.set(null);
    }
    const rows = await w.api.db
      .selectFrom('job_charges')
      .select(sql<string>`booked_on::text`.as('booked_on'))
      .where(
        'job_id',
        '=',
        (await w.api.db.selectFrom('jobs').select('id').where('reference', '=', job.reference).executeTakeFirstOrThrow()).id,
      )
      .execute();
    expect(rows.map((r) => r.booked_on).sort()).toEqual(['2027-03-10', '2027-03-10', '2027-04-02']);
  });
});
