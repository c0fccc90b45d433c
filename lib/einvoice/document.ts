import Big from 'big.js';
import type { TaxCategory } from '../../schema/common/tax';
import { fitsDigits, formatAmount, minorDigits, sumAmounts, vatOfLine } from '../money';

/**
 * One tax invoice or credit note as the API holds it (issue 35), before any format: its parties, its lines with their
 * VAT (`vatOfLine`, the one rounding rule, per line), its VAT breakdown and its totals, every amount a decimal string
 * with the currency's digits (lib/money.ts). `taxDocument` builds it from what the issuing code knows and refuses what
 * no e-invoice could carry (`EinvoiceRefused`, each problem at its field). lib/einvoice/pint-ae.ts renders it as PINT AE
 * UBL; docs/pint-ae.md says how each field is filled.
 */

/** The UAE's emirates as PINT AE codes them (ibr-128-ae): Abu Dhabi, Dubai, Sharjah, Umm Al Quwain, Fujairah, Ajman, Ras Al Khaimah. */
export const emirates = ['AUH', 'DXB', 'SHJ', 'UAQ', 'FUJ', 'AJM', 'RAK'] as const;
export type Emirate = (typeof emirates)[number];

/**
 * An address: line 1, city, the country subdivision (required of both parties, ibr-143-ae, ibr-144-ae: in the UAE the
 * emirate's code, `Emirate`; elsewhere the region as the address writes it), the country (ISO 3166-1 alpha-2).
 */
export type Address = { line1: string; line2?: string | null; city: string; subdivision: string; country: string };

/**
 * A legal registration (IBT-030, IBT-047) and its type (BTAE-15, BTAE-16): TL trade licence (`authority`: who issued
 * it, BTAE-11/12), EID Emirates ID, PAS passport (`authority`: the issuing country, ISO 3166-1 alpha-2, BTAE-18/19), CD
 * cabinet decision.
 */
export type LegalRegistration = { id: string; type: 'TL' | 'EID' | 'PAS' | 'CD'; authority?: string | null };

/** The company issuing the document: its trading name, legal name, TRN, TIN (its Peppol endpoint), address, licence. */
export type Seller = {
  name: string;
  legalName: string;
  trn: string;
  /** The 10-digit TIN (the Peppol endpoint under scheme 0235); absent: the TRN's first 10 digits. */
  tin?: string | null;
  address: Address;
  registration: LegalRegistration;
};

/** The landlord the company bills for as a disclosed agent (BTAE-14: the principal's TRN). */
export type Principal = { name: string; trn: string };

/**
 * The buyer: its name, TRN when registered for VAT, its TIN when it receives e-invoices (else it is outside the mandate
 * and addressed at the predefined endpoint 9900000098, BIS 1.5.3), our reference to it (IBT-046, the buyer identifier
 * a buyer without a TRN needs, ibr-135-ae), its legal registration (a 480 or 81 needs one, ibr-136-ae), its address.
 */
export type Buyer = {
  name: string;
  trn?: string | null;
  tin?: string | null;
  reference?: string | null;
  registration?: LegalRegistration | null;
  address: Address;
};

/** Exemption reasons of PINT AE's list (Aligned-TaxExemptionCodes): financial services, residential units, bare land, local passenger transport. */
export const exemptionReasons = {
  'DL8.46.1': 'Supply of financial services',
  'DL8.46.2': 'Supply of residential units (lease or sale)',
  'DL8.46.3': 'Supply of bare land',
  'DL8.46.4': 'Supply of local passenger transport',
} as const;
export type ExemptionReason = keyof typeof exemptionReasons;

/** Frequencies of billing PINT AE lists (BTAE-06, ibr-005-ae), but OTH (which needs a note, ibr-160-ae). */
export const billingFrequencies = ['DLY', 'WKY', 'Q15', 'MTH', 'Q45', 'Q60', 'QTR', 'HYR', 'YRL'] as const;
export type BillingFrequency = (typeof billingFrequencies)[number];

