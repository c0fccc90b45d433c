import Big from 'big.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vatOfLine } from '../../lib/money';
import { createTestApi, type TestApi } from '../support/harness';
import { adminOf } from '../support/world';
import { ok, type StatementWorld, statementWorld, sum } from './support';

/**
 * VAT on rent received and on the company's fee (issue 35, second slice; docs/api-reference.md, "Tax"): a receipt keeps
 * its tax as it stood that day (lib/tax.ts and lib/money.ts `vatOfLine`, computed once), never recomputed after a
 * setting or rate changes; the owner's statement shows the fee's VAT and the rent's VAT taken; the journal books both
 * to `vat_payable`; a bounce reverses them; AED and KWD to the minor unit. Who accounts for the rent's VAT is the
 * company's `rent_vat_accounted_by`: `owner` (default, the company the landlord's disclosed agent: the VAT stays in the
 * owner's money, only the fee's VAT is the company's) or `company` (principal: a `rent_vat` line takes it). Expected amounts are worked by hand from
 * the rule (VAT = amount × 5 / 105, half up, in the currency's digits) and checked against `vatOfLine`.
 */

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi({ env: { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '1000000' } });
});
afterAll(async () => {
  api.clock.set(null);
  await api.close();
});

type Json = Record<string, any>;
const payment = async (w: StatementWorld, id: string) =>
  ok(`GET ${id}`, w.client.GET('/api/v1/rent-payments/{payment_id}', { params: { path: { payment_id: id } } })) as Promise<Json>;

/** A commercial lease (its own `tax_category: standard`) for a new owner of `w`: 12 payments of 10,000 (AED) or as given. */
async function commercialLease(w: StatementWorld, rent = '120000') {
  const owner = await w.person('Commercial Owner');
  const lease = await w.lease(owner, 'marina-gate-1br-furnished', {
    tax_category: 'standard',
    rent: { amount: rent, period: 'year' },
  });
  return { owner, lease };
}

