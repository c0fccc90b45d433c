import { readFile } from 'node:fs/promises';
import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApi, type TestApi } from '../support/harness';
import { groupBy, type StatementWorld, statementWorld, sum } from './support';

/**
 * The accounting journal: a balanced entry per statement line; its totals are the month's statements added up (per
 * currency); the Xero and QuickBooks Online CSVs match fixtures written from their published import layouts
 * (fixtures/README.md); one currency per CSV.
 */
let api: TestApi;
let w: StatementWorld;
let owner: string;
let lease: { reference: string; payments: string[] };

const fixture = async (name: string, values: Record<string, string>) =>
  Object.entries(values).reduce(
    (text, [key, value]) => text.replaceAll(`{${key}}`, value),
    await readFile(new URL(`fixtures/${name}`, import.meta.url), 'utf8'),
  );

beforeAll(async () => {
  api = await createTestApi({ env: { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '1000000' } });
  w = await statementWorld({ api });
  owner = await w.person('Journal Owner');
  lease = await w.lease(owner, 'marina-gate-1br-furnished');
  w.on('2027-02-03');
  await w.receive(lease.payments[0] as string);
  w.on('2027-02-10');
  await w.charge(await w.job('marina-gate-1br-furnished'), '450.00');
  w.on('2027-03-20');
});
afterAll(async () => {
  api.clock.set(null);
  await api.close();
});

type JournalQuery = { month: string; format?: 'json' | 'xero' | 'quickbooks'; currency?: string };
/** GET /exports/journal as a CSV (its text as sent): a 200 expected. */
async function csv(world: StatementWorld, query: JournalQuery) {
  const res = await world.client.GET('/api/v1/exports/journal', { params: { query }, parseAs: 'text' });
  expect(res.response.status, JSON.stringify(res.error)).toBe(200);
  return { text: res.data as string, headers: res.response.headers };
}

