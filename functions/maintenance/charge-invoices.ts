import Big from 'big.js';
import type { TaxDocument } from '../../lib/einvoice/document';
import {
  buyerOf,
  creditedLines,
  type HomeAddressParts,
  homeAddress,
  type IssuedDocument,
  type NotIssued,
  type Prepared,
  prepareDocument,
  sellerOf,
} from '../../lib/invoices';
import { formatAmount } from '../../lib/money';
import { taxOf } from '../../lib/rent-receipts';
import { chargesVatOn, isRated, type TaxRate, taxCategoryFor } from '../../lib/tax';
import type { TaxCategory } from '../../schema/common/tax';
import type { Payer } from '../../schema/maintenance/db';
import type { Company } from '../../schema/platform/db';

/**
 * A job charge's tax and its tax invoice (issue 35; docs/api-reference.md, "Tax invoices and credit notes", "Job
 * charges"). The cost is what the payer pays, VAT included (as a rent or a fee: lib/rent-receipts.ts `taxOf`).
 */

/** The UN/CPC-based service accounting code of maintenance and repair (docs/pint-ae.md, an assumption of the fixtures' kind). */
export const maintenanceServiceCode = '998719';

/**
 * The category of a charge booked on `day`: none (`out_of_scope`) when the company is not registered for VAT that day
 * (lib/tax.ts `chargesVatOn`, the receipts' rule) or pays the charge itself (its own cost: no supply to anyone); else
 * the charge's own `tax_category`, else the company's for `job_charge` (default standard).
 */
export function chargeCategory(company: Company, payer: Payer, own: TaxCategory | undefined, day: string): TaxCategory {
  if (payer === 'company' || !chargesVatOn(company.settings, day)) return 'out_of_scope';
  return own ?? taxCategoryFor({ kind: 'job_charge', settings: company.settings });
}

/** The tax a charge stores: its category, rate on `day`, and the inclusive split of its cost (409 `tax_rate_missing`). */
export function chargeTax(
  company: Company,
  payer: Payer,
  own: TaxCategory | undefined,
  cost: string,
  rates: readonly TaxRate[],
  day: string,
) {
  return taxOf(chargeCategory(company, payer, own, day), cost, company.currency, rates, day);
}

/** Who a charge's invoice is addressed to (the payer): the owner or the tenant, with their contact's reference, name and TRN. */
export type ChargeBuyer = { label: 'Owner' | 'Tenant'; reference: string; name: string | null; trn: string | null };

/** What a charge's invoice is built from. */
export type ChargeSupply = {
  id: string;
  job: string;
  home: string;
  day: string;
  cost: string;
  tax: { category: TaxCategory; rate: string | null };
  payer: Payer;
  buyer: ChargeBuyer | null;
  address: HomeAddressParts | null;
};

/**
 * The tax invoice of a charge recharged, or `null` when none is due: only a taxable supply (a standard or zero-rated
 * category: Federal Decree-Law No. 8 of 2017, Article 59(1), a tax invoice for a taxable supply) to someone (the owner or
 * the tenant: the company paying itself supplies no one), with a buyer we know. {@link NotIssued} when the company
 * cannot issue (not registered, settings missing, refused by lib/einvoice). An owner's charge is deducted from the
 * owner's money on the statement: paid in full, by UNCL4461 97 "Clearing between partners"; a tenant's is due on the day
 * it is booked, its means of payment not known then (UNCL4461 1, "Instrument not defined").
 */
export function chargeInvoice(company: Company, supply: ChargeSupply): Prepared | NotIssued | null {
  if (supply.payer === 'company' || supply.buyer === null || !isRated(supply.tax.category)) return null;
  const seller = sellerOf(company, supply.day);
  if ('issued' in seller) return seller;
  const { buyer, simplified } = buyerOf({ ...supply.buyer, address: homeAddress(supply.address, seller.address) });
  const owners = supply.payer === 'owner';
  return prepareDocument(
    {
      kind: 'invoice',
      issueDate: supply.day,
      dueDate: owners ? null : supply.day,
      currency: company.currency,
      seller,
      buyer,
      lines: [
        {
          description: `Maintenance and repair, job ${supply.job} (${supply.home})`,
          name: 'Maintenance and repair',
          quantity: '1',
          unitCode: 'C62',
          amount: supply.cost,
          basis: 'inclusive',
          category: supply.tax.category,
          rate: supply.tax.rate,
          serviceCode: maintenanceServiceCode,
        },
      ],
      paid: owners ? formatAmount(supply.cost, company.currency) : null,
      payment: owners ? { code: '97' } : { code: '1' },
    },
    simplified,
  );
}

/**
 * The credit note of a charge cancelled (a mistake: DL8.61.1.A, the supply cancelled, Article 60 of the Decree-Law),
 * crediting its invoice in full (lib/invoices.ts `creditedLines`: the same VAT to the fils), to the same buyer, by the
 * same seller as the invoice (the document it corrects), issued on `day`. An owner's charge cancelled is credited back
 * to the owner's money: paid in full, as its invoice was.
 */
export function chargeCreditNote(invoice: IssuedDocument, day: string): Prepared | NotIssued {
  const document: TaxDocument = invoice.document;
  return prepareDocument(
    {
      kind: 'credit_note',
      issueDate: day,
      currency: document.currency,
      aedRate: document.aedRate ?? null,
      seller: document.seller,
      buyer: document.buyer,
      lines: creditedLines(document),
      paid: new Big(document.totals.paid).gt(0) ? document.totals.gross : null,
      payment: document.payment ?? null,
      credit: { reason: 'DL8.61.1.A', invoice: { number: invoice.number, issueDate: invoice.issue_date } },
    },
    invoice.document.buyer.trn === undefined || invoice.document.buyer.trn === null,
  );
}
