import Big from 'big.js';
import { type RawBuilder, sql } from 'kysely';
import type { LineInput } from '../../lib/einvoice/document';
import {
  buyerOf,
  type ConditionalIssue,
  type HomeAddressParts,
  homeAddress,
  homeAddressJson,
  type IssuedDocument,
  issuedJson,
  prepareDocument,
  sellerOf,
} from '../../lib/invoices';
import { formatAmount } from '../../lib/money';
import { monthSpan } from '../../lib/statement-months';
import { isRated } from '../../lib/tax';
import type { TaxCategory } from '../../schema/common/tax';
import type { Company } from '../../schema/platform/db';

/**
 * The tax invoice of an owner's month of fees, issued when the month closes (issue 35; docs/api-reference.md, "Tax
 * invoices and credit notes", "An owner's month of fees"), in the closing's own statement (functions/statements/ready.ts):
 * one invoice per owner and currency, one line per fee standing at the close, each reproducing its receipt's stored
 * fee VAT (the fee VAT-inclusive at its stored category and rate: the same `vatOfLine` split, so the invoice's VAT is
 * the journal's fee VAT to the fils). A fee bounced in a later month is credited by a credit note against the invoice
 * that held it, issued when the bounce's month closes.
 */

/** The UN CPC-based service accounting code of property management on a fee basis (97221; an assumption, docs/pint-ae.md). */
export const feeServiceCode = '997221';

/** A fee line (or its reversal) of an owner's month, as the closing's read gathers it. */
export type FeeLine = {
  kind: 'fee' | 'fee_reversed';
  payment_id: string;
  day: string;
  currency: string;
  /** The receipt's fee, VAT included, and its stored tax (null: received before VAT was recorded). */
  fee: string;
  category: TaxCategory | null;
  rate: string | null;
  lease: string | null;
  home: string;
  address: HomeAddressParts | null;
  /** The month of the fee a reversal reverses, and the invoice that month's closing issued for it (null: none). */
  original_month: string | null;
  invoice: IssuedDocument | null;
};

/** An owner's month as the closing reads it: the owner and the fee lines of the month. */
export type OwnerMonth = {
  owner_id: string;
  month: string;
  owner_ref: string | null;
  owner_name: string | null;
  owner_trn: string | null;
  fees: FeeLine[];
};

/**
 * The columns the closing's read adds per owner's month (`s` the owner_statements row): the owner's reference, name and
 * TRN, and the month's fee lines with their receipts' stored fee tax and, for a reversal, the invoice of its fee.
 */
export function ownerMonthColumns(companyId: string) {
  const key = sql`s.owner_id::text || ':' || to_char(o.day, 'YYYY-MM') || ':' || sl.currency`;
  return {
    owner_ref: sql<string | null>`(select c.reference from contacts c where c.id = s.owner_id)`,
    owner_name: sql<string | null>`(select c.name from contacts c where c.id = s.owner_id)`,
    owner_trn: sql<string | null>`(select c.trn from contacts c where c.id = s.owner_id)`,
    fees: sql<
      FeeLine[]
    >`(select coalesce(json_agg(json_build_object('kind', sl.kind, 'payment_id', sl.payment_id, 'day', sl.day::text,
        'currency', sl.currency, 'fee', rp.fee_amount::text, 'category', rp.fee_tax_category, 'rate', rp.fee_tax_rate::text,
        'lease', le.reference, 'home', sl.home, 'address', ${homeAddressJson(sql`sl.listing_id`)},
        'original_month', to_char(o.day, 'YYYY-MM'),
        'invoice', case when sl.kind = 'fee_reversed' then ${issuedJson(companyId, 'invoice', 'statement_fees', key)} end)
        order by sl.day, sl.id), '[]'::json)
      from owner_statement_lines sl join rent_payments rp on rp.id = sl.payment_id
      left join leases le on le.id = sl.lease_id
      left join lateral (select f.day from owner_statement_lines f where f.payment_id = sl.payment_id and f.kind = 'fee'
        order by f.id limit 1) o on true
      where sl.company_id = ${companyId}::uuid and sl.owner_id = s.owner_id and sl.kind in ('fee', 'fee_reversed')
        and sl.day >= s.month and sl.day < (s.month + interval '1 month')::date)`,
  };
}

/** A fee as an invoice's (or a credit note's) line: the fee VAT-inclusive at its stored category and rate. */
function feeLine(line: FeeLine): LineInput {
  return {
    description: `Management fee on rent received ${line.day}${line.lease ? `, lease ${line.lease}` : ''} (${line.home})`,
    name: 'Management fee',
    quantity: '1',
    unitCode: 'C62',
    amount: formatAmount(line.fee, line.currency),
    basis: 'inclusive',
    category: line.category as TaxCategory,
    rate: line.rate,
    serviceCode: feeServiceCode,
  };
}

