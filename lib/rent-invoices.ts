import { type RawBuilder, sql } from 'kysely';
import type { BillingFrequency, PaymentMeans, Problem } from './einvoice/document';
import {
  buyerOf,
  creditedLines,
  type HomeAddressParts,
  homeAddress,
  homeAddressJson,
  type IssuedDocument,
  issueCtes,
  type NotIssued,
  type Prepared,
  prepareDocument,
  sellerOf,
} from './invoices';
import type { CausedBy } from './events';
import { addDays, addMonths, monthAround } from './dates';
import { formatAmount } from './money';
import type { ReceiptColumns } from './rent-receipts';
import type { Company } from '../schema/platform/db';

/**
 * A rent receipt's tax invoice and a bounce's credit note (issue 35; docs/api-reference.md, "Tax invoices and credit
 * notes", "Rent receipts and bounces"), the one builder both writers of a receipt use: staff's PATCH
 * (functions/leases/payments.ts) and a provider's settlement (lib/payments/settle.ts). Each reads
 * {@link rentFactsJson} in its read statement, decides here in TypeScript, and adds {@link rentInvoiceCtes} to its
 * one write statement, after the CTE that writes the receipt (or the bounce): the document is issued with it or not at
 * all.
 */

/** What an invoice of a rent payment needs beyond the payment's row, as {@link rentFactsJson} reads it. */
export type RentFacts = {
  company: { name: string; settings: Company['settings'] };
  lease: { id: string; reference: string; ends_on: string };
  renter: { reference: string; name: string | null; trn: string | null };
  landlord: { id: string; name: string | null; trn: string | null };
  home: HomeAddressParts | null;
  payment: { id: string; due_on: string };
  /** Every payment of the lease (the schedule's rows and their replacements): what {@link rentPeriod} reads. */
  schedule: ReadonlyArray<{ id: string; replaces_id: string | null; due_on: string }>;
};

/**
 * A rent payment's facts as a read statement selects them (json; null for no payment): the company's name and settings,
 * the lease, the renter and landlord (reference, name, TRN), the home's address parts, the payment's due day and the
 * lease's payments, from which {@link rentPeriod} finds the period the payment covers. No more than joins and one list:
 * the period's rules in SQL (a recursive walk of the replacements, the next row's day, the frequency's four cases on
 * the result) cost PostgreSQL more to plan than the rest of the statement, and a write is planned on every request at
 * the edge (docs/performance.md, "A rent receipt's read").
 */
export function rentFactsJson(paymentId: RawBuilder<unknown>) {
  return sql<RentFacts | null>`(select json_build_object(
      'company', json_build_object('name', rc.name, 'settings', rc.settings),
      'lease', json_build_object('id', rl.id, 'reference', rl.reference, 'ends_on', rl.ends_on::text),
      'renter', json_build_object('reference', rt.reference, 'name', rt.name, 'trn', rt.trn),
      'landlord', json_build_object('id', ll.id, 'name', ll.name, 'trn', ll.trn),
      'home', ${homeAddressJson(sql`rl.listing_id`)},
      'payment', json_build_object('id', rp.id, 'due_on', rp.due_on::text),
      'schedule', (select coalesce(json_agg(json_build_object('id', s.id, 'replaces_id', s.replaces_id,
        'due_on', s.due_on::text)), '[]') from rent_payments s where s.lease_id = rl.id))
    from rent_payments rp
    join companies rc on rc.id = rp.company_id
    join leases rl on rl.id = rp.lease_id
    join contacts rt on rt.id = rl.renter_id
    join contacts ll on ll.id = rl.landlord_id
    where rp.id = ${paymentId})`;
}

/** The usual frequencies a period may have (PINT AE's billing frequency), by its length in months. */
const frequencies: ReadonlyArray<[number, BillingFrequency]> = [
  [1, 'MTH'],
  [3, 'QTR'],
  [6, 'HYR'],
  [12, 'YRL'],
];

/**
 * The period a rent payment covers, from its lease's schedule: from its schedule row's due day (a replacement's is the
 * bounced payment's it replaces, back to the schedule's row) to the day before the lease's next scheduled payment, the
 * last one to the lease's end; where that gives no period (a schedule row due after the lease's end), the month the
 * payment is due in. Its frequency when the period is 1, 3, 6 or 12 months to the day (01-31 to 02-27 is one month).
 */
