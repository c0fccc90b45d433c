import Big from 'big.js';
import XMLBuilder from 'fast-xml-builder';
import { uncl5305 } from '../tax';
import { fixedTo, formatAmount } from '../money';
import { priceOf } from './price';
import {
  type Address,
  type Breakdown,
  type DocumentLine,
  EinvoiceRefused,
  exemptionReasons,
  type LegalRegistration,
  type Problem,
  type TaxDocument,
  tinOfTrn,
} from './document';

/**
 * A tax document (lib/einvoice/document.ts) as a PINT AE e-invoice: a UBL 2.1 Invoice or CreditNote under OpenPeppol's
 * PINT AE Billing (or Self-billing) 1.0.4. docs/pint-ae.md says how each element is filled and by which rule. The XML
 * is built by fast-xml-builder (it escapes &, <, >, quotes); every text first goes through `xmlText`, so no input
 * makes it invalid. The output is a pure function of the document: the same document, the same bytes.
 */

/** The customization (IBT-024) and profile (IBT-023) ids of PINT AE billing and self-billing (aligned-ibrp-001-ae, -002-ae). */
export const pintAeIds = {
  billing: { customization: 'urn:peppol:pint:billing-1@ae-1', profile: 'urn:peppol:bis:billing' },
  selfbilling: { customization: 'urn:peppol:pint:selfbilling-1@ae-1', profile: 'urn:peppol:bis:selfbilling' },
} as const;

/** The Peppol participant scheme of the UAE (its identifiers are TINs) and the endpoint of a buyer outside the mandate (BIS 1.5.3). */
export const uaeScheme = '0235';
export const notSubjectEndpoint = '9900000098';

/** The one standard rate PINT AE 1.0.4 lets a standard-rated category carry (ibr-190-ae). */
export const pintAeStandardRate = '5';

const namespaces = {
  Invoice: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  CreditNote: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
};

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressEmptyNode: false,
  format: true,
  indentBy: '  ',
});

type Node = { [name: string]: Value };
type Value = string | Node | Node[] | undefined;

/**
 * Text as XML 1.0 allows it (its `Char` production) and as the document keeps it: the C0 controls but tab, line feed
 * and carriage return, and U+FFFE, U+FFFF, removed; a lone surrogate (half of a pair, which no UTF-8 encoder can write)
 * replaced by U+FFFD; surrounding white space trimmed. Replaced rather than refused: an issued invoice must render,
 * and the same text always renders the same way (docs/pint-ae.md).
 */
export function xmlText(value: string): string {
  return (
    value
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML 1.0 forbids are what is removed
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
      .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
      .trim()
  );
}

