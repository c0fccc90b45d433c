import Big from 'big.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, type StatementWorld, statementWorld, sum } from './support';

/**
 * Owner statements through the API: the lines of a month (receipts and fees by booked_on, reversals by bounced_on,
 * owner's charges by booked_on and their cancellations by cancelled_on), the totals per currency, and agreement with
 * what test/leases/statement.test.ts and accounting-sync.test.ts derive from the raw lists.
 */
let w: StatementWorld;
let owner1: string;
let owner2: string;
let a: { reference: string; payments: string[] };
let b: { reference: string; payments: string[] };
let replacement: string;
let charge: string;
let renterCharge: string;

beforeAll(async () => {
  w = await statementWorld();
  owner1 = await w.person('Owner One');
  owner2 = await w.person('Owner Two');
  a = await w.lease(owner1, 'marina-gate-1br-furnished');
  b = await w.lease(owner2, 'jvc-2br-townhouse', {
    fee: { kind: 'fixed', value: '250' },
    rent: { amount: '8000', period: 'month' },
  });
  w.on('2027-01-04');
  await w.receive(a.payments[0] as string);
  await w.receive(b.payments[0] as string);
  w.on('2027-02-02');
  await w.bounce(a.payments[0] as string);
  replacement = (
    await ok('POST /rent-payments', w.replacePayment({ replaces: a.payments[0], due_on: '2027-02-10', amount: '10000' }))
  ).payment_id;
  await w.receive(a.payments[1] as string);
  const job = await w.job('marina-gate-1br-furnished');
  charge = await w.charge(job, '450.00');
  renterCharge = await w.charge(job, '120.00', 'renter');
  w.on('2027-03-01');
  await w.receive(replacement);
  await w.cancelCharge(charge);
  await w.receive(b.payments[1] as string);
});
afterAll(async () => {
  w.api.clock.set(null);
  await w.api.close();
});

