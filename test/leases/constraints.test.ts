import { type Insertable, sql, type Updateable } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../../lib/db/index';
import { newReference } from '../../lib/references';
import type { LeasesTable, RentPaymentsTable } from '../../schema/leases/db';
import { createTestApi, type TestApi } from '../support/harness';
import { createCompany } from '../support/world';

/**
 * What the database itself refuses on leases and rent payments (migration 0011), whatever the write path: a second
 * active lease of a home, a second renewal of a lease, and any rewrite of what an owner's statement already showed.
 * Runs on PGlite and on PostgreSQL (DATABASE_URL).
 */

let api: TestApi;
let companyId: string;
let renter: string;
let landlord: string;

beforeAll(async () => {
  api = await createTestApi();
  companyId = (await createCompany(api)).id;
  const people = await api.db
    .insertInto('contacts')
    .values([
      { company_id: companyId, reference: newReference('P'), name: 'Renter' },
      { company_id: companyId, reference: newReference('P'), name: 'Landlord' },
    ])
    .returning('id')
    .execute();
  [renter, landlord] = people.map((p) => p.id) as [string, string];
}, 60_000);
afterAll(() => api.close());

let homes = 0;
async function newHome(): Promise<string> {
  homes += 1;
  const row = await api.db
    .insertInto('listings')
    .values({
      company_id: companyId,
      slug_en: `constraints-home-${homes}`,
      listing_type: 'lease',
      status: 'published',
      title: JSON.stringify({ en: `Home ${homes}` }),
      description: JSON.stringify({}),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

async function newLease(listingId: string, values: Partial<Insertable<LeasesTable>> = {}): Promise<string> {
  const row = await api.db
    .insertInto('leases')
    .values({
      company_id: companyId,
      reference: newReference('T'),
      listing_id: listingId,
      renter_id: renter,
      landlord_id: landlord,
      starts_on: '2027-01-01',
      ends_on: '2027-12-31',
      rent_amount: '120000.00',
      rent_period: 'year',
      notice_days: 90,
      ...values,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** 'ok', or the refusal's SQLSTATE and the constraint it names. */
async function outcome(write: Promise<unknown>): Promise<string> {
  try {
    await write;
    return 'ok';
  } catch (error) {
    const { code, constraint } = error as { code?: string; constraint?: string };
    if (!code) throw error;
    return constraint ? `${code} ${constraint}` : code;
  }
}

const activate = (id: string, executor: Executor = api.db) =>
  executor.updateTable('leases').set({ status: 'active', activated_at: new Date() }).where('id', '=', id).execute();

describe('one active lease per home', () => {
  it('refuses activating a second lease of a home, and allows it once the first has ended', async () => {
    const home = await newHome();
    const [first, second] = [await newLease(home), await newLease(home)];
    expect(await outcome(activate(first))).toBe('ok');
    expect(await outcome(activate(second))).toBe('23505 leases_one_active');
    expect(await outcome(newLease(home, { status: 'active', activated_at: new Date() }))).toBe('23505 leases_one_active');
    // Another home is not concerned.
    expect(await outcome(activate(await newLease(await newHome())))).toBe('ok');
    const end = api.db
      .updateTable('leases')
      .set({ status: 'ended', ended_on: '2027-12-31', deposit_outcome: 'returned' })
      .where('id', '=', first)
      .execute();
    expect(await outcome(end)).toBe('ok');
    expect(await outcome(activate(second))).toBe('ok');
  });

  it('lets exactly one of 20 concurrent activations of drafts of one home commit', async () => {
    const home = await newHome();
    const drafts = await Promise.all(Array.from({ length: 20 }, () => newLease(home)));
    const results = await Promise.all(drafts.map((id) => outcome(api.db.transaction().execute((trx) => activate(id, trx)))));
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === '23505 leases_one_active')).toHaveLength(19);
    const active = await api.db
      .selectFrom('leases')
      .select('id')
      .where('listing_id', '=', home)
      .where('status', '=', 'active')
      .execute();
    expect(active).toHaveLength(1);
  });
});

describe('one renewal per lease', () => {
  it('refuses a second renewal of a lease, also under 20 concurrent inserts', async () => {
    const home = await newHome();
    const old = await newLease(home);
    const renewal = { starts_on: '2028-01-01', ends_on: '2028-12-31', renews_id: old };
    expect(await outcome(newLease(home, renewal))).toBe('ok');
    expect(await outcome(newLease(home, renewal))).toBe('23505 leases_one_renewal');
    const other = await newLease(home);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => outcome(newLease(home, { ...renewal, renews_id: other }))),
    );
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === '23505 leases_one_renewal')).toHaveLength(19);
  });

  it('keeps a lease consistent: renter and landlord apart, a term that ends after it starts, an end with its deposit', async () => {
    const home = await newHome();
    expect(await outcome(newLease(home, { landlord_id: renter }))).toMatch(/^23514 /);
    expect(await outcome(newLease(home, { starts_on: '2027-01-02', ends_on: '2027-01-01' }))).toMatch(/^23514 /);
    expect(await outcome(newLease(home, { ends_on: '3000-01-01' }))).toMatch(/^23514 /);
    const lease = await newLease(home);
    const endWithout = api.db
      .updateTable('leases')
      .set({ status: 'ended', ended_on: '2027-06-30' })
      .where('id', '=', lease)
      .execute();
    expect(await outcome(endWithout)).toMatch(/^23514 /);
    const deductionsAboveDeposit = api.db
      .updateTable('leases')
      .set({
        status: 'ended',
        activated_at: new Date(),
        ended_on: '2027-06-30',
        deposit_outcome: 'returned_with_deductions',
        deposit_deductions: '1.00',
        deposit_reason: 'Paint',
      })
      .where('id', '=', lease)
      .execute();
    expect(await outcome(deductionsAboveDeposit)).toMatch(/^23514 /);
  });
});