/** The document as PINT AE UBL 2.1 XML, or `EinvoiceRefused` for what PINT AE 1.0.4 cannot carry. */
export function pintAeXml(document: TaxDocument): string {
  const problems: Problem[] = [];
  const text = (value: string, path: string): string => {
    const cleaned = xmlText(value);
    if (cleaned === '') problems.push({ path, code: 'text', message: 'A text that is not empty (ibr-079).' });
    return cleaned;
  };
  const optional = (value: string | null | undefined): string | undefined => {
    const cleaned = value === null || value === undefined ? '' : xmlText(value);
    return cleaned === '' ? undefined : cleaned;
  };
  checkBreakdowns(document, problems);

  const root =
    document.typeCode === '380' || document.typeCode === '480' || document.typeCode === '389' ? 'Invoice' : 'CreditNote';
  const ids = pintAeIds[document.selfBilling ? 'selfbilling' : 'billing'];
  const { currency } = document;
  const money = (amount: string) => ({ '#text': formatAmount(amount, currency), '@_currencyID': currency });
  const total = (amount: string) => ({ '#text': amount, '@_currencyID': currency });
  const flags = `0000${document.continuousSupply ? 1 : 0}${document.principal ? 1 : 0}00`;

  // Totals: at most 2 decimals (ibr-091, ibr-123 to ibr-125), each the exact sum rounded half up as ibr-co-10 rounds.
  const lineTotal = fixedTo(document.totals.net, 2);
  const vatTotal = fixedTo(document.totals.vat, 2);
  const withVat = new Big(lineTotal).plus(vatTotal).toString();
  const paidInFull = new Big(document.totals.due).eq(0);
  const prepaid = paidInFull ? withVat : fixedTo(document.totals.paid, 2);
  const payable = new Big(withVat).minus(prepaid).toString();
  const two = (value: string) => fixedTo(value, 2);
  const aed = document.currency === 'AED' ? null : new Big(document.aedRate ?? '0');

  const isInvoice = root === 'Invoice';
  const body: Node = {
    'cbc:CustomizationID': ids.customization,
    'cbc:ProfileID': ids.profile,
    'cbc:ProfileExecutionID': flags,
    'cbc:ID': text(document.number, 'number'),
    'cbc:UUID': text(document.uuid, 'uuid'),
    'cbc:IssueDate': document.issueDate,
    'cbc:DueDate': isInvoice && document.dueDate ? document.dueDate : undefined,
    [isInvoice ? 'cbc:InvoiceTypeCode' : 'cbc:CreditNoteTypeCode']: document.typeCode,
    'cbc:Note': optional(document.note),
    'cbc:DocumentCurrencyCode': currency,
    'cbc:TaxCurrencyCode': aed ? 'AED' : undefined,
    'cac:InvoicePeriod': document.period
      ? {
          'cbc:StartDate': document.period.start,
          'cbc:EndDate': document.period.end,
          'cbc:Description': document.period.frequency ?? undefined,
        }
      : undefined,
    'cac:DiscrepancyResponse': !isInvoice && document.credit ? { 'cbc:ResponseCode': document.credit.reason } : undefined,
    'cac:BillingReference': document.credit?.invoice
      ? {
          'cac:InvoiceDocumentReference': {
            'cbc:ID': text(document.credit.invoice.number, 'credit.invoice.number'),
            'cbc:IssueDate': document.credit.invoice.issueDate,
          },
        }
      : undefined,
    'cac:ContractDocumentReference': optional(document.contractReference)
      ? { 'cbc:ID': optional(document.contractReference) }
      : undefined,
    'cac:AdditionalDocumentReference': aed
      ? {
          'cbc:ID': 'aedtotal-incl-vat',
          'cbc:DocumentTypeCode': 'aedtotal-incl-vat',
          'cbc:DocumentDescription': `AED ${two(aed.times(withVat).toString())}`,
        }
      : undefined,
    'cac:AccountingSupplierParty': {
      'cac:Party': {
        'cbc:EndpointID': { '#text': document.seller.tin ?? tinOfTrn(document.seller.trn), '@_schemeID': uaeScheme },
        'cac:PartyName': { 'cbc:Name': text(document.seller.name, 'seller.name') },
        'cac:PostalAddress': address(document.seller.address, 'seller.address', text, optional),
        'cac:PartyTaxScheme': taxScheme(document.seller.trn),
        'cac:PartyLegalEntity': legalEntity(
          text(document.seller.legalName, 'seller.legal_name'),
          document.seller.registration,
          optional,
        ),
      },
    },
    'cac:AccountingCustomerParty': { 'cac:Party': buyerParty(document, text, optional) },
    'cac:SellerSupplierParty': document.principal
      ? {
          'cac:Party': {
            'cac:PartyIdentification': { 'cbc:ID': document.principal.trn },
            'cac:PartyName': { 'cbc:Name': text(document.principal.name, 'principal.name') },
          },
        }
      : undefined,
    'cac:PaymentMeans': document.payment ? paymentMeans(document.payment, optional) : undefined,
    'cac:TaxExchangeRate': aed
      ? { 'cbc:SourceCurrencyCode': currency, 'cbc:TargetCurrencyCode': 'AED', 'cbc:CalculationRate': aed.toString() }
      : undefined,
    'cac:TaxTotal': [
      { 'cbc:TaxAmount': total(vatTotal), 'cac:TaxSubtotal': document.breakdowns.map((b) => subtotal(b, money)) },
      ...(aed ? [{ 'cbc:TaxAmount': { '#text': two(aed.times(document.totals.vat).toString()), '@_currencyID': 'AED' } }] : []),
    ],
    'cac:LegalMonetaryTotal': {
      'cbc:LineExtensionAmount': total(lineTotal),
      'cbc:TaxExclusiveAmount': total(lineTotal),
      'cbc:TaxInclusiveAmount': total(two(withVat)),
      'cbc:PrepaidAmount': new Big(prepaid).gt(0) ? total(two(prepaid)) : undefined,
      'cbc:PayableAmount': total(two(payable)),
    },
    [isInvoice ? 'cac:InvoiceLine' : 'cac:CreditNoteLine']: document.lines.map((line, i) =>
      documentLine(line, i, isInvoice, money, currency, text, (path, code, message) => problems.push({ path, code, message })),
    ),
  };
  if (problems.length > 0) throw new EinvoiceRefused(problems);
  return builder.build({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    [root]: { '@_xmlns': namespaces[root], '@_xmlns:cac': namespaces.cac, '@_xmlns:cbc': namespaces.cbc, ...prune(body) },
  }) as string;
}

