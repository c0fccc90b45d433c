/**
 * The PINT AE renderer (lib/einvoice/, issue 35): the property cases as tax documents, rendered and judged by the rules
 * written from the specification (test/support/pint-ae.ts, always) and by the official UBL 2.1 schema and PINT AE
 * Schematron when they are laid out under PINT_AE_RESOURCES (docs/pint-ae.md); compared with the hand-written fixtures
 * of test/fixtures/pint-ae/ where they describe the same case; refused where no e-invoice could carry them; and, over
 * generated amounts and texts, always well-formed and always passing the written rules.
 *
 * No database: runs in the PGlite pass only, like test/platform/pint-ae.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { XMLParser } from 'fast-xml-parser';
import { beforeAll, describe, expect, it } from 'vitest';
import { type DocumentInput, EinvoiceRefused, type LineInput, taxDocument } from '../../lib/einvoice/document';
import { notSubjectEndpoint, pintAeXml, xmlText } from '../../lib/einvoice/pint-ae';
import { priceOf } from '../../lib/einvoice/price';
import * as cases from '../support/einvoice-cases';
import { checkPintAeRules, fatal, type PintAeReport, pintAeResources, validatePintAe } from '../support/pint-ae';

const onPostgresPass = Boolean(process.env.DATABASE_URL);
const render = (input: DocumentInput) => pintAeXml(taxDocument(input));

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, removeNSPrefix: true });
type Parsed = Record<string, unknown>;
const parse = (xml: string) => parser.parse(xml) as Parsed;
/** One value by a path of element names (the first of repeated ones unless an index is given). */
function at(node: unknown, ...path: (string | number)[]): unknown {
  let current = node;
  for (const step of path) {
    if (Array.isArray(current) && typeof step === 'string') current = current[0];
    current = (current as Record<string | number, unknown> | undefined)?.[step];
  }
  return current;
}
const text = (node: unknown) => (typeof node === 'object' && node !== null ? (node as Parsed)['#text'] : node);

/** Every leaf of a document as `path = value` (attributes included), to compare two documents structurally. */
function leaves(node: unknown, path = ''): string[] {
  if (typeof node !== 'object' || node === null) return [`${path} = ${String(node)}`];
  if (Array.isArray(node)) return node.flatMap((child, i) => leaves(child, `${path}[${i}]`));
  return Object.entries(node as Parsed).flatMap(([key, value]) =>
    key === '?xml' || key.startsWith('@xmlns') ? [] : leaves(value, path ? `${path}/${key}` : key),
  );
}

const named = {
  'commercial rent billed as disclosed agent, a continuous supply': cases.commercialRent,
  "a residential lease's exempt rent and a standard-rated recharge": cases.residentialLease,
  'a holiday-home stay to a guest outside the mandate, with the Tourism Dirham': cases.holidayStay,
  'a credit note for a bounced rent cheque': cases.bouncedCheque,
  'commercial rent in KWD (3 digits)': cases.kwdRent,
  'KWD nets on a tie for quantities they do not divide': cases.kwdTies,
  "the fixture's credit note (parking cancelled)": cases.parkingCancelled,
  "a contractor's job, self-billed": cases.selfBilledJob,
};
const rendered = Object.entries(named).map(([name, input]) => ({ name, xml: render(input) }));