describe('a rent payment received keeps its tax as it stood that day', () => {
  it('splits a standard-rated rent and the standard-rated fee, VAT-inclusive, in AED', async () => {
    const w = await statementWorld({ api });
    const { lease } = await commercialLease(w);
    w.on('2027-02-03');
    const received = (await w.receive(lease.payments[0] as string)) as Json;
    // 10,000.00 × 5 / 105 = 476.190… → 476.19; the 5 % fee 500.00 × 5 / 105 = 23.809… → 23.81.
    expect(received.tax).toEqual({ category: 'standard', rate: '5', net: '9523.81', vat: '476.19' });
    expect(received.fee_tax).toEqual({ category: 'standard', rate: '5', net: '476.19', vat: '23.81' });
    expect(vatOfLine('10000.00', 'AED', '5', 'inclusive')).toMatchObject({ net: '9523.81', vat: '476.19' });
    expect((await payment(w, lease.payments[0] as string)).tax).toEqual(received.tax);
  });

  it('charges no VAT on the fee of a company not registered (no TRN, or before its registration day)', async () => {
    // No TRN: the company's own fee is out of scope; the rent it bills as the landlord's agent keeps its category
    // (the landlord's supply), and a rent it lets as principal is out of scope too.
    const unregistered = await statementWorld({ api, settings: { trn: null, vat_registered_on: null } });
    const { lease } = await commercialLease(unregistered);
    unregistered.on('2027-02-03');
    const received = (await unregistered.receive(lease.payments[0] as string)) as Json;
    expect(received.fee_tax).toEqual({ category: 'out_of_scope', rate: null, net: '500.00', vat: '0.00' });
    expect(received.tax).toEqual({ category: 'standard', rate: '5', net: '9523.81', vat: '476.19' });
    const principal = await statementWorld({
      api,
      settings: { trn: null, vat_registered_on: null, rent_vat_accounted_by: 'company' },
    });
    const own = await commercialLease(principal);
    principal.on('2027-02-03');
    const ownReceipt = (await principal.receive(own.lease.payments[0] as string)) as Json;
    expect(ownReceipt.tax).toEqual({ category: 'out_of_scope', rate: null, net: '10000.00', vat: '0.00' });
    expect(ownReceipt.fee_tax).toMatchObject({ category: 'out_of_scope', vat: '0.00' });
    // Registered from a later day: a receipt before it bears no VAT on the fee, one from that day does.
    const later = await statementWorld({ api, settings: { vat_registered_on: '2027-03-01' } });
    const next = await commercialLease(later);
    later.on('2027-02-03');
    expect(((await later.receive(next.lease.payments[0] as string)) as Json).fee_tax.category).toBe('out_of_scope');
    later.on('2027-03-03');
    expect(((await later.receive(next.lease.payments[1] as string)) as Json).fee_tax).toEqual({
      category: 'standard',
      rate: '5',
      net: '476.19',
      vat: '23.81',
    });
  });

  it('keeps a residential rent exempt (no rate, no VAT) while its fee bears VAT', async () => {
    const w = await statementWorld({ api });
    const owner = await w.person('Residential Owner');
    const lease = await w.lease(owner, 'marina-gate-1br-furnished');
    w.on('2027-02-03');
    const received = (await w.receive(lease.payments[0] as string)) as Json;
    expect(received.tax).toEqual({ category: 'exempt', rate: null, net: '10000.00', vat: '0.00' });
    expect(received.fee_tax).toEqual({ category: 'standard', rate: '5', net: '476.19', vat: '23.81' });
    const statement = await w.statement(owner, '2027-02');
    expect(statement.lines.map((l) => l.kind)).toEqual(['rent_received', 'fee']);
  });

  it('is stored once: a later change of the company’s categories leaves it as it was, and the database refuses a rewrite', async () => {
    const w = await statementWorld({ api, company: {}, settings: {} });
    const { lease } = await commercialLease(w);
    w.on('2027-02-03');
    const first = (await w.receive(lease.payments[0] as string)) as Json;
    const changed = await adminOf(api).PATCH('/admin/v1/companies/{company_id}', {
      params: { path: { company_id: w.company.id } },
      body: { settings: { tax_categories: { fee: 'exempt' } } } as never,
    });
    expect(changed.response.status, JSON.stringify(changed.error)).toBe(200);
    w.on('2027-03-03');
    const second = (await w.receive(lease.payments[1] as string)) as Json;
    expect(second.fee_tax).toEqual({ category: 'exempt', rate: null, net: '500.00', vat: '0.00' });
    expect((await payment(w, lease.payments[0] as string)).fee_tax).toEqual(first.fee_tax);
    // The database itself refuses a change (rent_payments_tax_fixed), whoever writes.
    await expect(
      sql`update rent_payments set vat_amount = 0, net_amount = amount where id = ${lease.payments[0]}::uuid`.execute(api.db),
    ).rejects.toThrow(/rent_payments_tax_fixed|never changes/);
    // Tax only on a receipt, whole, and adding up (rent_payments_tax_whole).
    const due = lease.payments[5] as string;
    await expect(
      sql`update rent_payments set tax_category = 'exempt', net_amount = amount, vat_amount = 0, fee_tax_category = 'exempt',
        fee_net_amount = 0, fee_vat_amount = 0 where id = ${due}::uuid`.execute(api.db),
    ).rejects.toThrow(/rent_payments_tax_whole|check constraint/);
    // A receipt recorded without its tax (as before migration 0044) gets none afterwards.
    await sql`update rent_payments set status = 'received', booked_on = '2027-03-03', fee_amount = 0, received_at = now()
      where id = ${due}::uuid`.execute(api.db);
    await expect(
      sql`update rent_payments set tax_category = 'exempt', net_amount = amount, vat_amount = 0, fee_tax_category = 'exempt',
        fee_net_amount = 0, fee_vat_amount = 0 where id = ${due}::uuid`.execute(api.db),
    ).rejects.toThrow(/rent_payments_tax_fixed|none is added/);
    expect((await payment(w, due)).tax).toBeNull();
  });

  it('is refused (409 tax_rate_missing) on a day no rate of its category holds, nothing changed', async () => {
    const w = await statementWorld({ api });
    const { lease } = await commercialLease(w);
    // The seeded standard rate begins on 2018-01-01 (VAT's first day): the day before has none.
    w.on('2017-12-31');
    const id = lease.payments[0] as string;
    await expect(w.receive(id)).rejects.toThrow(/: 409 .*"code":"tax_rate_missing"/);
    w.on('2027-02-03');
    expect(await payment(w, id)).toMatchObject({ status: 'due', tax: null, fee_tax: null });
  });
});

