import Big from 'big.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { statementJobs } from '../../functions/statements/jobs';
import { createTestApi, type TestApi } from '../support/harness';
import { invoiceSettings } from '../support/invoices';
import { checkPintAeRules, pintAeResources, validatePintAe } from '../support/pint-ae';
import { type StatementWorld, statementWorld, sum } from './support';

/**
 * The tax invoice of an owner's month of fees (issue 35; docs/api-reference.md, "Tax invoices and credit notes", "An
 * owner's month of fees"): issued once when the month closes, in the closing's statement, one per owner and currency,
 * one line per fee reproducing its receipt's stored VAT (so its VAT is the journal's fee VAT); none for a month without
 * fees nor while the company is not registered; a fee bounced in a later month credited against the invoice that held
 * it; a closed month's documents byte-for-byte the same after later writes.
 */

type Json = Record<string, any>;
let api: TestApi;
const issuedXml: string[] = [];

beforeAll(async () => {
  api = await createTestApi({ env: { RATE_LIMIT_SERVER_KEY_PER_MINUTE: '1000000' } });
});
afterAll(async () => {
  api.clock.set(null);
  if (pintAeResources().missing.length === 0 && issuedXml.length > 0) {
    const reports = await validatePintAe(issuedXml.map((xml, i) => ({ name: `fees-${i}`, xml })));
    expect(reports.flatMap((r) => r.failed.filter((f) => f.flag === 'fatal'))).toEqual([]);
  }
  await api.close();
});

/** The statements' scheduled work run on `day` (noon in Dubai), as the scheduler would. */
async function closeOn(w: StatementWorld, day: string) {
  w.on(day);
  return runScheduledWork(api.platform.services(), statementJobs);
}

/** A company's fee documents, in number order, as stored. */
const feeDocuments = (companyId: string) =>
  api.db
    .selectFrom('tax_documents')
    .select(['number', 'kind', 'source_key', 'owner_id', 'credits_id', 'net', 'vat', 'gross', 'xml', 'simplified'])
    .select([sql<string>`document::text`.as('document'), sql<string>`issue_date::text`.as('issue_date')])
    .where('company_id', '=', companyId)
    .where('source_kind', '=', 'statement_fees')
    .orderBy('series')
    .orderBy('sequence')
    .execute();