describe.skipIf(onPostgresPass)('PINT AE e-invoices of the property cases', () => {
  it.each(rendered.map((r) => [r.name, r.xml] as const))('%s meets every rule written from the specification', (_, xml) => {
    expect(checkPintAeRules(xml)).toEqual([]);
  });

  it('commercial rent: 380, continuous supply and disclosed agent (00001100), the landlord as principal', () => {
    const doc = at(parse(render(cases.commercialRent)), 'Invoice');
    expect(at(doc, 'InvoiceTypeCode')).toBe('380');
    expect(at(doc, 'ProfileExecutionID')).toBe('00001100');
    expect(at(doc, 'SellerSupplierParty', 'Party', 'PartyIdentification', 'ID')).toBe(cases.landlord.trn);
    expect(at(doc, 'InvoicePeriod')).toEqual({ StartDate: '2026-12-01', EndDate: '2026-12-31', Description: 'MTH' });
    expect(text(at(doc, 'LegalMonetaryTotal', 'PayableAmount'))).toBe('13492.50');
  });

  it('residential lease: exempt rent beside a standard-rated line is still a tax invoice (ibr-151-ae), one breakdown per category', () => {
    const doc = at(parse(render(cases.residentialLease)), 'Invoice');
    expect(at(doc, 'InvoiceTypeCode')).toBe('380');
    const subtotals = at(doc, 'TaxTotal', 'TaxSubtotal') as Parsed[];
    expect(subtotals.map((s) => [at(s, 'TaxCategory', 'ID'), at(s, 'TaxCategory', 'Percent'), text(at(s, 'TaxAmount'))])).toEqual(
      [
        ['S', '5', '25.00'],
        ['E', undefined, '0.00'],
      ],
    );
    expect(at(subtotals[1], 'TaxCategory', 'TaxExemptionReasonCode')).toBe('DL8.46.2');
  });

  it('exempt rent alone is no tax invoice: 480, and it names the buyer’s legal registration (ibr-122-ae, ibr-136-ae)', () => {
    const rentOnly = { ...cases.residentialLease, lines: cases.residentialLease.lines.slice(0, 1) };
    const xml = render(rentOnly);
    expect(at(parse(xml), 'Invoice', 'InvoiceTypeCode')).toBe('480');
    expect(checkPintAeRules(xml)).toEqual([]);
    expect(() => taxDocument({ ...rentOnly, buyer: { ...rentOnly.buyer, registration: null } })).toThrow(/buyer.registration/);
  });

  it('holiday-home stay: the guest at the predefined endpoint with our reference, the Tourism Dirham out of scope, paid', () => {
    const doc = at(parse(render(cases.holidayStay)), 'Invoice');
    const buyer = at(doc, 'AccountingCustomerParty', 'Party');
    expect(at(buyer, 'EndpointID')).toEqual({ '#text': notSubjectEndpoint, '@schemeID': '0235' });
    expect(at(buyer, 'PartyIdentification', 'ID')).toBe(cases.guest.reference);
    expect(at(buyer, 'PartyTaxScheme')).toBeUndefined();
    expect(at(doc, 'ProfileExecutionID')).toBe('00000000');
    const dirham = (at(doc, 'InvoiceLine') as Parsed[])[1];
    expect(at(dirham, 'Item', 'ClassifiedTaxCategory')).toEqual({ ID: 'O', TaxScheme: { ID: 'VAT' } });
    expect(text(at(dirham, 'ItemPriceExtension', 'TaxTotal', 'TaxAmount'))).toBe('0.00');
    // The stay's price includes VAT: 2,625.00 is 2,500.00 and 125.00 by vatOfLine's rule.
    const stay = (at(doc, 'InvoiceLine') as Parsed[])[0];
    expect([text(at(stay, 'LineExtensionAmount')), text(at(stay, 'ItemPriceExtension', 'TaxTotal', 'TaxAmount'))]).toEqual([
      '2500.00',
      '125.00',
    ]);
    expect(text(at(doc, 'LegalMonetaryTotal', 'PrepaidAmount'))).toBe('2670.00');
    expect(text(at(doc, 'LegalMonetaryTotal', 'PayableAmount'))).toBe('0.00');
    expect(at(doc, 'DueDate')).toBeUndefined();
  });

  it('bounced cheque: a 381 with its reason and the invoice it credits, no due date', () => {
    const doc = at(parse(render(cases.bouncedCheque)), 'CreditNote');
    expect(at(doc, 'CreditNoteTypeCode')).toBe('381');
    expect(at(doc, 'DiscrepancyResponse', 'ResponseCode')).toBe('DL8.61.1.C');
    expect(at(doc, 'BillingReference', 'InvoiceDocumentReference')).toEqual({ ID: 'INV-2026-0042', IssueDate: '2026-12-01' });
    expect(at(doc, 'DueDate')).toBeUndefined();
    expect(at(doc, 'CreditNoteLine', 'CreditedQuantity')).toEqual({ '#text': '1', '@unitCode': 'MON' });
  });

  it('KWD: lines and breakdowns in fils (3 digits), totals in 2 decimals (ibr-091), the rate to AED and the VAT in AED', () => {
    const doc = at(parse(render(cases.kwdRent)), 'Invoice');
    const lines = at(doc, 'InvoiceLine') as Parsed[];
    expect(lines.map((l) => text(at(l, 'ItemPriceExtension', 'TaxTotal', 'TaxAmount')))).toEqual(['52.256', '1.464']);
    expect(text(at(doc, 'TaxTotal', 'TaxSubtotal', 'TaxAmount'))).toBe('53.720');
    const totals = at(doc, 'TaxTotal') as Parsed[];
    expect(totals.map((t) => at(t, 'TaxAmount'))).toEqual([
      { '#text': '53.72', '@currencyID': 'KWD' },
      { '#text': '642.08', '@currencyID': 'AED' },
    ]);
    expect(at(doc, 'TaxExchangeRate')).toEqual({
      SourceCurrencyCode: 'KWD',
      TargetCurrencyCode: 'AED',
      CalculationRate: '11.952381',
    });
    expect(at(doc, 'TaxCurrencyCode')).toBe('AED');
    expect(text(at(doc, 'LegalMonetaryTotal', 'PayableAmount'))).toBe('1128.12');
    expect(at(doc, 'AdditionalDocumentReference', 'DocumentDescription')).toBe('AED 13483.72');
  });

  it('self-billing: 389 under the self-billing customization and profile', () => {
    const doc = at(parse(render(cases.selfBilledJob)), 'Invoice');
    expect([at(doc, 'CustomizationID'), at(doc, 'ProfileID'), at(doc, 'InvoiceTypeCode')]).toEqual([
      'urn:peppol:pint:selfbilling-1@ae-1',
      'urn:peppol:bis:selfbilling',
      '389',
    ]);
  });

  it('the same document renders the same bytes', () => {
    expect(render(cases.commercialRent)).toBe(render(structuredClone(cases.commercialRent)));
  });
});