describe('the owner’s statement and the journal', () => {
  it('as principal (`company`): takes the rent’s VAT from the owner, books it and the fee’s to vat_payable, and a bounce reverses them', async () => {
    const w = await statementWorld({ api, settings: { rent_vat_accounted_by: 'company' } });
    const { owner, lease } = await commercialLease(w);
    w.on('2027-02-03');
    await w.receive(lease.payments[0] as string);
    await w.receive(lease.payments[1] as string);
    w.on('2027-02-10');
    await w.bounce(lease.payments[1] as string);
    w.on('2027-03-20');
    const statement = await w.statement(owner, '2027-02');
    expect(statement.lines.map((l) => [l.kind, l.amount, l.net, l.vat, l.tax_category])).toEqual([
      ['rent_received', '10000.00', '9523.81', '476.19', 'standard'],
      ['rent_vat', '-476.19', '0.00', '-476.19', 'standard'],
      ['fee', '-500.00', '-476.19', '-23.81', 'standard'],
      ['rent_received', '10000.00', '9523.81', '476.19', 'standard'],
      ['rent_vat', '-476.19', '0.00', '-476.19', 'standard'],
      ['fee', '-500.00', '-476.19', '-23.81', 'standard'],
      ['rent_reversed', '-10000.00', '-9523.81', '-476.19', 'standard'],
      ['rent_vat_reversed', '476.19', '0.00', '476.19', 'standard'],
      ['fee_reversed', '500.00', '476.19', '23.81', 'standard'],
    ]);
    expect(statement.totals[0]).toMatchObject({
      rent_vat: '952.38',
      rent_vat_reversed: '476.19',
      fees_vat: '47.62',
      fees_vat_reversed: '23.81',
      // 10,000 − 476.19 − 500 kept: the owner is owed the rent less its VAT and the fee (VAT-inclusive).
      net: '9023.81',
    });
    const journal = await w.journal('2027-02');
    const vatLines = journal.entries.flatMap((e: Json) => e.lines.filter((l: Json) => l.account === 'vat_payable'));
    const booked = sum(vatLines.map((l: Json) => l.credit)).minus(sum(vatLines.map((l: Json) => l.debit)));
    expect(booked.toFixed(2)).toBe('500.00');
    const fee = journal.entries.find((e: Json) => e.kind === 'fee');
    expect(fee.lines.map((l: Json) => [l.account, l.debit, l.credit])).toEqual([
      ['fees', '0.00', '476.19'],
      ['vat_payable', '0.00', '23.81'],
      ['owner_payable', '500.00', '0.00'],
    ]);
    const totals = journal.totals[0];
    expect(totals.owner_payable).toBe(statement.totals[0]?.net);
    expect(totals.accounts.find((a: Json) => a.account === 'vat_payable')).toEqual({
      account: 'vat_payable',
      debit: '500.00',
      credit: '1000.00',
    });
  });

  it('as principal, a month’s VAT on receipts equals the journal’s vat_payable lines, and the CSVs name each row’s tax rate', async () => {
    const w = await statementWorld({
      api,
      settings: {
        accounting_tax_rates: { standard: 'SR 5%', exempt: 'EX' },
        accounting_date_order: 'day_first',
        rent_vat_accounted_by: 'company',
      },
    });
    const { lease } = await commercialLease(w, '123457');
    const residential = await w.lease(await w.person('Home Owner'), 'jvc-2br-townhouse');
    w.on('2027-04-05');
    for (const id of [...lease.payments.slice(0, 3), ...residential.payments.slice(0, 2)]) await w.receive(id);
    w.on('2027-05-20');
    const { rows } = await sql<{ vat: string; fee_vat: string }>`
      select vat_amount::text as vat, fee_vat_amount::text as fee_vat from rent_payments
      where company_id = ${w.company.id}::uuid and booked_on between '2027-04-01' and '2027-04-30'`.execute(api.db);
    expect(rows).toHaveLength(5);
    const receipts = sum(rows.flatMap((r) => [r.vat, r.fee_vat]));
    // Each receipt's split is vatOfLine's, to the fils.
    const received = await Promise.all(lease.payments.slice(0, 3).map((id) => payment(w, id)));
    for (const p of received) {
      const split = vatOfLine(p.amount, 'AED', '5', 'inclusive');
      expect(p.tax).toEqual({ category: 'standard', rate: '5', net: split.net, vat: split.vat });
      expect(new Big(p.tax.net).plus(p.tax.vat).toFixed(2)).toBe(p.amount);
    }
    const journal = await w.journal('2027-04');
    const vatLines = journal.entries.flatMap((e: Json) => e.lines.filter((l: Json) => l.account === 'vat_payable'));
    expect(
      sum(vatLines.map((l: Json) => l.credit))
        .minus(sum(vatLines.map((l: Json) => l.debit)))
        .toFixed(2),
    ).toBe(receipts.toFixed(2));
    const xero = await w.client.GET('/api/v1/exports/journal', {
      params: { query: { month: '2027-04', format: 'xero' } },
      parseAs: 'text',
    });
    expect(xero.response.status).toBe(200);
    const lines = String(xero.data).trim().split('\r\n').slice(1);
    const rate = (account: string) => [...new Set(lines.filter((l) => l.includes(`,${account},`)).map((l) => l.split(',')[4]))];
    expect(rate('830')).toEqual(['SR 5%']);
    expect(rate('260')).toEqual(['SR 5%']);
    // Commercial rent (standard) and residential (exempt) on rent income; a zero-rated name the company left unmapped.
    expect(rate('200').sort()).toEqual(['EX', 'SR 5%']);
    expect(rate('810')).toEqual(['Tax Exempt']);
    const quickbooks = await w.client.GET('/api/v1/exports/journal', {
      params: { query: { month: '2027-04', format: 'quickbooks' } },
      parseAs: 'text',
    });
    const qb = String(quickbooks.data).trim().split('\r\n');
    expect(qb[0]).toBe('Journal No.,Journal Date,Account Name,Debits,Credits,Description,Tax Code');
    expect(qb.filter((l) => l.includes(',VAT payable,')).every((l) => l.endsWith(',SR 5%'))).toBe(true);
    expect(qb.filter((l) => l.includes(',Owner payable,')).every((l) => l.endsWith(','))).toBe(true);
  });
});

