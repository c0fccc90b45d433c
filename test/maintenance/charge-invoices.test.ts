import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vatOfLine } from '../../lib/money';
import { createTestApi, type TestApi } from '../support/harness';
import { invoiceSettings } from '../support/invoices';
import { checkPintAeRules, pintAeResources, validatePintAe } from '../support/pint-ae';
import { ok, type StatementWorld, statementWorld } from '../statements/support';

/**
 * VAT on job charges and the tax invoice of a charge recharged (issue 35; migration 0048; docs/api-reference.md, "Tax
 * invoices and credit notes", "Job charges"): the charge keeps its tax as booked (the cost VAT-inclusive, `vatOfLine`),
 * the owner's statement line carries it, the journal books it to VAT payable; a charge to the owner or the tenant issues
 * its invoice in the charge's statement, its cancellation a credit note reproducing the invoice's VAT; the company's own
 * charges, untaxed categories and a company not registered issue none. Every document passes the PINT AE rules.
 */

type Json = Record<string, any>;
let api: TestApi;
let w: StatementWorld;
const home = 'marina-gate-1br-furnished';
const issuedXml: string[] = [];

beforeAll(async () => {
  api = await createTestApi({ env: { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '1000000' } });
  w = await statementWorld({ api, settings: invoiceSettings });
});
afterAll(async () => {
  api.clock.set(null);
  if (pintAeResources().missing.length === 0 && issuedXml.length > 0) {
    const reports = await validatePintAe(issuedXml.map((xml, i) => ({ name: `charge-${i}`, xml })));
    expect(reports.flatMap((r) => r.failed.filter((f) => f.flag === 'fatal'))).toEqual([]);
  }
  await api.close();
});

/** The documents issued for a charge (the invoice first), as stored. */
const documentsOf = (companyId: string, chargeId: string) =>
  api.db
    .selectFrom('tax_documents')
    .select(['number', 'kind', 'simplified', 'net', 'vat', 'gross', 'owner_id', 'credits_id', 'xml', 'issue_date'])
    .select(sql<Json>`document`.as('document'))
    .where('company_id', '=', companyId)
    .where('source_kind', '=', 'job_charge')
    .where('source_key', '=', chargeId)
    .orderBy('sequence')
    .orderBy('kind', 'desc')
    .execute();

const charge = (world: StatementWorld, body: Json) => ok('POST /job-charges', world.postCharge(body)) as Promise<Json>;

describe('an owner’s charge', () => {
  let owner: string;
  let chargeId: string;
  let standing: string;

  beforeAll(async () => {
    owner = await w.person('Charge Owner');
    await w.lease(owner, home);
    w.on('2027-02-10');
    const made = await charge(w, { job: await w.job(home), cost: '450.00', payer: 'owner' });
    chargeId = made.charge_id;
    expect(made.tax).toEqual({ category: 'standard', rate: '5', net: '428.57', vat: '21.43' });
    // The rule, by hand: 450 × 5 / 105 = 21.428… → 21.43, as vatOfLine.
    expect(vatOfLine('450.00', 'AED', '5', 'inclusive').vat).toBe('21.43');
  });

  it('carries its VAT on the statement line and to VAT payable in the journal', async () => {
    const statement = (await w.statement(owner, '2027-02')) as Json;
    const line = statement.lines.find((l: Json) => l.kind === 'job_charge');
    expect(line).toMatchObject({ amount: '-450.00', vat: '-21.43', net: '-428.57', tax_category: 'standard' });
    const journal = await w.journal('2027-02');
    const entry = journal.entries.find((e: Json) => e.kind === 'job_charge' && e.owner === owner);
    expect(entry.lines.map((l: Json) => [l.account, l.debit, l.credit])).toEqual([
      ['maintenance', '0.00', '428.57'],
      ['vat_payable', '0.00', '21.43'],
      ['owner_payable', '450.00', '0.00'],
    ]);
  });

  it('issues its tax invoice in the charge’s statement: to the owner, paid in full by clearing, 998719', async () => {
    const [invoice, ...rest] = await documentsOf(w.company.id, chargeId);
    expect(rest).toEqual([]);
    expect(invoice).toMatchObject({ kind: 'invoice', simplified: true, issue_date: expect.anything() });
    expect([invoice?.net, invoice?.vat, invoice?.gross].map(Number)).toEqual([428.57, 21.43, 450]);
    expect(invoice?.document.buyer.name).toBe(`Owner ${owner}`);
    expect(invoice?.document.totals).toMatchObject({ vat: '21.43', gross: '450.00', paid: '450.00', due: '0.00' });
    expect(invoice?.document.lines[0]).toMatchObject({ serviceCode: '998719', category: 'standard', vat: '21.43' });
    const xml = invoice?.xml as string;
    expect(xml).toContain('<cbc:PaymentMeansCode name="Clearing between partners">97</cbc:PaymentMeansCode>');
    expect(checkPintAeRules(xml)).toEqual([]);
    issuedXml.push(xml);
    const events = await api.db
      .selectFrom('events')
      .select('data')
      .where('company_id', '=', w.company.id)
      .where('type', '=', 'invoice.issued')
      .execute();
    expect(events.map((e) => (e.data as Json).reference)).toContain(invoice?.number);
  });

  it('is credited in full when cancelled (DL8.61.1.A), its line and journal VAT reversed', async () => {
    w.on('2027-03-02');
    await w.cancelCharge(chargeId);
    const [invoice, credit] = await documentsOf(w.company.id, chargeId);
    expect(credit).toMatchObject({ kind: 'credit_note', simplified: true });
    expect(credit?.vat).toEqual(invoice?.vat);
    expect(credit?.gross).toEqual(invoice?.gross);
    expect(credit?.document.credit).toEqual({
      reason: 'DL8.61.1.A',
      invoice: { number: invoice?.number, issueDate: invoice?.document.issueDate },
    });
    expect(checkPintAeRules(credit?.xml as string)).toEqual([]);
    issuedXml.push(credit?.xml as string);
    const statement = (await w.statement(owner, '2027-03')) as Json;
    expect(statement.lines.find((l: Json) => l.kind === 'job_charge_cancelled')).toMatchObject({
      amount: '450.00',
      vat: '21.43',
      tax_category: 'standard',
    });
    const journal = await w.journal('2027-03');
    const entry = journal.entries.find((e: Json) => e.kind === 'job_charge_cancelled' && e.owner === owner);
    expect(entry.lines.map((l: Json) => [l.account, l.debit, l.credit])).toEqual([
      ['maintenance', '428.57', '0.00'],
      ['vat_payable', '21.43', '0.00'],
      ['owner_payable', '0.00', '450.00'],
    ]);
    // Cancelled once: nothing more is issued.
    expect(await documentsOf(w.company.id, chargeId)).toHaveLength(2);
  });

  it('gives a registered owner a full invoice with the owner’s name and TRN', async () => {
    const registered = await w.person('Registered Owner');
    await ok(
      'PATCH /contacts',
      w.writes.PATCH('/api/v1/contacts/{reference}', {
        params: { path: { reference: registered } },
        body: { trn: '100998877600003' } as never,
      }),
    );
    await w.lease(registered, 'jvc-2br-townhouse');
    w.on('2027-03-05');
    const made = await charge(w, { job: await w.job('jvc-2br-townhouse'), cost: '1000.00', payer: 'owner' });
    standing = made.charge_id;
    const [invoice] = await documentsOf(w.company.id, made.charge_id);
    expect(invoice).toMatchObject({ simplified: false });
    expect(invoice?.document.buyer).toMatchObject({ name: 'Registered Owner', trn: '100998877600003' });
    expect(checkPintAeRules(invoice?.xml as string)).toEqual([]);
    issuedXml.push(invoice?.xml as string);
  });

  it('keeps its tax once booked: the database refuses a change', async () => {
    await expect(
      sql`update job_charges set vat_amount = 0, net_amount = cost where id = ${standing}::uuid`.execute(api.db),
    ).rejects.toThrow(/tax/);
  });
});