/**
 * What the renderer writes beyond the hand-written fixtures (each written from the specification, not from our
 * output): the buyer's and the landlord's names (PartyName), which the fixtures leave out; and the fixture's free text
 * of the exemption reason, where the renderer writes the code list's name.
 */
const ours = /(AccountingCustomerParty|SellerSupplierParty)\/Party\/PartyName\/Name = /;
const theirs = /\/TaxExemptionReason = /;

describe.skipIf(onPostgresPass)('compared with the hand-written fixtures of the same cases', () => {
  const fixture = (file: string) => readFileSync(join(import.meta.dirname, '../fixtures/pint-ae', file), 'utf8');
  it.each([
    ['commercial-rent-agent-invoice.xml', cases.commercialRent],
    ['residential-lease-agent-invoice.xml', cases.residentialLease],
    ['commercial-rent-credit-note.xml', cases.parkingCancelled],
  ] as const)('%s', (file, input) => {
    const expected = leaves(parse(fixture(file)));
    const got = leaves(parse(render(input)));
    expect(got.filter((leaf) => !expected.includes(leaf) && !ours.test(leaf) && !theirs.test(leaf))).toEqual([]);
    expect(expected.filter((leaf) => !got.includes(leaf) && !theirs.test(leaf))).toEqual([]);
  });
});