describe('the journal of a month', () => {
  it('posts each statement line as a balanced entry to the mapped accounts', async () => {
    const journal = await w.journal('2027-02');
    expect(journal).toMatchObject({ month: '2027-02', status: 'closed', closes_on: '2027-03-06' });
    expect(
      journal.entries.map((e: any) => [e.kind, e.day, e.owner, e.lease, e.lines.map((l: any) => [l.code, l.debit, l.credit])]),
    ).toEqual([
      [
        'rent_received',
        '2027-02-03',
        owner,
        lease.reference,
        [
          ['200', '10000.00', '0.00'],
          ['810', '0.00', '10000.00'],
        ],
      ],
      [
        'fee',
        '2027-02-03',
        owner,
        lease.reference,
        // The fee is standard-rated by default (5 %, VAT-inclusive): its net to fees, its VAT to VAT payable.
        [
          ['260', '0.00', '476.19'],
          ['830', '0.00', '23.81'],
          ['810', '500.00', '0.00'],
        ],
      ],
      [
        'job_charge',
        '2027-02-10',
        owner,
        lease.reference,
        // A job charge is standard-rated by default (migration 0048): its net to maintenance, its VAT to VAT payable.
        [
          ['420', '0.00', '428.57'],
          ['830', '0.00', '21.43'],
          ['810', '450.00', '0.00'],
        ],
      ],
    ]);
    expect(journal.totals).toEqual([
      {
        currency: 'AED',
        debit: '10950.00',
        credit: '10950.00',
        accounts: [
          { account: 'rent_income', debit: '10000.00', credit: '0.00' },
          { account: 'owner_payable', debit: '950.00', credit: '10000.00' },
          { account: 'fees', debit: '0.00', credit: '476.19' },
          { account: 'maintenance', debit: '0.00', credit: '428.57' },
          { account: 'vat_payable', debit: '0.00', credit: '45.24' },
        ],
        owner_payable: '9050.00',
      },
    ]);
    const statement = await w.statement(owner, '2027-02');
    expect(statement.totals[0]?.net).toBe('9050.00');
  });

  it('is Xero’s manual journal import CSV with format=xero', async () => {
    const journal = await w.journal('2027-02');
    const [e1, e2, e3] = journal.entries.map((e: any) => e.number);
    const res = await csv(w, { month: '2027-02', format: 'xero' });
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="journal-2027-02-xero.csv"');
    expect(res.text).toBe(await fixture('xero-manual-journal.csv', { e1, e2, e3, lease: lease.reference, owner }));
    // Each journal (rows of one Narration and Date) balances, as Xero requires.
    const rows = parse(res.text, { columns: true }) as Array<Record<string, string>>;
    const journals = groupBy(rows, (row) => `${row['*Narration']} ${row['*Date']}`);
    expect(journals.size).toBe(3);
    for (const lines of journals.values()) expect(sum(lines.map((l) => l['*Amount'] as string)).eq(0)).toBe(true);
  });

  it('is QuickBooks Online’s journal entry import CSV with format=quickbooks, dates in the company’s order', async () => {
    const us = await statementWorld({ api, settings: { accounting_date_order: 'month_first' } });
    const usOwner = await us.person('Journal Owner');
    const usLease = await us.lease(usOwner, 'marina-gate-1br-furnished');
    us.on('2027-02-03');
    await us.receive(usLease.payments[0] as string);
    us.on('2027-02-10');
    await us.charge(await us.job('marina-gate-1br-furnished'), '450.00');
    us.on('2027-03-20');
    const [e1, e2, e3] = (await us.journal('2027-02')).entries.map((e: any) => e.number);
    const res = await csv(us, { month: '2027-02', format: 'quickbooks' });
    expect(res.text).toBe(
      await fixture('quickbooks-journal-entries.csv', { e1, e2, e3, lease: usLease.reference, owner: usOwner }),
    );
    const rows = parse(res.text, { columns: true }) as Array<Record<string, string>>;
    for (const lines of groupBy(rows, (row) => row['Journal No.'] as string).values()) {
      expect(sum(lines.map((l) => l.Debits || '0')).eq(sum(lines.map((l) => l.Credits || '0')))).toBe(true);
      for (const line of lines) expect(Boolean(line.Debits) !== Boolean(line.Credits)).toBe(true);
    }
    // The company's default order is day first.
    expect((await csv(w, { month: '2027-02', format: 'quickbooks' })).text.split('\r\n')[1]).toMatch(
      /^OS-\d+,03\/02\/2027,Rent income,/,
    );
  });

  it('names accounts by their role until they are mapped, and refuses the CSVs (409) naming those missing', async () => {
    const bare = await statementWorld({ api, settings: { accounting_accounts: { fees: { code: '260', name: 'Fees' } } } });
    const who = await bare.person('Unmapped');
    const first = await bare.lease(who, 'marina-gate-1br-furnished');
    bare.on('2027-02-03');
    await bare.receive(first.payments[0] as string);
    const journal = await bare.journal('2027-02');
    expect(journal.entries.flatMap((e: any) => e.lines)).toEqual([
      { account: 'rent_income', code: null, name: null, debit: '10000.00', credit: '0.00' },
      { account: 'owner_payable', code: null, name: null, debit: '0.00', credit: '10000.00' },
      { account: 'fees', code: '260', name: 'Fees', debit: '0.00', credit: '476.19' },
      { account: 'vat_payable', code: null, name: null, debit: '0.00', credit: '23.81' },
      { account: 'owner_payable', code: null, name: null, debit: '500.00', credit: '0.00' },
    ]);
    for (const format of ['xero', 'quickbooks'] as const) {
      const res = await bare.client.GET('/api/v1/exports/journal', { params: { query: { month: '2027-02', format } } });
      expect(res.response.status).toBe(409);
      expect(res.error).toMatchObject({ code: 'accounts_not_mapped' });
      expect(res.error?.detail).toContain('rent_income, owner_payable, maintenance, vat_payable');
    }
  });

  it('gives totals per currency, and one currency per CSV', async () => {
    const multi = await statementWorld({ api });
    const who = await multi.person('Two Currencies');
    const first = await multi.lease(who, 'marina-gate-1br-furnished');
    multi.on('2027-04-02');
    await multi.receive(first.payments[0] as string);
    // The operator moves the company to US dollars (a new currency for what is booked from now on).
    await sql`update companies set currency = 'USD' where id = ${multi.company.id}::uuid`.execute(api.db);
    multi.on('2027-04-09');
    await multi.receive(first.payments[1] as string);
    await multi.bounce(first.payments[0] as string);
    multi.on('2027-05-20');
    const statement = await multi.statement(who, '2027-04');
    expect(statement.lines.map((l) => [l.kind, l.currency, l.amount])).toEqual([
      ['rent_received', 'AED', '10000.00'],
      ['fee', 'AED', '-500.00'],
      ['rent_received', 'USD', '10000.00'],
      ['fee', 'USD', '-500.00'],
      // The reversal is in the receipt's currency.
      ['rent_reversed', 'AED', '-10000.00'],
      ['fee_reversed', 'AED', '500.00'],
    ]);
    expect(statement.totals.map((t) => [t.currency, t.rent_received, t.rent_reversed, t.net])).toEqual([
      ['AED', '10000.00', '10000.00', '0.00'],
      ['USD', '10000.00', '0.00', '9500.00'],
    ]);
    const journal = await multi.journal('2027-04');
    expect(journal.totals.map((t: any) => [t.currency, t.debit, t.credit, t.owner_payable])).toEqual([
      ['AED', '21000.00', '21000.00', '0.00'],
      ['USD', '10500.00', '10500.00', '9500.00'],
    ]);
    const refused = await multi.client.GET('/api/v1/exports/journal', {
      params: { query: { month: '2027-04', format: 'xero' } },
    });
    expect(refused.response.status).toBe(400);
    expect(refused.error?.errors).toEqual([expect.objectContaining({ path: 'currency', code: 'currency_required' })]);
    const usd = await csv(multi, { month: '2027-04', format: 'xero', currency: 'USD' });
    const rows = parse(usd.text, { columns: true }) as Array<Record<string, string>>;
    expect(rows.map((r) => r['*Amount'])).toEqual(['10000.00', '-10000.00', '-476.19', '-23.81', '500.00']);
  });

  it('adds up to the month’s statements, account by account, for every owner', async () => {
    const journal = await w.journal('2027-02');
    const months = await w.client.GET('/api/v1/owner-statements/months', {
      params: { query: { from: '2027-02', to: '2027-02' } },
    });
    const statements = await Promise.all((months.data?.results ?? []).map((m) => w.statement(m.owner, m.month)));
    for (const totals of journal.totals) {
      const mine = statements.flatMap((s) => s.totals.filter((t) => t.currency === totals.currency));
      const account = (name: string) => totals.accounts.find((a: any) => a.account === name);
      const net = (a: any) => new Big(a.credit).minus(a.debit);
      expect(totals.owner_payable).toBe(sum(mine.map((t) => t.net)).toFixed(2));
      expect(net(account('rent_income')).times(-1).toFixed(2)).toBe(
        sum(mine.map((t) => t.rent_received))
          .minus(sum(mine.map((t) => t.rent_reversed)))
          .toFixed(2),
      );
      // Fees are booked net of their VAT; the VAT (the fees' and the rent's) to VAT payable.
      expect(net(account('fees')).toFixed(2)).toBe(
        sum(mine.map((t) => t.fees))
          .minus(sum(mine.map((t) => t.fees_reversed)))
          .minus(sum(mine.map((t) => t.fees_vat)))
          .plus(sum(mine.map((t) => t.fees_vat_reversed)))
          .toFixed(2),
      );
      // A job charge's VAT (migration 0048), from the statements' lines (signed: a charge's negative, its cancellation's positive).
      const chargesVat = sum(
        statements.flatMap((s) =>
          s.lines
            .filter((l: any) => l.currency === totals.currency && l.vat !== null)
            .filter((l: any) => l.kind === 'job_charge' || l.kind === 'job_charge_cancelled')
            .map((l: any) => l.vat as string),
        ),
      ).times(-1);
      expect(net(account('vat_payable') ?? { credit: '0', debit: '0' }).toFixed(2)).toBe(
        sum(mine.map((t) => t.fees_vat))
          .minus(sum(mine.map((t) => t.fees_vat_reversed)))
          .plus(sum(mine.map((t) => t.rent_vat)))
          .minus(sum(mine.map((t) => t.rent_vat_reversed)))
          .plus(chargesVat)
          .toFixed(2),
      );
      expect(net(account('maintenance')).toFixed(2)).toBe(
        sum(mine.map((t) => t.job_charges))
          .minus(sum(mine.map((t) => t.job_charges_cancelled)))
          .minus(chargesVat)
          .toFixed(2),
      );
    }
  });
});
