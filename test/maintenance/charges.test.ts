import Big from 'big.js';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { operations } from '../../clients/typescript/src/index';
import { todayInZone } from '../stay/support';
import { leasesOf, useClients, useWorld } from '../support/world';
import { setUpkeep } from './support';

const w = useWorld();
const [writes, reads] = useClients(w, ['write:maintenance'], ['read:maintenance']);

/** A body as sent (any JSON: the refusals too). */
type Body = Record<string, unknown>;
type ChargesQuery = NonNullable<operations['listJobCharges']['parameters']['query']>;
const post = (body: Body) => writes.POST('/api/v1/job-charges', { body: body as never });
const charge = async (body: Body) => {
  const { data, error } = await post(body);
  if (!data) throw new Error(JSON.stringify(error));
  return data;
};
const patch = (id: string, body: Body) =>
  writes.PATCH('/api/v1/job-charges/{charge_id}', { params: { path: { charge_id: id } }, body: body as never });
const list = (query: ChargesQuery) => reads.GET('/api/v1/job-charges', { params: { query } });
const setOwner = (home: string, owner: string) => setUpkeep(w, home, { owner });

describe('POST /job-charges', () => {
  it('books a charge today to the landlord of the home’s lease, payer from the job; job_charge.booked; one per external id', async () => {
    const lease = await leasesOf(w).active({ home: 'executive-towers-1br' });
    const job = await w.job({ home: 'executive-towers-1br', payer: 'renter' });
    const external = { source: 'books', id: `line-${w.unique()}` };
    const res = await post({ job: job.reference, cost: '450', description: 'Tap cartridge', external });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data).toMatchObject({
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
    const again = await post({ job: job.reference, cost: '999', external });
    expect(again.response.status).toBe(200);
    expect(again.data).toEqual(res.data);
    expect(await w.eventsOf(job.reference)).toEqual(['job_charge.booked']);
    const unknown = await post({ job: 'J-0000000000', cost: '1' });
    expect(unknown.error?.errors?.[0]).toMatchObject({ path: 'job', code: 'unknown_reference' });
    expect((await post({ job: job.reference, cost: '0' })).response.status).toBe(400);
  });

  it('keeps the owner of its day when the home changes hands', async () => {
    const home = await w.holidayHome();
    const [first, second] = [await w.contact(), await w.contact()];
    await setOwner(home, first);
    const job = await w.job({ home });
    const before = await charge({ job: job.reference, cost: '100' });
    await setOwner(home, second);
    const after = await charge({ job: job.reference, cost: '100' });
    expect([before.booked_owner, after.booked_owner]).toEqual([first, second]);
    const read = await reads.GET('/api/v1/job-charges/{charge_id}', { params: { path: { charge_id: before.charge_id } } });
    expect(read.data?.booked_owner).toBe(first);
    const owned = await list({ owner: first });
    expect(owned.data?.results.map((c) => c.charge_id)).toEqual([before.charge_id]);
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
      expect(refused.response.status, JSON.stringify(body)).toBe(409);
      expect(refused.error?.code).toBe('charge_fixed');
    }
    const cancelled = await patch(booked.charge_id, { status: 'cancelled' });
    expect(cancelled.response.status, JSON.stringify(cancelled.error)).toBe(200);
    expect(cancelled.data).toMatchObject({ status: 'cancelled', cancelled_on: todayInZone(), cost: '80.00' });
    expect((await patch(booked.charge_id, { status: 'cancelled' })).data).toEqual(cancelled.data);
    const paid = await patch(booked.charge_id, { status: 'paid' });
    expect(paid.response.status).toBe(409);
    expect(paid.error?.code).toBe('invalid_transition');
    expect(paid.error?.allowed).toEqual([]);
    expect(await w.eventsOf(job.reference)).toEqual(['job_charge.booked', 'job_charge.cancelled']);
  });

  it('marks only a renter’s charge paid', async () => {
    const job = await w.job();
    const owners = await charge({ job: job.reference, cost: '50', payer: 'owner' });
    const refused = await patch(owners.charge_id, { status: 'paid' });
    expect([refused.response.status, refused.error?.code, refused.error?.allowed]).toEqual([
      409,
      'invalid_transition',
      ['cancelled'],
    ]);
    expect(refused.error?.detail).toBe(
      `The charge ${owners.charge_id} is booked and cannot become paid (only a renter’s charge is marked paid; the owner pays this one); allowed next: cancelled.`,
    );
    const renters = await charge({ job: job.reference, cost: '50', payer: 'renter' });
    const tomorrow = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    const future = await patch(renters.charge_id, { status: 'paid', paid_on: tomorrow });
    expect(future.response.status, JSON.stringify(future.error)).toBe(400);
    expect(future.error?.errors).toEqual([expect.objectContaining({ path: 'paid_on', code: 'in_the_future' })]);
    const paid = await patch(renters.charge_id, { status: 'paid', paid_on: todayInZone() });
    expect(paid.data).toMatchObject({ status: 'paid', paid_on: todayInZone() });
    expect((await patch(renters.charge_id, { status: 'cancelled' })).data?.status).toBe('cancelled');
    expect((await list({ job: job.reference, payer: 'renter' })).data?.results).toHaveLength(1);
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
    const sum = async (query: ChargesQuery) => {
      const rows = (await list({ owner, page_size: 100, ...query })).data?.results ?? [];
      return rows.reduce((total, row) => total.plus(row.cost), new Big(0));
    };
    const booked = await sum({ booked_from: `${month}-01`, booked_to: last });
    const reversed = await sum({ cancelled_from: `${month}-01`, cancelled_to: last });
    return booked.minus(reversed).toFixed(2);
  }

  it('never changes a month already reported: a cancellation counts in its own month', async () => {
    const home = await w.holidayHome();
    const owner = await w.contact();
    await setOwner(home, owner);
    const job = await w.job({ home });
    try {
      w.api.clock.set(new Date('2027-03-10T08:00:00Z'));
      const a = await charge({ job: job.reference, cost: '300' });
      await charge({ job: job.reference, cost: '45.50' });
      expect(await statement(owner, '2027-03')).toBe('345.50');
      w.api.clock.set(new Date('2027-04-02T08:00:00Z'));
      const cancelled = await patch(a.charge_id, { status: 'cancelled' });
      expect(cancelled.data).toMatchObject({ booked_on: '2027-03-10', cancelled_on: '2027-04-02' });
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