export function rentPeriod(facts: Pick<RentFacts, 'lease' | 'payment' | 'schedule'>): {
  start: string;
  end: string;
  frequency: BillingFrequency | null;
} {
  const byId = new Map(facts.schedule.map((row) => [row.id, row]));
  let row: { replaces_id: string | null; due_on: string } = byId.get(facts.payment.id) ?? {
    ...facts.payment,
    replaces_id: null,
  };
  for (let steps = 0; row.replaces_id !== null && steps < facts.schedule.length; steps++) {
    const replaced = byId.get(row.replaces_id);
    if (!replaced) break;
    row = replaced;
  }
  const rowDue = row.due_on;
  const later = facts.schedule.filter((other) => other.replaces_id === null && other.due_on > rowDue);
  const next = later.reduce<string | null>((min, other) => (min === null || other.due_on < min ? other.due_on : min), null);
  const until = next === null ? facts.lease.ends_on : addDays(next, -1);
  const month = monthAround(facts.payment.due_on);
  const [start, end] = until >= rowDue ? [rowDue, until] : [month.first, month.last];
  const frequency = frequencies.find(([months]) => addMonths(start, months) === addDays(end, 1))?.[1] ?? null;
  return { start, end, frequency };
}

/** How the rent was paid, as the document says it (UNCL4461): cheque 20, direct debit 49, card or online 48, else cash 10. */
export type RentPaidBy = 'cheque' | 'direct_debit' | 'online' | 'other';
const meansOf: Record<RentPaidBy, PaymentMeans> = {
  cheque: { code: '20' },
  direct_debit: { code: '49' },
  online: { code: '48' },
  other: { code: '10' },
};

/** The receipt an invoice is for: the payment's id, amount (VAT included) and currency, and how it was paid. */
export type RentReceipt = { paymentId: string; amount: string; currency: string; paidBy: RentPaidBy };

/** The services accounting codes docs/pint-ae.md assumes: 997212 renting non-residential property, 997211 residential. */
const serviceCodes = { standard: '997212', zero_rated: '997211' } as const;

/** A rent invoice decided: none (the rent is not a taxable supply), not issued (why), or ready to issue. */
export type RentDocument =
  | { issued: 'none' }
  | NotIssued
  | {
      issued: true;
      prepared: Prepared;
      leaseId: string;
      ownerId: string | null;
      credits?: { id: string; number: string };
    };

/**
 * The tax invoice of a receipt (its stored columns, `receipt`), or why none: only a taxable rent (category `standard`,
 * commercial, or `zero_rated`, a residential home's first supply) has one (Federal Decree-Law No. 8 of 2017, Art. 65:
 * a tax invoice for a taxable supply); exempt residential rent none. Seller: the company on the day booked
 * (`sellerOf`); billing as the landlord's disclosed agent (`rent_vat_accounted_by` `owner`) names the landlord as
 * principal, who must have a TRN (else `landlord_not_registered`). Buyer: the renter (full invoice with a TRN, else
 * simplified). One line, the amount received VAT included at its stored category and rate; paid in full.
 */
export function rentInvoice(facts: RentFacts | null, receipt: RentReceipt, columns: ReceiptColumns): RentDocument {
  const category = columns.tax_category;
  if (facts === null || (category !== 'standard' && category !== 'zero_rated')) return { issued: 'none' };
  const seller = sellerOf(facts.company, columns.booked_on);
  if ('issued' in seller) return seller;
  const problems: Problem[] = [];
  const agent = columns.rent_vat_accounted_by === 'owner';
  if (agent && !(facts.landlord.trn && facts.landlord.name)) {
    problems.push({
      path: 'landlord.trn',
      code: 'landlord_not_registered',
      message: 'The company bills this rent as the landlord’s disclosed agent: the landlord’s TRN is needed on its invoice.',
    });
    return { issued: false, problems };
  }
  const { buyer, simplified } = buyerOf({
    label: 'Tenant',
    reference: facts.renter.reference,
    name: facts.renter.name,
    trn: facts.renter.trn,
    address: homeAddress(facts.home, seller.address),
  });
  const period = rentPeriod(facts);
  const amount = formatAmount(receipt.amount, receipt.currency);
  const prepared = prepareDocument(
    {
      kind: 'invoice',
      issueDate: columns.booked_on,
      currency: receipt.currency,
      seller,
      principal: agent ? { name: facts.landlord.name as string, trn: facts.landlord.trn as string } : null,
      buyer,
      continuousSupply: true,
      period,
      contractReference: facts.lease.reference,
      lines: [
        {
          description: `Rent from ${period.start} to ${period.end}, lease ${facts.lease.reference}`,
          name: 'Rent',
          quantity: '1',
          unitCode: 'C62',
          amount,
          basis: 'inclusive',
          category,
          rate: columns.tax_rate,
          serviceCode: serviceCodes[category],
        },
      ],
      paid: amount,
      payment: meansOf[receipt.paidBy],
    },
    simplified,
  );
  if (!prepared.issued) return prepared;
  return { issued: true, prepared, leaseId: facts.lease.id, ownerId: facts.landlord.id };
}