describe('rent payments: what an owner was shown never changes', () => {
  let lease: string;
  beforeAll(async () => {
    lease = await newLease(await newHome(), { deposit_amount: '6000.00' });
  });

  async function newPayment(values: Partial<Insertable<RentPaymentsTable>> = {}): Promise<string> {
    const row = await api.db
      .insertInto('rent_payments')
      .values({ company_id: companyId, lease_id: lease, due_on: '2027-01-01', amount: '30000.00', ...values })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }
  const update = (id: string, values: Updateable<RentPaymentsTable>) =>
    api.db.updateTable('rent_payments').set(values).where('id', '=', id).execute();
  const receive = (id: string, bookedOn = '2027-01-03') =>
    update(id, { status: 'received', booked_on: bookedOn, fee_amount: '1500.00', received_at: new Date() });
  const versionOf = async (id: string) =>
    String((await sql<{ v: string }>`select version::text as v from rent_payments where id = ${id}`.execute(api.db)).rows[0]?.v);

  it('lets a payment still due change its own fields, bumping its version', async () => {
    const id = await newPayment();
    expect(await versionOf(id)).toBe('1');
    expect(
      await outcome(update(id, { amount: '29000.00', due_on: '2027-01-05', cheque_number: '000123', cheque_bank: 'ENBD' })),
    ).toBe('ok');
    expect(await versionOf(id)).toBe('2');
  });

  it('fixes booked_on and fee_amount once received, and the received amount, due date and lease', async () => {
    const id = await newPayment();
    expect(await outcome(receive(id))).toBe('ok');
    expect(await outcome(update(id, { booked_on: '2027-02-01' }))).toBe('23514 rent_payments_booked_on_fixed');
    expect(await outcome(update(id, { fee_amount: '0.00' }))).toBe('23514 rent_payments_fee_amount_fixed');
    expect(await outcome(update(id, { amount: '1.00' }))).toBe('23514 rent_payments_received_fixed');
    expect(await outcome(update(id, { due_on: '2027-03-01' }))).toBe('23514 rent_payments_received_fixed');
    expect(await outcome(update(id, { status: 'due', booked_on: null, fee_amount: null, received_at: null }))).toBe(
      '23514 rent_payments_status_forward',
    );
    expect(await outcome(update(id, { status: 'cancelled', cancelled_at: new Date() }))).toBe(
      '23514 rent_payments_status_forward',
    );
    // A note on a received payment is not what the owner was shown.
    expect(await outcome(update(id, { notes: 'Cleared' }))).toBe('ok');
  });

  it('refuses any change to a bounced payment, whether it bounced after a receipt or before', async () => {
    const afterReceipt = await newPayment();
    await receive(afterReceipt);
    expect(await outcome(update(afterReceipt, { status: 'bounced', bounced_on: '2027-01-02', bounced_at: new Date() }))).toMatch(
      /^23514 /,
    );
    expect(await outcome(update(afterReceipt, { status: 'bounced', bounced_on: '2027-02-10', bounced_at: new Date() }))).toBe(
      'ok',
    );
    const beforeReceipt = await newPayment();
    expect(await outcome(update(beforeReceipt, { status: 'bounced', bounced_at: new Date() }))).toBe('ok');
    for (const id of [afterReceipt, beforeReceipt]) {
      const version = await versionOf(id);
      for (const change of [
        { notes: 'Called the renter' },
        { bounced_on: '2027-03-01' },
        { status: 'due' as const, bounced_at: null },
        { amount: '1.00' },
        { updated_at: new Date() },
      ]) {
        expect(await outcome(update(id, change)), JSON.stringify(change)).toBe('23514 rent_payments_bounced_final');
      }
      expect(await versionOf(id)).toBe(version);
    }
  });

  it('lets erasure empty a bounced payment’s note, and nothing else with it', async () => {
    const id = await newPayment({ notes: 'Cheque of the renter' });
    expect(await outcome(update(id, { status: 'bounced', bounced_at: new Date() }))).toBe('ok');
    expect(await outcome(update(id, { notes: null, amount: '1.00' }))).toBe('23514 rent_payments_bounced_final');
    expect(await outcome(update(id, { notes: 'Another note' }))).toBe('23514 rent_payments_bounced_final');
    const version = await versionOf(id);
    expect(await outcome(update(id, { notes: null }))).toBe('ok');
    expect(await versionOf(id)).toBe(String(Number(version) + 1));
    // Once empty, nothing is left to erase: the payment is final again.
    expect(await outcome(update(id, { notes: null }))).toBe('23514 rent_payments_bounced_final');
  });

  it('moves statuses only forward, and keeps each status with its dates', async () => {
    const cancelled = await newPayment();
    expect(await outcome(update(cancelled, { status: 'cancelled', cancelled_at: new Date() }))).toBe('ok');
    expect(await outcome(receive(cancelled))).toBe('23514 rent_payments_status_forward');
    const due = await newPayment();
    expect(await outcome(update(due, { status: 'received' }))).toMatch(/^23514 /);
    expect(await outcome(update(due, { booked_on: '2027-01-03', fee_amount: '0.00', received_at: new Date() }))).toMatch(
      /^23514 /,
    );
    expect(await outcome(newPayment({ amount: '-1.00' }))).toMatch(/^23514 /);
    expect(await outcome(newPayment({ cheque_number: '000124' }))).toMatch(/^23514 /);
  });

  it('a replacement points at another payment', async () => {
    const bounced = await newPayment();
    await update(bounced, { status: 'bounced', bounced_at: new Date() });
    expect(await outcome(newPayment({ replaces_id: bounced }))).toBe('ok');
    expect(await outcome(newPayment({ replaces_id: bounced }))).toBe('ok');
  });
});