describe('other payers and categories', () => {
  it('invoices a tenant’s charge to the tenant: due on the day, the means not known', async () => {
    const owner = await w.person('Tenant Charge Owner');
    await w.lease(owner, 'burj-vista-1br-burj-khalifa-view');
    w.on('2027-03-06');
    const made = await charge(w, { job: await w.job('burj-vista-1br-burj-khalifa-view'), cost: '210.00', payer: 'renter' });
    expect(made.tax).toEqual({ category: 'standard', rate: '5', net: '200.00', vat: '10.00' });
    const [invoice] = await documentsOf(w.company.id, made.charge_id);
    expect(invoice?.document.buyer.name).toBe(`Tenant ${w.renter}`);
    expect(invoice?.owner_id).toBeNull();
    expect(invoice?.document.totals).toMatchObject({ vat: '10.00', paid: '0.00', due: '210.00' });
    expect(invoice?.document.dueDate).toBe('2027-03-06');
    expect(checkPintAeRules(invoice?.xml as string)).toEqual([]);
    issuedXml.push(invoice?.xml as string);
  });

  it('issues none for the company’s own charge (out of scope) nor an exempt one; an unknown category is 400 at the field', async () => {
    w.on('2027-03-07');
    const job = await w.job(home);
    const own = await charge(w, { job, cost: '300.00', payer: 'company', tax_category: 'standard' });
    expect(own.tax).toEqual({ category: 'out_of_scope', rate: null, net: '300.00', vat: '0.00' });
    expect(await documentsOf(w.company.id, own.charge_id)).toEqual([]);
    const exempt = await charge(w, { job, cost: '300.00', payer: 'owner', tax_category: 'exempt' });
    expect(exempt.tax).toEqual({ category: 'exempt', rate: null, net: '300.00', vat: '0.00' });
    expect(await documentsOf(w.company.id, exempt.charge_id)).toEqual([]);
    const bad = await w.postCharge({ job, cost: '300.00', tax_category: 'reduced' });
    expect(bad.response.status).toBe(400);
    expect(JSON.stringify(bad.error)).toContain('tax_category');
    const fixed = await w.changeCharge(own.charge_id, { tax_category: 'standard' });
    expect(fixed.response.status).toBe(409);
  });

  it('charges no VAT and issues nothing while the company is not registered', async () => {
    const later = await statementWorld({ api, settings: { ...invoiceSettings, vat_registered_on: '2030-01-01' } });
    const owner = await later.person('Unregistered Owner');
    await later.lease(owner, home);
    later.on('2027-02-10');
    const made = await charge(later, { job: await later.job(home), cost: '450.00', payer: 'owner' });
    expect(made.tax).toEqual({ category: 'out_of_scope', rate: null, net: '450.00', vat: '0.00' });
    expect(await documentsOf(later.company.id, made.charge_id)).toEqual([]);
    const statement = (await later.statement(owner, '2027-02')) as Json;
    expect(statement.lines.find((l: Json) => l.kind === 'job_charge')).toMatchObject({ vat: '0.00' });
    await later.cancelCharge(made.charge_id);
    expect(await documentsOf(later.company.id, made.charge_id)).toEqual([]);
  });
});