describe('in KWD, to the fils', () => {
  it('splits 3-digit amounts by the same rule', async () => {
    const w = await statementWorld({ api, company: { currency: 'KWD' }, settings: { rent_vat_accounted_by: 'company' } });
    const { owner, lease } = await commercialLease(w, '1234.567');
    w.on('2027-02-03');
    const received = (await w.receive(lease.payments[0] as string)) as Json;
    // 1234.567 / 12 = 102.880583… → the schedule's first payment; its split by vatOfLine, 3 digits.
    const split = vatOfLine(received.amount, 'KWD', '5', 'inclusive');
    expect(received.amount).toMatch(/^\d+\.\d{3}$/);
    expect(received.tax).toEqual({ category: 'standard', rate: '5', net: split.net, vat: split.vat });
    const feeSplit = vatOfLine(received.fee_amount, 'KWD', '5', 'inclusive');
    expect(received.fee_tax).toEqual({ category: 'standard', rate: '5', net: feeSplit.net, vat: feeSplit.vat });
    expect(split.vat).toMatch(/^\d+\.\d{3}$/);
    w.on('2027-03-20');
    const journal = await w.journal('2027-02');
    const vatLines = journal.entries.flatMap((e: Json) => e.lines.filter((l: Json) => l.account === 'vat_payable'));
    expect(sum(vatLines.map((l: Json) => l.credit)).toFixed(3)).toBe(new Big(split.vat).plus(feeSplit.vat).toFixed(3));
    const statement = await w.statement(owner, '2027-02');
    expect(statement.lines.find((l) => l.kind === 'fee')?.vat).toBe(`-${feeSplit.vat}`);
  });
});