/** Credit note reasons (BTAE-03, ibr-001-ae): DL8.61.1.A cancelled … .E tax charged in error, VD volume discount. */
export const creditReasons = ['DL8.61.1.A', 'DL8.61.1.B', 'DL8.61.1.C', 'DL8.61.1.D', 'DL8.61.1.E', 'VD'] as const;
export type CreditReason = (typeof creditReasons)[number];

/**
 * How the buyer pays (UNCL4461): 10 cash, 20 cheque, 30 credit transfer (to `account`), 48 bank card, 49 direct debit;
 * 97 clearing between partners (an owner's charge deducted from the owner's money), 1 instrument not defined (a
 * tenant's charge, its means not known when it is booked).
 */
export type PaymentMeans =
  | { code: '1' | '10' | '20' | '48' | '49' | '97' }
  | { code: '30'; account: { iban: string; name?: string | null } };

/** A line as the issuing code gives it: an amount net of VAT (`exclusive`) or including it (`inclusive`). */
export type LineInput = {
  /** What was supplied (IBT-154) and its short name (IBT-153). */
  description: string;
  name: string;
  /** A positive decimal (at most 4 decimals) and its unit (UN/ECE Rec 20: MON month, DAY day, C62 one). */
  quantity: string;
  unitCode: string;
  amount: string;
  basis: 'exclusive' | 'inclusive';
  category: TaxCategory;
  /** The percentage of a standard-rated line ("5"); 0 or null for zero-rated; null for exempt and out of scope. */
  rate: string | null;
  exemptionReason?: ExemptionReason | null;
  /** The service accounting code (BTAE-17, scheme SAC) of a service; null: the item's type is not given. */
  serviceCode?: string | null;
};

export type DocumentInput = {
  kind: 'invoice' | 'credit_note';
  /** Self-billing (PINT AE Self-billing: 389 and 261): the buyer issues the document in the seller's name. */
  selfBilling?: boolean;
  number: string;
  /** The unique identifier (BTAE-07). */
  uuid: string;
  issueDate: string;
  /** When an invoice with something still due must be paid (IBT-009, ibr-127-ae). */
  dueDate?: string | null;
  currency: string;
  /** AED for one unit of `currency` (BTAE-04, at most 6 decimals), when the currency is not AED (ibr-159-ae). */
  aedRate?: string | null;
  seller: Seller;
  /** The landlord, when the company bills as its disclosed agent (BTAE-02 position 6). */
  principal?: Principal | null;
  buyer: Buyer;
  /** A continuous supply (BTAE-02 position 5: rent under a lease) and the period billed (IBG-14). */
  continuousSupply?: boolean;
  period?: { start: string; end: string; frequency?: BillingFrequency | null } | null;
  contractReference?: string | null;
  note?: string | null;
  lines: LineInput[];
  /** Already paid (IBT-113), in the currency's digits. */
  paid?: string | null;
  payment?: PaymentMeans | null;
  /** A credit note's reason and the invoice it credits (none for a volume discount, VD). */
  credit?: { reason: CreditReason; invoice: { number: string; issueDate: string } | null } | null;
};

export type DocumentLine = Omit<LineInput, 'amount' | 'basis' | 'rate'> & {
  /** The rate written (null for exempt and out of scope) and the line's net, VAT and gross, in the currency's digits. */
  rate: string | null;
  net: string;
  vat: string;
  gross: string;
};

/** One breakdown per category and rate (BIS 4.3.1): the lines' net and their VAT added up. */
export type Breakdown = {
  category: TaxCategory;
  rate: string | null;
  taxable: string;
  vat: string;
  exemptionReason: ExemptionReason | null;
};

/** The tax document: its input, its UNTDID 1001 type code, its lines, breakdowns and totals. */
export type TaxDocument = Omit<DocumentInput, 'lines'> & {
  /** 380 tax invoice, 480 out of scope (only exempt and out-of-scope lines, ibr-151-ae), 381 / 81 credit notes; 389 / 261 self-billed. */
  typeCode: '380' | '480' | '381' | '81' | '389' | '261';
  lines: DocumentLine[];
  breakdowns: Breakdown[];
  totals: { net: string; vat: string; gross: string; paid: string; due: string };
};