describe('an owner’s month of fees', () => {
  let w: StatementWorld;
  let owner: string;
  let ownerId: string;
  let other: string;
  let lease: { reference: string; payments: string[] };
  let before: Awaited<ReturnType<typeof feeDocuments>>;

  beforeAll(async () => {
    w = await statementWorld({ api, settings: invoiceSettings });
    owner = await w.person('Fee Owner');
    other = await w.person('Fee Owner Two');
    ownerId = (await api.db.selectFrom('contacts').select('id').where('reference', '=', owner).executeTakeFirstOrThrow()).id;
    lease = await w.lease(owner, 'marina-gate-1br-furnished');
    // A second lease of the same owner with a fixed fee that splits on a fils: 333.33 × 5 / 105 = 15.873 → 15.87.
    const second = await w.lease(owner, 'jvc-2br-townhouse', { fee: { kind: 'fixed', value: '333.33' } });
    // The other owner: a lease without fee (its month issues none).
    const none = await w.lease(other, 'burj-vista-1br-burj-khalifa-view', { fee: undefined });
    w.on('2027-02-03');
    await w.receive(lease.payments[0] as string);
    await w.receive(second.payments[0] as string);
    await w.receive(none.payments[0] as string);
    w.on('2027-02-10');
    await w.charge(await w.job('marina-gate-1br-furnished'), '450.00');
    w.on('2027-02-20');
    await w.receive(lease.payments[1] as string);
    // Not closed yet: nothing issued.
    await closeOn(w, '2027-03-05');
    expect(await feeDocuments(w.company.id)).toEqual([]);
    await closeOn(w, '2027-03-06');
    before = await feeDocuments(w.company.id);
  });

  it('issues one invoice for the owner’s month, a line per fee, its VAT the journal’s fee VAT to the fils', async () => {
    expect(before.map((d) => [d.kind, d.source_key, d.owner_id])).toEqual([['invoice', `${ownerId}:2027-02:AED`, ownerId]]);
    const [invoice] = before;
    const document = JSON.parse(invoice?.document as string);
    expect(document.lines.map((l: Json) => [l.gross, l.vat, l.category, l.rate])).toEqual([
      ['500.00', '23.81', 'standard', '5'],
      ['333.33', '15.87', 'standard', '5'],
      ['500.00', '23.81', 'standard', '5'],
    ]);
    expect(document.totals).toMatchObject({ vat: '63.49', gross: '1333.33', paid: '1333.33', due: '0.00' });
    expect(document.buyer.name).toBe(`Owner ${owner}`);
    expect(document.issueDate).toBe('2027-03-06');
    // The journal's fee VAT lines of the month, and the statement's.
    const journal = await w.journal('2027-02');
    const feeVat = journal.entries
      .filter((e: Json) => e.kind === 'fee' && e.owner === owner)
      .flatMap((e: Json) => e.lines.filter((l: Json) => l.account === 'vat_payable').map((l: Json) => l.credit));
    expect(sum(feeVat).toFixed(2)).toBe('63.49');
    expect(new Big(invoice?.vat as string).toFixed(2)).toBe(sum(feeVat).toFixed(2));
    const statement = (await w.statement(owner, '2027-02')) as Json;
    expect(statement.totals[0]?.fees_vat).toBe('63.49');
    expect(checkPintAeRules(invoice?.xml as string)).toEqual([]);
    expect(invoice?.xml).toContain('<cbc:PaymentMeansCode name="Clearing between partners">97</cbc:PaymentMeansCode>');
    issuedXml.push(invoice?.xml as string);
    const events = await api.db
      .selectFrom('events')
      .select(['type', 'data'])
      .where('company_id', '=', w.company.id)
      .where('type', 'in', ['invoice.issued', 'owner_statement.ready'])
      .execute();
    expect(events.filter((e) => e.type === 'invoice.issued').map((e) => (e.data as Json).reference)).toContain(invoice?.number);
    expect(events.filter((e) => e.type === 'owner_statement.ready')).toHaveLength(2);
  });

  it('issues nothing again when the closing runs again, nor concurrently', async () => {
    await Promise.all([closeOn(w, '2027-03-07'), closeOn(w, '2027-03-07'), closeOn(w, '2027-03-07')]);
    expect(await feeDocuments(w.company.id)).toEqual(before);
  });

  it('stays byte-for-byte the same after later writes; a later bounce is credited against it when its month closes', async () => {
    w.on('2027-03-10');
    await w.bounce(lease.payments[1] as string);
    await w.receive(lease.payments[2] as string);
    await w.charge(await w.job('marina-gate-1br-furnished'), '210.00');
    await closeOn(w, '2027-04-06');
    const after = await feeDocuments(w.company.id);
    expect(after.find((d) => d.number === before[0]?.number)).toEqual(before[0]);
    const march = after.filter((d) => d.number !== before[0]?.number);
    expect(march.map((d) => [d.kind, d.source_key])).toEqual([
      ['credit_note', `${ownerId}:2027-03:AED:${before[0]?.number}`],
      ['invoice', `${ownerId}:2027-03:AED`],
    ]);
    const [credit, invoice] = march;
    const creditDoc = JSON.parse(credit?.document as string);
    expect(creditDoc.credit).toEqual({
      reason: 'DL8.61.1.C',
      invoice: { number: before[0]?.number, issueDate: '2027-03-06' },
    });
    expect(creditDoc.lines.map((l: Json) => [l.gross, l.vat])).toEqual([['500.00', '23.81']]);
    // The month's journal fee VAT: the new fee less the reversed one = the invoice's less the credit note's.
    const journal = await w.journal('2027-03');
    const feeVat = journal.entries
      .filter((e: Json) => (e.kind === 'fee' || e.kind === 'fee_reversed') && e.owner === owner)
      .flatMap((e: Json) =>
        e.lines.filter((l: Json) => l.account === 'vat_payable').map((l: Json) => new Big(l.credit).minus(l.debit).toFixed(2)),
      );
    expect(sum(feeVat).toFixed(2)).toBe(new Big(invoice?.vat as string).minus(credit?.vat as string).toFixed(2));
    for (const d of march) {
      expect(checkPintAeRules(d.xml)).toEqual([]);
      issuedXml.push(d.xml);
    }
    // Later writes again: the closed months' documents unchanged.
    w.on('2027-04-10');
    await w.receive(lease.payments[3] as string);
    await closeOn(w, '2027-04-11');
    expect((await feeDocuments(w.company.id)).slice(0, 3)).toEqual(after);
  });
});

describe('a company not registered', () => {
  it('issues no fee invoice (its fees carry no VAT)', async () => {
    const w = await statementWorld({ api, settings: { ...invoiceSettings, vat_registered_on: '2030-01-01' } });
    const owner = await w.person('Unregistered Fee Owner');
    const lease = await w.lease(owner, 'marina-gate-1br-furnished');
    w.on('2027-02-03');
    await w.receive(lease.payments[0] as string);
    await closeOn(w, '2027-03-06');
    expect(await feeDocuments(w.company.id)).toEqual([]);
    const statement = (await w.statement(owner, '2027-02')) as Json;
    expect(statement.status).toBe('closed');
  });
});
