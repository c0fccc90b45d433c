import Big from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceSettings } from '../support/invoices';
import { checkPintAeRules, fatal, type PintAeDocument, pintAeResources, validatePintAe } from '../support/pint-ae';
import { leasesOf, useWorld, type World, world } from '../support/world';

/**
 * A rent receipt's tax invoice and its bounce's credit note (issue 35; lib/rent-invoices.ts; docs/api-reference.md,
 * "Tax invoices and credit notes", "Rent receipts and bounces"), through staff's PATCH /rent-payments/{id}: issued
 * in the receipt's own statement for a taxable rent (commercial `standard`, a first residential supply `zero_rated`),
 * none for exempt rent, a company not registered that day, or an agent's landlord without a TRN; every XML through the
 * PINT AE rules written from the specification (and the official ones when their artefacts are here).
 */
const w = useWorld({ settings: invoiceSettings });
const l = leasesOf(w);
const landlordTrn = '100987654300003';
const renterTrn = '100555666700003';
const xmls: PintAeDocument[] = [];

type Doc = {
  id: string;
  kind: string;
  number: string;
  type_code: string;
  simplified: boolean;
  issue_date: string;
  vat: string;
  gross: string;
  source_kind: string;
  source_key: string;
  lease_id: string | null;
  owner_id: string | null;
  credits_id: string | null;
  document: Record<string, any>;
  xml: string;
};

/** The documents issued for a payment, invoice first. */
async function documentsOf(at: World, paymentId: string): Promise<Doc[]> {
  const rows = await at.api.db
    .selectFrom('tax_documents')
    .selectAll()
    .where('company_id', '=', at.company.id)
    .where('source_key', '=', paymentId)
    .orderBy('kind', 'desc')
    .orderBy('sequence')
    .execute();
  return rows.map((r) => ({
    ...r,
    issue_date: String(r.issue_date).slice(0, 10),
    vat: String(r.vat),
    gross: String(r.gross),
  })) as never;
}

/** The XML as the route answers it, checked against the rules written from the specification (and kept for the official). */
async function xmlOf(at: World, number: string): Promise<string> {
  const res = await at.request(`/invoices/${number}.xml`);
  expect(res.status).toBe(200);
  expect(checkPintAeRules(res.text)).toEqual([]);
  xmls.push({ name: `${number}-${xmls.length}.xml`, xml: res.text });
  return res.text;
}

async function setTrn(at: World, reference: string, trn: string | null) {
  const res = await at.client.PATCH('/api/v1/contacts/{reference}', { params: { path: { reference } }, body: { trn } as never });
  expect(res.response.status, JSON.stringify(res.error)).toBe(200);
}

async function receive(at: World, paymentId: string, body: Record<string, unknown> = {}) {
  const res = await leasesOf(at).changePayment(paymentId, { status: 'received', ...body });
  expect(res.response.status, JSON.stringify(res.error)).toBe(200);
  return res.data as NonNullable<typeof res.data>;
}

/** A person's contact of the world (a renter or landlord of its own), with a TRN when given. */
async function person(at: World, name: string, trn: string | null = null) {
  const reference = await at.contact({ name });
  if (trn) await setTrn(at, reference, trn);
  return reference;
}

/** Lease listings for this file's active leases (one active lease a home): the world's four, then the demo's others. */
const otherHomes = [
  'jvc-studio-unfurnished',
  'executive-towers-1br',
  'mamsha-saadiyat-2br-beachfront',
  'dubai-hills-4br-villa',
  'oceana-3br-palm',
  'marina-gate-1br-furnished',
];
const nextHome = () => otherHomes.pop() ?? w.leaseHome();

let landlord: string;
beforeAll(async () => {
  landlord = await person(w, 'Khalid Al Mansouri', landlordTrn);
});