type Text = (value: string, path: string) => string;
type Optional = (value: string | null | undefined) => string | undefined;

/** A standard-rated breakdown at 5 % only (ibr-190-ae), its VAT (the lines' added up) within 0.02 of taxable × rate (aligned-ibrp-s-09). */
function checkBreakdowns(document: TaxDocument, problems: Problem[]): void {
  for (const b of document.breakdowns) {
    if (b.category !== 'standard') continue;
    if (!new Big(b.rate ?? '0').eq(pintAeStandardRate)) {
      problems.push({
        path: 'lines',
        code: 'rate',
        message: `PINT AE 1.0.4 takes only a ${pintAeStandardRate} % standard rate (ibr-190-ae).`,
      });
      continue;
    }
    const expected = fixedTo(new Big(b.taxable).times(b.rate ?? '0').div(100), 2);
    if (new Big(b.vat).minus(expected).abs().gt('0.02')) {
      problems.push({
        path: 'lines',
        code: 'vat_drift',
        message: `The lines' VAT at ${b.rate} % (${b.vat}, each line rounded) is more than 0.02 from the breakdown's ${expected} (aligned-ibrp-s-09): split the lines over more documents.`,
      });
    }
  }
}

function address(a: Address, path: string, text: Text, optional: Optional): Node {
  return {
    'cbc:StreetName': text(a.line1, `${path}.line1`),
    'cbc:AdditionalStreetName': optional(a.line2),
    'cbc:CityName': text(a.city, `${path}.city`),
    'cbc:CountrySubentity': text(a.subdivision, `${path}.subdivision`),
    'cac:Country': { 'cbc:IdentificationCode': a.country },
  };
}

const taxScheme = (trn: string): Node => ({ 'cbc:CompanyID': trn, 'cac:TaxScheme': { 'cbc:ID': 'VAT' } });

function legalEntity(name: string, registration: LegalRegistration | null | undefined, optional: Optional): Node {
  const id = registration ? optional(registration.id) : undefined;
  return {
    'cbc:RegistrationName': name,
    'cbc:CompanyID':
      registration && id
        ? { '#text': id, '@_schemeAgencyID': registration.type, '@_schemeAgencyName': optional(registration.authority) }
        : undefined,
  };
}

/** The buyer: its TIN as endpoint, or the endpoint of a buyer outside the mandate with our reference to it (ibr-135-ae). */
function buyerParty(document: TaxDocument, text: Text, optional: Optional): Node {
  const { buyer } = document;
  const name = text(buyer.name, 'buyer.name');
  return {
    'cbc:EndpointID': { '#text': buyer.tin ?? notSubjectEndpoint, '@_schemeID': uaeScheme },
    'cac:PartyIdentification': optional(buyer.reference) ? { 'cbc:ID': optional(buyer.reference) } : undefined,
    'cac:PartyName': { 'cbc:Name': name },
    'cac:PostalAddress': address(buyer.address, 'buyer.address', text, optional),
    'cac:PartyTaxScheme': buyer.trn ? taxScheme(buyer.trn) : undefined,
    'cac:PartyLegalEntity': legalEntity(name, buyer.registration, optional),
  };
}