/** A copy of a case with one thing changed, and the field its refusal must name. */
const refusals: [string, () => unknown, string][] = [
  [
    'a seller TRN of the wrong shape (ibr-132-ae)',
    () => taxDocument({ ...cases.commercialRent, seller: { ...cases.manager, trn: '100234567800001' } }),
    'seller.trn',
  ],
  [
    'the agent named as its own principal (ibr-176-ae)',
    () => taxDocument({ ...cases.commercialRent, principal: { name: 'Us', trn: cases.manager.trn } }),
    'principal.trn',
  ],
  [
    'an exempt line without its reason (ibr-167-ae)',
    () => taxDocument(withLine(cases.residentialLease, 0, { exemptionReason: null })),
    'lines.0.exemption_reason',
  ],
  [
    'a standard-rated line at 0 % (aligned-ibrp-s-05)',
    () => taxDocument(withLine(cases.commercialRent, 0, { rate: '0' })),
    'lines.0.rate',
  ],
  [
    'a zero-rated line with a rate (aligned-ibrp-z-05)',
    () => taxDocument(withLine(cases.commercialRent, 0, { category: 'zero_rated', rate: '5' })),
    'lines.0.rate',
  ],
  [
    'more digits than the currency has',
    () => taxDocument(withLine(cases.commercialRent, 0, { amount: '10.005' })),
    'lines.0.amount',
  ],
  [
    'a negative line (a credit is a credit note)',
    () => taxDocument(withLine(cases.commercialRent, 0, { amount: '-10.00' })),
    'lines.0.amount',
  ],
  ['a quantity of 0', () => taxDocument(withLine(cases.commercialRent, 0, { quantity: '0' })), 'lines.0.quantity'],
  ['KWD without its rate to AED (ibr-159-ae)', () => taxDocument({ ...cases.kwdRent, aedRate: null }), 'aed_rate'],
  ['a rate to AED with 7 decimals (ibr-002-ae)', () => taxDocument({ ...cases.kwdRent, aedRate: '11.9523811' }), 'aed_rate'],
  [
    'a credit note without the invoice it credits (ibr-055-ae)',
    () => taxDocument({ ...cases.bouncedCheque, credit: { reason: 'DL8.61.1.C', invoice: null } }),
    'credit.invoice',
  ],
  ['a credit note without its reason (ibr-158-ae)', () => taxDocument({ ...cases.bouncedCheque, credit: null }), 'credit'],
  [
    'an invoice with something due and no due date (ibr-127-ae)',
    () => taxDocument({ ...cases.commercialRent, dueDate: null }),
    'due_date',
  ],
  ['an invoice without its payment means (ibr-191-ae)', () => taxDocument({ ...cases.commercialRent, payment: null }), 'payment'],
  ['more paid than due', () => taxDocument({ ...cases.holidayStay, paid: '2670.01' }), 'paid'],
  [
    'a guest with neither TRN, TIN nor our reference (ibr-135-ae)',
    () => taxDocument({ ...cases.holidayStay, buyer: { ...cases.guest, reference: null } }),
    'buyer.reference',
  ],
  [
    'a UAE address without its emirate (ibr-128-ae)',
    () =>
      taxDocument({
        ...cases.commercialRent,
        buyer: { ...cases.falcon, address: { ...cases.falcon.address, subdivision: 'Dubai' } },
      }),
    'buyer.address.subdivision',
  ],
  [
    'a trade licence without its authority (ibr-172-ae)',
    () => taxDocument({ ...cases.commercialRent, seller: { ...cases.manager, registration: { id: 'TL-1', type: 'TL' } } }),
    'seller.registration.authority',
  ],
  [
    'two exemption reasons in one document (aligned-ibrp-e-08)',
    () =>
      taxDocument({
        ...cases.residentialLease,
        lines: [
          ...cases.residentialLease.lines,
          { ...(cases.residentialLease.lines[0] as LineInput), exemptionReason: 'DL8.46.3' },
        ],
      }),
    'lines',
  ],
  [
    'a buyer TRN of the wrong shape (ibr-132-ae)',
    () => taxDocument({ ...cases.commercialRent, buyer: { ...cases.falcon, trn: '20055566670003' } }),
    'buyer.trn',
  ],
  [
    'a seller TIN of the wrong shape (ibr-148-ae)',
    () => taxDocument({ ...cases.commercialRent, seller: { ...cases.manager, tin: '2002345678' } }),
    'seller.tin',
  ],
  [
    'a buyer TIN of the wrong shape (ibr-148-ae)',
    () => taxDocument({ ...cases.commercialRent, buyer: { ...cases.falcon, tin: '100555666' } }),
    'buyer.tin',
  ],
  [
    'a period that ends before it starts (ibr-029)',
    () => taxDocument({ ...cases.commercialRent, period: { start: '2026-12-31', end: '2026-12-01' } }),
    'period.end',
  ],
  [
    'an issue date that is not a day (ibr-073)',
    () => taxDocument({ ...cases.commercialRent, issueDate: '2026-13-01' }),
    'issue_date',
  ],
  ['no lines (ibr-016)', () => taxDocument({ ...cases.commercialRent, lines: [] }), 'lines'],
  [
    'a volume discount referencing an invoice (ibr-055-ae)',
    () =>
      taxDocument({ ...cases.bouncedCheque, credit: { reason: 'VD', invoice: { number: 'INV-1', issueDate: '2026-12-01' } } }),
    'credit.invoice',
  ],
  [
    'a credit transfer without its account (ibr-192-ae)',
    () => taxDocument({ ...cases.commercialRent, payment: { code: '30', account: { iban: '' } } }),
    'payment.account',
  ],
  [
    'a passport without its country (ibr-010-ae)',
    () => taxDocument({ ...cases.holidayStay, buyer: { ...cases.guest, registration: { id: 'P1234567', type: 'PAS' } } }),
    'buyer.registration.authority',
  ],
  ['a standard rate other than 5 % (ibr-190-ae)', () => render(withLine(cases.commercialRent, 0, { rate: '7.5' })), 'lines'],
  [
    'a buyer name of control characters only (ibr-079)',
    () => render({ ...cases.holidayStay, buyer: { ...cases.guest, name: '\u0001\u0002 ' } }),
    'buyer.name',
  ],
  [
    'the lines’ VAT, rounded each, more than 0.02 from the breakdown’s (aligned-ibrp-s-09)',
    () =>
      render({
        ...cases.commercialRent,
        lines: Array.from({ length: 6 }, () => ({ ...(cases.commercialRent.lines[1] as LineInput), amount: '0.10' })),
      }),
    'lines',
  ],
];