/**
 * The documents the closing of `month.month` issues for an owner, on `day` (the closing's day in the company's time
 * zone), each waiting for `when` (the owner's month claimed by this statement): per currency, the invoice of the fees
 * standing (a fee whose reversal falls in the same month is left out with it: nothing was supplied), and per invoice of
 * an earlier month holding fees reversed in this one, a credit note of those fees (DL8.61.1.C, the consideration altered
 * by the bounce). Fees without a rated category (out of scope, received while the company was not registered, or before
 * VAT was recorded) are no taxable supply and are left out. Nothing when the company cannot issue that day.
 */
export function feeDocuments(
  company: Pick<Company, 'id' | 'name' | 'settings'>,
  owner: OwnerMonth,
  day: string,
  when: RawBuilder<boolean>,
): ConditionalIssue[] {
  const month = owner.month.slice(0, 7);
  const taxed = owner.fees.filter((line) => line.category !== null && isRated(line.category));
  if (taxed.length === 0 || owner.owner_ref === null) return [];
  const seller = sellerOf(company, day);
  if ('issued' in seller) return [];
  const issues: ConditionalIssue[] = [];
  const base = { companyId: company.id, ownerId: owner.owner_id, causedBy: 'system' as const, when };
  const currencies = [...new Set(taxed.map((line) => line.currency))];
  for (const currency of currencies) {
    // The month's fees, less those whose receipt bounced within it (its fee and reversal both in the month).
    const fees = taxed.filter((line) => line.currency === currency && line.kind === 'fee');
    const bouncedHere = new Set(
      taxed
        .filter((line) => line.currency === currency && line.kind === 'fee_reversed' && line.original_month === month)
        .map((line) => line.payment_id),
    );
    const standing = fees.filter((fee) => !bouncedHere.has(fee.payment_id));
    const first = standing[0] ?? fees[0];
    const { buyer, simplified } = buyerOf({
      label: 'Owner',
      reference: owner.owner_ref,
      name: owner.owner_name,
      trn: owner.owner_trn,
      address: homeAddress(first?.address ?? null, seller.address),
    });
    if (standing.length > 0) {
      const prepared = prepareDocument(
        {
          kind: 'invoice',
          issueDate: day,
          currency,
          seller,
          buyer,
          period: { start: `${month}-01`, end: monthSpan(month).to, frequency: 'MTH' },
          note: `Management fees, ${month}`,
          lines: standing.map(feeLine),
          paid: sumOf(standing),
          payment: { code: '97' },
        },
        simplified,
      );
      if (prepared.issued) {
        issues.push({
          ...base,
          kind: 'invoice',
          prepared,
          source: { kind: 'statement_fees', key: `${owner.owner_id}:${month}:${currency}` },
        });
      }
    }
    // Fees of earlier months reversed in this one: a credit note per invoice that held them.
    const credited = new Map<string, { invoice: IssuedDocument; lines: FeeLine[] }>();
    for (const line of taxed) {
      if (line.currency !== currency || line.kind !== 'fee_reversed' || line.invoice === null) continue;
      if (line.original_month === null || line.original_month >= month) continue;
      const entry = credited.get(line.invoice.number) ?? { invoice: line.invoice, lines: [] };
      entry.lines.push(line);
      credited.set(line.invoice.number, entry);
    }
    for (const { invoice, lines } of credited.values()) {
      const prepared = prepareDocument(
        {
          kind: 'credit_note',
          issueDate: day,
          currency,
          aedRate: invoice.document.aedRate ?? null,
          seller: invoice.document.seller,
          buyer: invoice.document.buyer,
          lines: lines.map(feeLine),
          paid: sumOf(lines),
          payment: { code: '97' },
          credit: { reason: 'DL8.61.1.C', invoice: { number: invoice.number, issueDate: invoice.issue_date } },
        },
        !invoice.document.buyer.trn,
      );
      if (prepared.issued) {
        issues.push({
          ...base,
          kind: 'credit_note',
          prepared,
          source: { kind: 'statement_fees', key: `${owner.owner_id}:${month}:${currency}:${invoice.number}` },
          credits: { id: invoice.id, number: invoice.number },
        });
      }
    }
  }
  return issues;
}

/** The fees added up (exact decimals, the currency's digits). */
const sumOf = (lines: FeeLine[]) =>
  formatAmount(
    lines.reduce((total, line) => total.plus(line.fee), new Big(0)),
    lines[0]?.currency ?? 'AED',
  );