/** The names UNCL4461 gives the payment means we write. */
const paymentMeansNames = {
  '1': 'Instrument not defined',
  '10': 'In cash',
  '20': 'Cheque',
  '30': 'Credit transfer',
  '48': 'Bank card',
  '49': 'Direct debit',
  '97': 'Clearing between partners',
} as const;

function paymentMeans(payment: NonNullable<TaxDocument['payment']>, optional: Optional): Node {
  return {
    'cbc:PaymentMeansCode': { '#text': payment.code, '@_name': paymentMeansNames[payment.code] },
    'cac:PayeeFinancialAccount':
      payment.code === '30' ? { 'cbc:ID': payment.account.iban, 'cbc:Name': optional(payment.account.name) } : undefined,
  };
}

function taxCategory(category: DocumentLine['category'], rate: string | null, reason: string | null | undefined): Node {
  const code = reason as keyof typeof exemptionReasons | null | undefined;
  return {
    'cbc:ID': uncl5305[category],
    'cbc:Percent': rate ?? undefined,
    'cbc:TaxExemptionReasonCode': category === 'exempt' && code ? code : undefined,
    'cbc:TaxExemptionReason': category === 'exempt' && code ? exemptionReasons[code] : undefined,
    'cac:TaxScheme': { 'cbc:ID': 'VAT' },
  };
}

function subtotal(b: Breakdown, money: (amount: string) => Node): Node {
  return {
    'cbc:TaxableAmount': money(b.taxable),
    'cbc:TaxAmount': money(b.vat),
    'cac:TaxCategory': taxCategory(b.category, b.rate, b.exemptionReason),
  };
}

/**
 * A line: its quantity, net, item (description, name, service code, tax category), price and amounts with VAT
 * (BTAE-10, BTAE-08). The price and its base quantity are `priceOf`'s (lib/einvoice/price.ts, ibr-147-ae).
 */
function documentLine(
  line: DocumentLine,
  i: number,
  isInvoice: boolean,
  money: (amount: string) => Node,
  currency: string,
  text: Text,
  refuse: (path: string, code: string, message: string) => void,
): Node {
  const at = `lines.${i}`;
  const quantity = new Big(line.quantity);
  const priced = priceOf(line.net, line.quantity, currency);
  if (!priced) refuse(`${at}.quantity`, 'price', 'No price of this net for this quantity meets ibr-147-ae.');
  const { price, base } = priced ?? { price: line.net, base: line.quantity };
  const exact = (amount: string) => ({ '#text': amount, '@_currencyID': currency });
  const quantityNode = { '#text': quantity.toString(), '@_unitCode': line.unitCode };
  const service = line.serviceCode ?? undefined;
  return {
    'cbc:ID': String(i + 1),
    [isInvoice ? 'cbc:InvoicedQuantity' : 'cbc:CreditedQuantity']: quantityNode,
    'cbc:LineExtensionAmount': money(line.net),
    'cac:Item': {
      'cbc:Description': text(line.description, `${at}.description`),
      'cbc:Name': text(line.name, `${at}.name`),
      'cac:AdditionalItemIdentification': service ? { 'cbc:ID': { '#text': service, '@_schemeID': 'SAC' } } : undefined,
      'cac:CommodityClassification': service ? { 'cbc:CommodityCode': 'S' } : undefined,
      'cac:ClassifiedTaxCategory': taxCategory(line.category, line.rate, line.exemptionReason),
    },
    'cac:Price': {
      'cbc:PriceAmount': exact(price),
      'cbc:BaseQuantity': { '#text': base, '@_unitCode': line.unitCode },
      'cac:AllowanceCharge': {
        'cbc:ChargeIndicator': 'false',
        'cbc:Amount': money('0'),
        'cbc:BaseAmount': exact(price),
      },
    },
    'cac:ItemPriceExtension': {
      'cbc:Amount': money(line.gross),
      'cac:TaxTotal': line.category === 'exempt' ? undefined : { 'cbc:TaxAmount': money(line.vat) },
    },
  };
}

/** The node without its undefined children (an element left out, never an empty one: ibr-079). */
function prune(node: Node): Node {
  const out: Node = {};
  for (const [key, value] of Object.entries(node)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) out[key] = value.map(prune);
    else out[key] = typeof value === 'string' ? value : prune(value);
  }
  return out;
}