/** The company's setting `rent_vat_accounted_by` (admin API), as an answer's status. */
async function setAccountedBy(w: StatementWorld, value: unknown) {
  const changed = await adminOf(api).PATCH('/admin/v1/companies/{company_id}', {
    params: { path: { company_id: w.company.id } },
    body: { settings: { rent_vat_accounted_by: value } } as never,
  });
  return changed;
}

describe('the landlord’s disclosed agent (`rent_vat_accounted_by: owner`, the default)', () => {
  it('leaves the rent’s VAT in the owner’s money, shows it, and books only the fee’s VAT to vat_payable', async () => {
    const w = await statementWorld({ api });
    const { owner, lease } = await commercialLease(w);
    w.on('2027-02-03');
    const received = (await w.receive(lease.payments[0] as string)) as Json;
    expect(received.rent_vat_accounted_by).toBe('owner');
    expect(received.tax).toEqual({ category: 'standard', rate: '5', net: '9523.81', vat: '476.19' });
    await w.receive(lease.payments[1] as string);
    w.on('2027-02-10');
    await w.bounce(lease.payments[1] as string);
    w.on('2027-03-20');
    const statement = await w.statement(owner, '2027-02');
    // No rent_vat line: the rent's line still shows its category, net and VAT for the owner to declare.
    expect(statement.lines.map((l) => [l.kind, l.amount, l.net, l.vat, l.tax_category])).toEqual([
      ['rent_received', '10000.00', '9523.81', '476.19', 'standard'],
      ['fee', '-500.00', '-476.19', '-23.81', 'standard'],
      ['rent_received', '10000.00', '9523.81', '476.19', 'standard'],
      ['fee', '-500.00', '-476.19', '-23.81', 'standard'],
      ['rent_reversed', '-10000.00', '-9523.81', '-476.19', 'standard'],
      ['fee_reversed', '500.00', '476.19', '23.81', 'standard'],
    ]);
    expect(statement.totals[0]).toMatchObject({
      rent_vat: '0.00',
      rent_vat_reversed: '0.00',
      rent_vat_for_owner: '952.38',
      rent_vat_for_owner_reversed: '476.19',
      fees_vat: '47.62',
      fees_vat_reversed: '23.81',
      // The owner's net keeps the rent's VAT: 10,000 − the fee 500 (VAT-inclusive).
      net: '9500.00',
    });
    const journal = await w.journal('2027-02');
    const vatLines = journal.entries.flatMap((e: Json) => e.lines.filter((l: Json) => l.account === 'vat_payable'));
    expect(vatLines.length).toBeGreaterThan(0);
    expect(journal.entries.filter((e: Json) => e.kind === 'rent_vat' || e.kind === 'rent_vat_reversed')).toEqual([]);
    const totals = journal.totals[0];
    expect(totals.owner_payable).toBe(statement.totals[0]?.net);
    expect(totals.accounts.find((a: Json) => a.account === 'vat_payable')).toEqual({
      account: 'vat_payable',
      debit: '23.81',
      credit: '47.62',
    });
    // The rent is the landlord's supply: its rows carry no tax rate of the company's; the fee's rows do.
    const xero = await w.client.GET('/api/v1/exports/journal', {
      params: { query: { month: '2027-02', format: 'xero' } },
      parseAs: 'text',
    });
    expect(xero.response.status).toBe(200);
    const lines = String(xero.data).trim().split('\r\n').slice(1);
    const rate = (account: string) => [...new Set(lines.filter((l) => l.includes(`,${account},`)).map((l) => l.split(',')[4]))];
    expect(rate('200')).toEqual(['Tax Exempt']);
    expect(rate('260')).toEqual(['Standard Rated (5%)']);
    expect(rate('830')).toEqual(['Standard Rated (5%)']);
  });

  it('a month’s VAT on the company’s own supplies (its fees) equals the journal’s vat_payable lines', async () => {
    const w = await statementWorld({ api });
    const { lease } = await commercialLease(w, '123457');
    const residential = await w.lease(await w.person('Home Owner'), 'jvc-2br-townhouse');
    w.on('2027-04-05');
    for (const id of [...lease.payments.slice(0, 3), ...residential.payments.slice(0, 2)]) await w.receive(id);
    w.on('2027-05-20');
    const { rows } = await sql<{ vat: string; fee_vat: string; by: string }>`
      select vat_amount::text as vat, fee_vat_amount::text as fee_vat, rent_vat_accounted_by as by from rent_payments
      where company_id = ${w.company.id}::uuid and booked_on between '2027-04-01' and '2027-04-30'`.execute(api.db);
    expect(rows).toHaveLength(5);
    expect(new Set(rows.map((r) => r.by))).toEqual(new Set(['owner']));
    // The rents' VAT is there (the commercial ones are standard-rated) but it is the owners' to account for.
    expect(sum(rows.map((r) => r.vat)).gt(0)).toBe(true);
    const companys = sum(rows.map((r) => r.fee_vat));
    const journal = await w.journal('2027-04');
    const vatLines = journal.entries.flatMap((e: Json) => e.lines.filter((l: Json) => l.account === 'vat_payable'));
    expect(
      sum(vatLines.map((l: Json) => l.credit))
        .minus(sum(vatLines.map((l: Json) => l.debit)))
        .toFixed(2),
    ).toBe(companys.toFixed(2));
    expect(journal.entries.every((e: Json) => e.kind !== 'rent_vat')).toBe(true);
  });

  it('is read at each receipt and kept with it: switching the setting afterwards changes nothing of a past receipt', async () => {
    const w = await statementWorld({ api });
    const { owner, lease } = await commercialLease(w);
    const [first, second] = lease.payments as [string, string];
    w.on('2027-02-03');
    await w.receive(first);
    expect((await setAccountedBy(w, 'company')).response.status).toBe(200);
    await w.receive(second);
    expect((await payment(w, first)).rent_vat_accounted_by).toBe('owner');
    expect((await payment(w, second)).rent_vat_accounted_by).toBe('company');
    // Back to the default: the second receipt keeps its rent_vat line, and its bounce reverses it.
    expect((await setAccountedBy(w, 'owner')).response.status).toBe(200);
    w.on('2027-02-10');
    await w.bounce(second);
    await w.bounce(first);
    w.on('2027-03-20');
    const statement = await w.statement(owner, '2027-02');
    const of = (id: string) => statement.lines.filter((l) => l.payment_id === id).map((l) => [l.kind, l.amount]);
    expect(of(first)).toEqual([
      ['rent_received', '10000.00'],
      ['fee', '-500.00'],
      ['rent_reversed', '-10000.00'],
      ['fee_reversed', '500.00'],
    ]);
    expect(of(second)).toEqual([
      ['rent_received', '10000.00'],
      ['rent_vat', '-476.19'],
      ['fee', '-500.00'],
      ['rent_reversed', '-10000.00'],
      ['rent_vat_reversed', '476.19'],
      ['fee_reversed', '500.00'],
    ]);
    expect(statement.totals[0]).toMatchObject({ rent_vat_for_owner: '476.19', rent_vat_for_owner_reversed: '476.19' });
    // The database refuses a rewrite of who accounted for it, whoever writes.
    await expect(
      sql`update rent_payments set rent_vat_accounted_by = 'company' where id = ${first}::uuid`.execute(api.db),
    ).rejects.toThrow(/rent_payments_tax_fixed|never changes/);
  });

  it('refuses an unknown value (400 at the field), changing nothing', async () => {
    const w = await statementWorld({ api });
    const refused = await setAccountedBy(w, 'landlord');
    expect(refused.response.status).toBe(400);
    expect(refused.response.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(JSON.stringify(refused.error)).toContain('rent_vat_accounted_by');
    const { lease } = await commercialLease(w);
    w.on('2027-02-03');
    expect(((await w.receive(lease.payments[0] as string)) as Json).rent_vat_accounted_by).toBe('owner');
  });
});