function withLine(input: DocumentInput, index: number, change: Partial<LineInput>): DocumentInput {
  return { ...input, lines: input.lines.map((line, i) => (i === index ? { ...line, ...change } : line)) };
}

describe.skipIf(onPostgresPass)('what no e-invoice could carry is refused at its field', () => {
  it.each(refusals)('%s', (_, make, path) => {
    let error: unknown;
    try {
      make();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(EinvoiceRefused);
    expect((error as EinvoiceRefused).problems.map((p) => p.path)).toContain(path);
  });
});

/** ibr-147-ae as the published Schematron computes it: both sides doubles, rounded to hundredths (half up). */
const meets147 = (net: string, quantity: string, price: string, base: string) =>
  Math.round(Number(net) * 100) === Math.round(Number(quantity) * (Number(price) / Number(base)) * 100);

describe.skipIf(onPostgresPass)('prices (ibr-147-ae)', () => {
  it('the unit price when the net divides, else the net per the whole quantity, each exact', () => {
    expect(priceOf('1500.00', '3', 'AED')).toEqual({ price: '500.00', base: '1' });
    expect(priceOf('2500.00', '3', 'AED')).toEqual({ price: '2500.00', base: '3' });
    expect(priceOf('12.500', '2', 'KWD')).toEqual({ price: '6.250', base: '1' });
  });

  it('in fils, a net on a tie the whole quantity would round the other way is priced so the rule’s arithmetic agrees', () => {
    expect(meets147('0.955', '3', '0.955', '3')).toBe(false);
    const priced = priceOf('0.955', '3', 'KWD');
    expect(priced).not.toBeNull();
    expect(meets147('0.955', '3', priced?.price ?? '', priced?.base ?? '')).toBe(true);
  });

  it('finds a price for every net of 0.001 to 6.000 KWD and every quantity of 1 to 31', () => {
    const missing: string[] = [];
    for (let fils = 1; fils <= 6000; fils += 1) {
      const net = `${Math.floor(fils / 1000)}.${String(fils % 1000).padStart(3, '0')}`;
      for (let quantity = 1; quantity <= 31; quantity += 1) {
        const priced = priceOf(net, String(quantity), 'KWD');
        if (!priced || !meets147(net, String(quantity), priced.price, priced.base)) missing.push(`${net} × ${quantity}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe.skipIf(onPostgresPass)('texts', () => {
  it('drops what XML 1.0 forbids, replaces a lone surrogate with U+FFFD, keeps Arabic, emoji and markup as text', () => {
    expect(xmlText(' a\u0000b\u0008c\u000Bd\uFFFEe ')).toBe('abcde');
    expect(xmlText('x\uD800y\uDC00z')).toBe('x\uFFFDy\uFFFDz');
    expect(xmlText('شقة 😀 <b>&amp;</b>\tend')).toBe('شقة 😀 <b>&amp;</b>\tend');
    const xml = render({ ...cases.holidayStay, buyer: { ...cases.guest, name: 'A<b>&"\'\u0007\uD83D' } });
    expect(checkPintAeRules(xml)).toEqual([]);
    expect(at(parse(xml), 'Invoice', 'AccountingCustomerParty', 'Party', 'PartyName', 'Name')).toBe('A<b>&"\'\uFFFD');
  });
});

/** Any UTF-16 code units, control characters, surrogate halves and XML's markup characters more often than by chance. */
const anyText = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0, max: 0xffff }),
      fc.integer({ min: 0, max: 0x1f }),
      fc.integer({ min: 0xd800, max: 0xdfff }),
      fc.constantFrom(...'<>&"\'\uFFFE\uFFFF'.split('').map((c) => c.charCodeAt(0))),
    ),
    { minLength: 1, maxLength: 12 },
  )
  .map((units) => String.fromCharCode(...units));

/** Characters XML 1.0 does not allow (outside its `Char` production), a lone surrogate among them. */
const notXmlChar =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML 1.0 forbids are what is looked for
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const currencies = ['AED', 'KWD', 'JPY'] as const;
const digitsOf = { AED: 2, KWD: 3, JPY: 0 } as const;

const lineOf = (currency: (typeof currencies)[number]) =>
  fc
    .record({
      minor: fc.integer({ min: 0, max: 99_999_999 }),
      quantity: fc.integer({ min: 1, max: 31 }),
      category: fc.constantFrom('standard', 'standard', 'zero_rated', 'exempt', 'out_of_scope'),
      basis: fc.constantFrom('exclusive', 'inclusive'),
      description: anyText,
    })
    .map(
      ({ minor, quantity, category, basis, description }): LineInput => ({
        description: `${description} rent`,
        name: 'Line',
        quantity: String(quantity),
        unitCode: 'DAY',
        amount:
          digitsOf[currency] === 0
            ? String(minor)
            : `${Math.floor(minor / 10 ** digitsOf[currency])}.${String(minor % 10 ** digitsOf[currency]).padStart(digitsOf[currency], '0')}`,
        basis: basis as LineInput['basis'],
        category: category as LineInput['category'],
        rate: category === 'standard' ? '5' : category === 'zero_rated' ? '0' : null,
        exemptionReason: category === 'exempt' ? 'DL8.46.2' : null,
        serviceCode: '997211',
      }),
    );

const generated = fc.constantFrom(...currencies).chain((currency) =>
  fc.record({
    currency: fc.constant(currency),
    lines: fc.array(lineOf(currency), { minLength: 1, maxLength: 3 }),
    buyerName: anyText,
    kind: fc.constantFrom('invoice', 'credit_note'),
  }),
);

function documentOf(g: { currency: string; lines: LineInput[]; buyerName: string; kind: string }): DocumentInput {
  const base = g.kind === 'invoice' ? cases.commercialRent : cases.bouncedCheque;
  return {
    ...base,
    currency: g.currency,
    aedRate: g.currency === 'AED' ? null : '11.952381',
    lines: g.lines,
    buyer: { ...cases.falcon, name: `${g.buyerName} L.L.C.` },
  };
}

describe.skipIf(onPostgresPass)('generated documents', () => {
  it('are well-formed and meet every written rule, or are refused for a reason the renderer names', () => {
    fc.assert(
      fc.property(generated, (g) => {
        let xml: string;
        try {
          xml = render(documentOf(g));
        } catch (error) {
          // A document of only exempt and out-of-scope lines names the buyer's registration; the cases' buyer has one.
          expect(error).toBeInstanceOf(EinvoiceRefused);
          expect((error as EinvoiceRefused).problems.map((p) => p.code)).toEqual(['vat_drift']);
          return;
        }
        expect(xml).not.toMatch(notXmlChar);
        expect(checkPintAeRules(xml)).toEqual([]);
      }),
      { numRuns: 60, seed: 35 },
    );
  });
});

const resources = pintAeResources();
const available = resources.missing.length === 0;

describe.skipIf(onPostgresPass || !available)(`the official UBL 2.1 schema and PINT AE Schematron (${resources.dir})`, () => {
  const sample = fc.sample(generated, { numRuns: 40, seed: 3535 }).flatMap((g, i) => {
    try {
      return [{ name: `generated ${i}`, xml: render(documentOf(g)) }];
    } catch {
      return [];
    }
  });
  const reports = new Map<string, PintAeReport>();

  beforeAll(async () => {
    // One call: each rule set compiled once for every document.
    for (const report of await validatePintAe([...rendered, ...sample])) reports.set(report.name, report);
  }, 120_000);

  it.each(rendered.map((r) => r.name))('%s passes with no fatal assert', (name) => {
    expect(
      fatal(reports.get(name)?.failed ?? [{ rule: 'missing', flag: 'fatal', text: '', location: '', source: 'xml' }]),
    ).toEqual([]);
  });

  it('generated documents pass with no fatal assert', () => {
    expect(sample.length).toBeGreaterThan(30);
    const refused = sample
      .map((s) => ({ name: s.name, fatal: fatal(reports.get(s.name)?.failed ?? []) }))
      .filter((r) => r.fatal.length > 0);
    expect(refused).toEqual([]);
  });
});