/**
 * The credit note of a bounce (`bouncedOn`) of a receipt invoiced as `invoice` (none when it was not): the invoice's
 * parties, supply and lines, credited in full (`creditedLines`: the same VAT to the fils), reason DL8.61.1.C (the
 * consideration altered: the payment the invoice recorded was never received; the lease's supply goes on and its
 * replacement is invoiced when received), referencing the invoice's number and issue date.
 */
export function rentCreditNote(
  invoice: IssuedDocument | null,
  bouncedOn: string,
  source: { leaseId: string; ownerId: string | null },
): RentDocument {
  if (invoice === null) return { issued: 'none' };
  const { document } = invoice;
  const prepared = prepareDocument(
    {
      kind: 'credit_note',
      issueDate: bouncedOn,
      currency: document.currency,
      aedRate: document.aedRate ?? null,
      seller: document.seller,
      principal: document.principal ?? null,
      buyer: document.buyer,
      continuousSupply: document.continuousSupply ?? false,
      period: document.period ?? null,
      contractReference: document.contractReference ?? null,
      lines: creditedLines(document),
      credit: { reason: 'DL8.61.1.C', invoice: { number: invoice.number, issueDate: invoice.issue_date } },
    },
    !document.buyer.trn,
  );
  if (!prepared.issued) return prepared;
  return {
    issued: true,
    prepared,
    leaseId: source.leaseId,
    ownerId: source.ownerId,
    credits: { id: invoice.id, number: invoice.number },
  };
}

/**
 * The CTEs issuing `document` (when one is ready) in the write of the receipt or bounce whose CTE `source` has a row
 * when this write made it: an invoice or a credit note of the source `rent_payment` keyed by the payment's id; none
 * otherwise (an empty list).
 */
export function rentInvoiceCtes(
  name: string,
  source: string,
  document: RentDocument,
  payment: { companyId: string; paymentId: string; causedBy: CausedBy },
): RawBuilder<unknown>[] {
  if (document.issued !== true) return [];
  return [
    issueCtes(name, source, {
      companyId: payment.companyId,
      kind: document.credits ? 'credit_note' : 'invoice',
      prepared: document.prepared,
      source: { kind: 'rent_payment', key: payment.paymentId },
      leaseId: document.leaseId,
      ownerId: document.ownerId,
      credits: document.credits ?? null,
      causedBy: payment.causedBy,
    }),
  ];
}

/**
 * The CTEs of a provider's settlement (lib/payments/settle.ts) issuing the invoice of the receipt it writes (its CTE
 * `received`): paid online (48), the rent payment's amount.
 */
export function settledRentInvoice(
  payment: { rent_payment_id: string | null; rent_amount: string | null; currency: string; rent_facts: RentFacts | null },
  columns: ReceiptColumns,
  companyId: string,
  causedBy: CausedBy,
): RawBuilder<unknown>[] {
  if (payment.rent_payment_id === null || payment.rent_amount === null) return [];
  const receipt = {
    paymentId: payment.rent_payment_id,
    amount: payment.rent_amount,
    currency: payment.currency,
    paidBy: 'online' as const,
  };
  const document = rentInvoice(payment.rent_facts, receipt, columns);
  return rentInvoiceCtes('tax_doc', 'received', document, { companyId, paymentId: payment.rent_payment_id, causedBy });
}

/** The problems of a document not issued (for a warning or a log), none when issued or not due. */
export const notIssuedProblems = (document: RentDocument): Problem[] => (document.issued === false ? document.problems : []);