describe('a receipt of commercial rent (staff’s PATCH)', () => {
  it('issues a simplified tax invoice as the landlord’s disclosed agent, continuous supply, in the receipt’s statement', async () => {
    const lease = await l.active({ landlord, tax_category: 'standard', home: w.leaseHome() });
    const [first] = l.paymentIds(lease);
    const paid = await receive(w, first as string, { cheque: { number: '000123', bank: 'Emirates NBD' } });
    expect(paid.tax?.category).toBe('standard');
    const [invoice, ...more] = await documentsOf(w, first as string);
    expect(more).toEqual([]);
    expect(invoice).toMatchObject({
      kind: 'invoice',
      type_code: '380',
      simplified: true,
      issue_date: paid.booked_on,
      source_kind: 'rent_payment',
      lease_id: expect.any(String),
      owner_id: expect.any(String),
    });
    expect(new Big(invoice!.vat).eq(paid.tax!.vat)).toBe(true);
    expect(new Big(invoice!.gross).eq(paid.amount)).toBe(true);
    const { document } = invoice!;
    expect(document.principal).toEqual({ name: 'Khalid Al Mansouri', trn: landlordTrn });
    expect(document.buyer.trn ?? null).toBeNull();
    expect(document.buyer.name).toMatch(/^Tenant /);
    expect(document.continuousSupply).toBe(true);
    expect(document.contractReference).toBe(lease.reference);
    // The schedule's four payments: the first covers its quarter.
    expect(document.period).toEqual({ start: '2027-01-01', end: '2027-03-31', frequency: 'QTR' });
    expect(document.payment).toEqual({ code: '20' });
    expect(document.lines).toMatchObject([{ category: 'standard', rate: '5', serviceCode: '997212', gross: paid.amount }]);
    expect(document.totals.due).toBe('0.00');
    const xml = await xmlOf(w, invoice!.number);
    expect(xml).toContain('<cbc:ProfileExecutionID>00001100</cbc:ProfileExecutionID>');
    expect(xml).toContain(landlordTrn);
    expect(await l.paymentEvents(first as string)).toEqual(['rent_payment.received']);
    const issued = (await w.allEvents()).filter((e) => e.type === 'invoice.issued' && e.data.reference === invoice!.number);
    expect(issued).toHaveLength(1);
    // Received again: nothing more.
    await receive(w, first as string);
    expect(await documentsOf(w, first as string)).toHaveLength(1);
  });

  it('issues a full tax invoice to a renter registered for VAT; zero-rated first supply with its own code', async () => {
    const renter = await person(w, 'Gulf Trading L.L.C.', renterTrn);
    const lease = await l.active({ renter, landlord, tax_category: 'zero_rated', home: nextHome() });
    const [first] = l.paymentIds(lease);
    const paid = await receive(w, first as string);
    const [invoice] = await documentsOf(w, first as string);
    expect(invoice).toMatchObject({ kind: 'invoice', type_code: '380', simplified: false });
    expect(invoice!.document.buyer).toMatchObject({ name: 'Gulf Trading L.L.C.', trn: renterTrn });
    expect(invoice!.document.lines).toMatchObject([{ category: 'zero_rated', rate: '0', serviceCode: '997211', vat: '0.00' }]);
    expect(invoice!.document.payment).toEqual({ code: '10' });
    expect(paid.tax?.category).toBe('zero_rated');
    await xmlOf(w, invoice!.number);
  });

  it('issues none for exempt residential rent, nor for a landlord without a TRN (the receipt recorded all the same)', async () => {
    const exempt = await l.active({ landlord, home: nextHome() });
    const [one] = l.paymentIds(exempt);
    expect((await receive(w, one as string)).tax?.category).toBe('exempt');
    expect(await documentsOf(w, one as string)).toEqual([]);

    const unregistered = await person(w, 'No TRN Landlord');
    const lease = await l.active({ landlord: unregistered, tax_category: 'standard', home: nextHome() });
    const [two] = l.paymentIds(lease);
    const paid = await receive(w, two as string);
    expect(paid).toMatchObject({ status: 'received', tax: { category: 'standard' } });
    expect(await documentsOf(w, two as string)).toEqual([]);
  });

  it('credits a bounced receipt’s invoice in full (381, DL8.61.1.C, the invoice referenced, the same VAT), once', async () => {
    const lease = await l.active({ landlord, tax_category: 'standard', home: nextHome() });
    const [first, second] = l.paymentIds(lease);
    await receive(w, first as string, { cheque: { number: '000777', bank: 'Mashreq' } });
    const bounced = await l.changePayment(first as string, { status: 'bounced' });
    expect(bounced.response.status, JSON.stringify(bounced.error)).toBe(200);
    const [invoice, credit, ...more] = await documentsOf(w, first as string);
    expect(more).toEqual([]);
    expect(credit).toMatchObject({
      kind: 'credit_note',
      type_code: '381',
      credits_id: invoice!.id,
      issue_date: bounced.data?.bounced_on,
      vat: invoice!.vat,
      gross: invoice!.gross,
      simplified: true,
    });
    expect(credit!.document.credit).toEqual({
      reason: 'DL8.61.1.C',
      invoice: { number: invoice!.number, issueDate: invoice!.issue_date },
    });
    expect(credit!.document.principal).toEqual(invoice!.document.principal);
    const xml = await xmlOf(w, credit!.number);
    expect(xml).toContain(`<cbc:ID>${invoice!.number}</cbc:ID>`);
    expect(xml).toContain('<cbc:ProfileExecutionID>00001100</cbc:ProfileExecutionID>');
    const events = (await w.allEvents()).filter((e) => e.type === 'credit_note.issued' && e.data.reference === credit!.number);
    expect(events.map((e) => e.data.invoice_reference)).toEqual([invoice!.number]);

    // A bounce of a payment never received, or of a receipt never invoiced: no credit note.
    const unreceived = await l.changePayment(second as string, { status: 'bounced' });
    expect(unreceived.response.status).toBe(200);
    expect(await documentsOf(w, second as string)).toEqual([]);
    const exempt = await l.active({ landlord, home: nextHome() });
    const [plain] = l.paymentIds(exempt);
    await receive(w, plain as string);
    expect((await l.changePayment(plain as string, { status: 'bounced' })).response.status).toBe(200);
    expect(await documentsOf(w, plain as string)).toEqual([]);
  });

  it('numbers 30 simultaneous receipts’ invoices without gap or duplicate; one payment received twice at once: one invoice', async () => {
    const leases = await Promise.all(
      [0, 1, 2].map(async () => l.active({ landlord, tax_category: 'standard', schedule: { payments: 12 }, home: nextHome() })),
    );
    const ids = leases.flatMap((lease) => l.paymentIds(lease)).slice(0, 30);
    expect(ids).toHaveLength(30);
    const answers = await Promise.all(ids.map((id) => l.changePayment(id, { status: 'received' })));
    expect(answers.map((a) => a.response.status)).toEqual(ids.map(() => 200));
    const docs = (await Promise.all(ids.map((id) => documentsOf(w, id)))).map((d) => d);
    expect(docs.map((d) => d.length)).toEqual(ids.map(() => 1));
    const all = await w.api.db
      .selectFrom('tax_documents')
      .select(['sequence', 'number'])
      .where('company_id', '=', w.company.id)
      .where('series', '=', 'INV')
      .orderBy('sequence')
      .execute();
    const sequences = all.map((d) => Number(d.sequence));
    expect(sequences).toEqual(sequences.map((_, i) => i + 1));
    expect(new Set(all.map((d) => d.number)).size).toBe(all.length);

    const [twice] = l.paymentIds(leases[2]!).slice(6);
    const both = await Promise.all([
      l.changePayment(twice as string, { status: 'received' }),
      l.changePayment(twice as string, { status: 'received' }),
    ]);
    expect(both.map((a) => a.response.status)).toEqual([200, 200]);
    expect(await documentsOf(w, twice as string)).toHaveLength(1);
    expect((await l.paymentEvents(twice as string)).filter((t) => t === 'rent_payment.received')).toHaveLength(1);
  });
});