export type Problem = { path: string; code: string; message: string };

/** What makes a document impossible to issue as an e-invoice, each problem at its field. */
export class EinvoiceRefused extends Error {
  constructor(readonly problems: Problem[]) {
    super(`The document cannot be issued as an e-invoice: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
    this.name = 'EinvoiceRefused';
  }
}

const trnShape = /^1\d{12}03$/; // ibr-132-ae
const tinShape = /^1\d{9}$/; // ibr-148-ae
const dayShape = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const quantityShape = /^(0|[1-9]\d{0,8})(\.\d{1,4})?$/;
const amountShape = /^(0|[1-9]\d{0,11})(\.\d+)?$/;
const rateShape = /^(0|[1-9]\d?)(\.\d{1,4})?$/;
const aedRateShape = /^(0|[1-9]\d{0,5})(\.\d{1,6})?$/; // ibr-002-ae: at most 6 decimals

/** The TIN of a TRN: its first 10 digits (docs/pint-ae.md, an assumption the fixtures share). */
export const tinOfTrn = (trn: string) => trn.slice(0, 10);

/** The document: lines with their VAT (per line, `vatOfLine`), breakdowns, totals; or `EinvoiceRefused`. */
export function taxDocument(input: DocumentInput): TaxDocument {
  const problems: Problem[] = [];
  const refuse = (path: string, code: string, message: string) => problems.push({ path, code, message });
  const { currency } = input;
  const digits = minorDigits(currency);

  if (!/^[A-Z]{3}$/.test(currency)) refuse('currency', 'currency', 'An ISO 4217 code.');
  if (currency !== 'AED' && !(input.aedRate && aedRateShape.test(input.aedRate) && new Big(input.aedRate).gt(0))) {
    refuse(
      'aed_rate',
      'aed_rate',
      'A document in another currency than AED gives its rate to AED, above 0, at most 6 decimals (ibr-159-ae, ibr-002-ae).',
    );
  }
  for (const [path, day] of [
    ['issue_date', input.issueDate],
    ['due_date', input.dueDate],
    ['period.start', input.period?.start],
    ['period.end', input.period?.end],
    ['credit.invoice.issue_date', input.credit?.invoice?.issueDate],
  ] as const) {
    if (day !== undefined && day !== null && !dayShape.test(day)) refuse(path, 'date', 'A day, YYYY-MM-DD.');
  }
  if (input.period && input.period.end < input.period.start)
    refuse('period.end', 'period', 'The period ends on or after its start (ibr-029).');
  checkParties(input, refuse);

  const lines: DocumentLine[] = [];
  input.lines.forEach((line, i) => {
    const at = `lines.${i}`;
    if (!quantityShape.test(line.quantity) || new Big(line.quantity).lte(0)) {
      refuse(`${at}.quantity`, 'quantity', 'A positive number, at most 4 decimals.');
    }
    if (!amountShape.test(line.amount) || !fitsDigits(line.amount, digits)) {
      refuse(
        `${at}.amount`,
        'amount',
        `Zero or more, at most ${digits} digits after the point in ${currency} (a credit is a credit note, never a negative line).`,
      );
      return;
    }
    const rate = lineRate(line, `${at}`, refuse);
    if (rate === undefined) return;
    const split =
      rate === null ? { net: line.amount, vat: '0', gross: line.amount } : vatOfLine(line.amount, currency, rate, line.basis);
    const { amount: _a, basis: _b, ...rest } = line;
    lines.push({
      ...rest,
      exemptionReason: line.category === 'exempt' ? line.exemptionReason : null,
      rate,
      net: formatAmount(split.net, currency),
      vat: formatAmount(split.vat, currency),
      gross: formatAmount(split.gross, currency),
    });
  });
  if (input.lines.length === 0) refuse('lines', 'lines', 'At least one line (ibr-016).');
  if (new Set(lines.filter((l) => l.category === 'exempt').map((l) => l.exemptionReason)).size > 1) {
    refuse(
      'lines',
      'exemption_reason',
      'One exemption reason per document: its exempt lines make one breakdown (BIS 4.3.1, aligned-ibrp-e-08).',
    );
  }

  const taxable = lines.some((l) => l.category === 'standard' || l.category === 'zero_rated');
  const typeCode = documentTypeCode(input, taxable);
  if (!taxable && !input.buyer.registration) {
    refuse(
      'buyer.registration',
      'buyer_registration',
      `A document of only exempt and out-of-scope lines is a ${typeCode}, which names the buyer's legal registration (ibr-136-ae).`,
    );
  }
  if (input.kind === 'credit_note') {
    if (!input.credit) refuse('credit', 'credit_reason', 'A credit note gives its reason (ibr-158-ae).');
    else if (!creditReasons.includes(input.credit.reason))
      refuse('credit.reason', 'credit_reason', 'A reason of the list (ibr-001-ae).');
    else if ((input.credit.reason === 'VD') !== (input.credit.invoice === null)) {
      refuse(
        'credit.invoice',
        'credit_invoice',
        'A credit note references the invoice it credits, a volume discount none (ibr-055-ae).',
      );
    }
  }
  if (problems.length > 0) throw new EinvoiceRefused(problems);