describe('an owner’s statement', () => {
  it('lists the month’s lines by day with their lease, home and record, signed as they change what is owed', async () => {
    w.on('2027-03-20');
    const feb = await w.statement(owner1, '2027-02');
    expect(feb).toMatchObject({
      owner: owner1,
      owner_name: 'Owner One',
      company_name: 'Test Company',
      month: '2027-02',
      from: '2027-02-01',
      to: '2027-02-28',
      status: 'closed',
      closes_on: '2027-03-06',
    });
    const home = 'marina-gate-1br-furnished';
    expect(feb.lines).toEqual([
      {
        kind: 'rent_reversed',
        day: '2027-02-02',
        amount: '-10000.00',
        currency: 'AED',
        lease: a.reference,
        home,
        payment_id: a.payments[0],
        charge_id: null,
        job: null,
        method: null,
        online_payment: null,
        booking: null,
        refund: null,
        tax_category: 'exempt',
        net: '-10000.00',
        vat: '0.00',
      },
      {
        kind: 'fee_reversed',
        day: '2027-02-02',
        amount: '500.00',
        currency: 'AED',
        lease: a.reference,
        home,
        payment_id: a.payments[0],
        charge_id: null,
        job: null,
        method: null,
        online_payment: null,
        booking: null,
        refund: null,
        tax_category: 'standard',
        net: '476.19',
        vat: '23.81',
      },
      {
        kind: 'rent_received',
        day: '2027-02-02',
        amount: '10000.00',
        currency: 'AED',
        lease: a.reference,
        home,
        payment_id: a.payments[1],
        charge_id: null,
        job: null,
        method: null,
        online_payment: null,
        booking: null,
        refund: null,
        tax_category: 'exempt',
        net: '10000.00',
        vat: '0.00',
      },
      {
        kind: 'fee',
        day: '2027-02-02',
        amount: '-500.00',
        currency: 'AED',
        lease: a.reference,
        home,
        payment_id: a.payments[1],
        charge_id: null,
        job: null,
        method: null,
        online_payment: null,
        booking: null,
        refund: null,
        tax_category: 'standard',
        net: '-476.19',
        vat: '-23.81',
      },
      expect.objectContaining({
        kind: 'job_charge',
        day: '2027-02-02',
        amount: '-450.00',
        lease: a.reference,
        home,
        payment_id: null,
        charge_id: charge,
      }),
    ]);
    expect(feb.lines.map((l) => l.charge_id)).not.toContain(renterCharge);
    expect(feb.totals).toEqual([
      {
        currency: 'AED',
        rent_received: '10000.00',
        rent_reversed: '10000.00',
        fees: '500.00',
        fees_reversed: '500.00',
        job_charges: '450.00',
        job_charges_cancelled: '0.00',
        rent_vat: '0.00',
        rent_vat_reversed: '0.00',
        fees_vat: '23.81',
        fees_vat_reversed: '23.81',
        rent_vat_for_owner: '0.00',
        rent_vat_for_owner_reversed: '0.00',
        bookings_received: '0.00',
        bookings_refunded: '0.00',
        net: '-450.00',
        opening_balance: null,
        closing_balance: null,
      },
    ]);
    const mar = await w.statement(owner1, '2027-03');
    expect(mar.status).toBe('open');
    expect(mar.lines.map((l) => [l.kind, l.amount])).toEqual([
      ['rent_received', '10000.00'],
      ['fee', '-500.00'],
      ['job_charge_cancelled', '450.00'],
    ]);
    expect(mar.totals[0]?.net).toBe('9950.00');
  });

  it('agrees with the raw lists: receipts and fees by booked_on, reversals by bounced_on, charges by booked_on less cancellations', async () => {
    const query = { params: { query: { page_size: 100 } } };
    const payments = (await ok('GET /rent-payments', w.writes.GET('/api/v1/rent-payments', query))).results as Array<
      Record<string, any>
    >;
    const charges = (await ok('GET /job-charges', w.writes.GET('/api/v1/job-charges', query))).results as Array<
      Record<string, any>
    >;
    const landlordOf = { [a.reference]: owner1, [b.reference]: owner2 } as Record<string, string>;
    for (const owner of [owner1, owner2]) {
      for (const month of ['2027-01', '2027-02', '2027-03']) {
        const mine = (p: Record<string, any>) => landlordOf[p.lease] === owner;
        const inMonth = (day: string | null) => day?.startsWith(month) ?? false;
        const expected = {
          rent_received: sum(payments.filter((p) => mine(p) && inMonth(p.booked_on)).map((p) => p.amount)).toFixed(2),
          fees: sum(payments.filter((p) => mine(p) && inMonth(p.booked_on)).map((p) => p.fee_amount)).toFixed(2),
          rent_reversed: sum(payments.filter((p) => mine(p) && inMonth(p.bounced_on)).map((p) => p.amount)).toFixed(2),
          job_charges: sum(
            charges.filter((c) => c.payer === 'owner' && c.booked_owner === owner && inMonth(c.booked_on)).map((c) => c.cost),
          ).toFixed(2),
          job_charges_cancelled: sum(
            charges.filter((c) => c.payer === 'owner' && c.booked_owner === owner && inMonth(c.cancelled_on)).map((c) => c.cost),
          ).toFixed(2),
        };
        const statement = await w.statement(owner, month);
        const totals = statement.totals[0] ?? {
          rent_received: '0.00',
          fees: '0.00',
          rent_reversed: '0.00',
          job_charges: '0.00',
          job_charges_cancelled: '0.00',
        };
        expect(
          {
            rent_received: totals.rent_received,
            fees: totals.fees,
            rent_reversed: totals.rent_reversed,
            job_charges: totals.job_charges,
            job_charges_cancelled: totals.job_charges_cancelled,
          },
          `${owner} ${month}`,
        ).toEqual(expected);
        // The net is the lines' sum.
        if (statement.totals[0]) expect(statement.totals[0].net).toBe(sum(statement.lines.map((l) => l.amount)).toFixed(2));
      }
    }
  });

  it('lists the owners and months that have one, newest first, page by page', async () => {
    const seen: Array<{ owner: string; month: string; status: string }> = [];
    let cursor: string | undefined;
    do {
      const page = await w.client.GET('/api/v1/owner-statements/months', { params: { query: { page_size: 2, cursor } } });
      expect(page.response.status, JSON.stringify(page.error)).toBe(200);
      seen.push(...(page.data?.results ?? []).map(({ owner, month, status }) => ({ owner, month, status })));
      cursor = page.data?.next_cursor ?? undefined;
    } while (cursor);
    const expected = [
      ...[owner1, owner2].map((owner) => ({ owner, month: '2027-03', status: 'open' })),
      ...[owner1].map((owner) => ({ owner, month: '2027-02', status: 'closed' })),
      ...[owner1, owner2].map((owner) => ({ owner, month: '2027-01', status: 'closed' })),
    ];
    const order = (x: { month: string; owner: string }, y: { month: string; owner: string }) =>
      y.month.localeCompare(x.month) || x.owner.localeCompare(y.owner);
    expect(seen.toSorted(order)).toEqual(expected.toSorted(order));
    expect(seen.map((s) => s.month)).toEqual(expected.map((s) => s.month));
    const mine = await w.client.GET('/api/v1/owner-statements/months', { params: { query: { owner: owner2, from: '2027-02' } } });
    expect(mine.data?.results.map((r) => r.month)).toEqual(['2027-03']);
  });

  it('gives an empty statement for a person with no line that month, 404 for an unknown one, 400 for a bad month', async () => {
    const empty = await w.statement(owner2, '2027-02');
    expect(empty.lines).toEqual([]);
    expect(empty.totals).toEqual([]);
    const unknown = await w.client.GET('/api/v1/owner-statements', {
      params: { query: { owner: 'P-NOBODY0000', month: '2027-02' } },
    });
    expect(unknown.response.status).toBe(404);
    for (const month of ['2027-13', '2027-2', '1899-12', '3000-01', '2027-02-01', '']) {
      const res = await w.writes.GET('/api/v1/owner-statements', { params: { query: { owner: owner1, month } } });
      expect(res.response.status, month).toBe(400);
    }
  });

  it('writes each read to the audit log with the owner’s reference', async () => {
    await w.statement(owner2, '2027-01');
    const rows = await w.api.db
      .selectFrom('audit_log')
      .select(['action', 'subject', 'details'])
      .where('company_id', '=', w.company.id)
      .orderBy('id', 'desc')
      .limit(1)
      .execute();
    expect(rows[0]).toMatchObject({ action: 'personal_data.read', subject: w.reader.prefix });
    expect(rows[0]?.details).toMatchObject({ route: 'GET /api/v1/owner-statements', references: [owner2] });
  });

  it('refuses any change to a line in the database itself (owner_statement_lines_fixed)', async () => {
    const line = await w.api.db
      .selectFrom('owner_statement_lines')
      .select('id')
      .where('company_id', '=', w.company.id)
      .executeTakeFirstOrThrow();
    await expect(sql`update owner_statement_lines set amount = 0 where id = ${line.id}`.execute(w.api.db)).rejects.toMatchObject({
      constraint: 'owner_statement_lines_fixed',
    });
  });

  it('keeps a statement’s lines when the owner is erased; only the name goes', async () => {
    const before = await w.statement(owner2, '2027-01');
    const erased = await w.erase(owner2);
    expect(erased.response.status, JSON.stringify(erased.error)).toBe(200);
    const after = await w.statement(owner2, '2027-01');
    expect(after).toEqual({ ...before, owner_name: null });
    expect(new Big(after.totals[0]?.rent_received ?? '0').gt(0)).toBe(true);
  });
});