describe('a company that bills rent as principal, or cannot issue', () => {
  let principal: World;
  let unregistered: World;
  let later: World;
  beforeAll(async () => {
    principal = await world({ api: w.api, settings: { ...invoiceSettings, rent_vat_accounted_by: 'company' } });
    unregistered = await world({ api: w.api, settings: { rent_vat_accounted_by: 'company' } });
    later = await world({ api: w.api, settings: { ...invoiceSettings, vat_registered_on: '2099-01-01' } });
  });
  afterAll(async () => {
    for (const other of [principal, unregistered, later]) await other?.close();
  });

  it('bills as principal: no principal, continuous supply only (00001000), a landlord without a TRN is no matter', async () => {
    const lease = await leasesOf(principal).active({ tax_category: 'standard' });
    const [first] = leasesOf(principal).paymentIds(lease);
    await receive(principal, first as string);
    const [invoice] = await documentsOf(principal, first as string);
    expect(invoice?.document.principal ?? null).toBeNull();
    expect(invoice?.owner_id).toEqual(expect.any(String));
    const xml = await xmlOf(principal, invoice!.number);
    expect(xml).toContain('<cbc:ProfileExecutionID>00001000</cbc:ProfileExecutionID>');
    expect(xml).not.toContain('cac:SellerSupplierParty');
  });

  it('issues none when the company is not registered, or before its registration day', async () => {
    for (const at of [unregistered, later]) {
      const landlordThere = await person(at, 'Landlord With TRN', landlordTrn);
      const lease = await leasesOf(at).active({ landlord: landlordThere, tax_category: 'standard' });
      const [first] = leasesOf(at).paymentIds(lease);
      expect((await receive(at, first as string)).status).toBe('received');
      expect(await documentsOf(at, first as string)).toEqual([]);
    }
  });
});

const resources = pintAeResources();
describe.runIf(resources.missing.length === 0)('the official PINT AE artefacts', () => {
  it('accept every document these tests issued (UBL 2.1 schema and Schematron)', async () => {
    expect(xmls.length).toBeGreaterThan(0);
    for (const report of await validatePintAe(xmls)) expect(fatal(report.failed), report.name).toEqual([]);
  }, 120_000);
});