  const net = sumAmounts(
    lines.map((l) => l.net),
    currency,
  );
  const vat = sumAmounts(
    lines.map((l) => l.vat),
    currency,
  );
  const gross = sumAmounts([net, vat], currency);
  const paid = formatAmount(input.paid ?? 0, currency);
  const due = formatAmount(new Big(gross).minus(paid), currency);
  const after: Problem[] = [];
  if (input.paid && (!amountShape.test(input.paid) || !fitsDigits(input.paid, digits) || new Big(due).lt(0))) {
    after.push({ path: 'paid', code: 'paid', message: `From 0 to the total with VAT (${gross}), in ${currency}'s digits.` });
  }
  if (input.kind === 'invoice' && new Big(due).gt(0) && !input.dueDate) {
    after.push({ path: 'due_date', code: 'due_date', message: 'An invoice with something due gives its due date (ibr-127-ae).' });
  }
  if (after.length > 0) throw new EinvoiceRefused(after);
  return { ...input, typeCode, lines, breakdowns: breakdownsOf(lines, currency), totals: { net, vat, gross, paid, due } };
}

/** The rate a line carries: a percentage for standard (above 0) and zero-rated (0), null for exempt and out of scope. */
function lineRate(
  line: LineInput,
  at: string,
  refuse: (path: string, code: string, message: string) => void,
): string | null | undefined {
  if (line.category === 'exempt' || line.category === 'out_of_scope') {
    if (line.category === 'exempt' && !(line.exemptionReason && line.exemptionReason in exemptionReasons)) {
      refuse(`${at}.exemption_reason`, 'exemption_reason', 'An exempt line gives its exemption reason code (ibr-167-ae).');
      return undefined;
    }
    return null;
  }
  const rate = line.rate ?? (line.category === 'zero_rated' ? '0' : null);
  if (rate === null || !rateShape.test(rate)) {
    refuse(`${at}.rate`, 'rate', 'A percentage from 0 to 99.9999.');
    return undefined;
  }
  const positive = new Big(rate).gt(0);
  if (positive !== (line.category === 'standard')) {
    refuse(
      `${at}.rate`,
      'rate',
      'A standard-rated line has a rate above 0 (aligned-ibrp-s-05), a zero-rated one 0 (aligned-ibrp-z-05).',
    );
    return undefined;
  }
  return new Big(rate).toString();
}

function documentTypeCode(input: DocumentInput, taxable: boolean): TaxDocument['typeCode'] {
  if (input.kind === 'invoice') return taxable ? (input.selfBilling ? '389' : '380') : '480';
  return taxable ? (input.selfBilling ? '261' : '381') : '81';
}

function checkParties(input: DocumentInput, refuse: (path: string, code: string, message: string) => void): void {
  const { seller, buyer, principal } = input;
  if (!trnShape.test(seller.trn)) refuse('seller.trn', 'trn', 'A TRN: 15 digits, the first 1, the last two 03 (ibr-132-ae).');
  if (seller.tin && !tinShape.test(seller.tin)) refuse('seller.tin', 'tin', 'A TIN: 10 digits, the first 1 (ibr-148-ae).');
  if (buyer.trn && !trnShape.test(buyer.trn))
    refuse('buyer.trn', 'trn', 'A TRN: 15 digits, the first 1, the last two 03 (ibr-132-ae).');
  if (buyer.tin && !tinShape.test(buyer.tin)) refuse('buyer.tin', 'tin', 'A TIN: 10 digits, the first 1 (ibr-148-ae).');
  if (!buyer.trn && !buyer.tin && !buyer.reference) {
    refuse('buyer.reference', 'buyer_identifier', 'A buyer without a TRN or a TIN is named by our reference to it (ibr-135-ae).');
  }
  if (principal) {
    if (!trnShape.test(principal.trn))
      refuse('principal.trn', 'trn', 'The landlord’s TRN: 15 digits, the first 1, the last two 03.');
    else if (principal.trn === seller.trn) refuse('principal.trn', 'principal', 'The principal is not the agent (ibr-176-ae).');
  }
  for (const [path, address] of [
    ['seller.address', seller.address],
    ['buyer.address', buyer.address],
  ] as const) {
    if (!/^[A-Z]{2}$/.test(address.country)) refuse(`${path}.country`, 'country', 'An ISO 3166-1 alpha-2 code.');
    if (address.country === 'AE' && !(emirates as readonly string[]).includes(address.subdivision)) {
      refuse(`${path}.subdivision`, 'emirate', `In the UAE, the emirate: ${emirates.join(', ')} (ibr-128-ae).`);
    }
  }
  for (const [path, registration] of [
    ['seller.registration', seller.registration],
    ['buyer.registration', buyer.registration],
  ] as const) {
    if (registration && (registration.type === 'TL' || registration.type === 'PAS') && !registration.authority) {
      refuse(
        `${path}.authority`,
        'authority',
        'A trade licence names its issuing authority, a passport its country (ibr-172-ae, ibr-101-ae, ibr-010-ae).',
      );
    }
  }
  if (input.kind === 'invoice' && !input.payment) refuse('payment', 'payment', 'An invoice gives how it is paid (ibr-191-ae).');
  if (input.payment?.code === '30' && !input.payment.account.iban)
    refuse('payment.account', 'payment', 'A credit transfer gives the account (ibr-192-ae).');
}

const categoryOrder: readonly TaxCategory[] = ['standard', 'zero_rated', 'exempt', 'out_of_scope'];

/** One breakdown per category and rate (S, Z, E, O; rates in the order the lines first give them). */
function breakdownsOf(lines: DocumentLine[], currency: string): Breakdown[] {
  const groups = new Map<string, DocumentLine[]>();
  for (const line of lines) {
    const key = `${line.category}/${line.rate ?? ''}`;
    groups.set(key, [...(groups.get(key) ?? []), line]);
  }
  const ordered = [...groups.values()].sort(
    (a, b) => categoryOrder.indexOf((a[0] as DocumentLine).category) - categoryOrder.indexOf((b[0] as DocumentLine).category),
  );
  return ordered.map((group) => {
    const first = group[0] as DocumentLine;
    return {
      category: first.category,
      rate: first.rate,
      taxable: sumAmounts(
        group.map((l) => l.net),
        currency,
      ),
      vat: sumAmounts(
        group.map((l) => l.vat),
        currency,
      ),
      exemptionReason: first.exemptionReason ?? null,
    };
  });
}
