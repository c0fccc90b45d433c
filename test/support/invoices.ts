import { sql } from 'kysely';
import type { Db } from '../../lib/db/index';
import type { Seller } from '../../lib/einvoice/document';
import { issueCtes, type Prepared, prepareDocument } from '../../lib/invoices';
import { writeStatement } from '../../lib/write';

/**
 * What the tests of tax invoices share (issue 35): the company settings an invoice needs (docs/api-reference.md, "Tax
 * invoices and credit notes") beside a TRN of the published shape and a registration day; and a document issued by
 * lib/invoices.ts itself, for the tests of what reads documents whatever issued them (routes, numbering, the hand-off).
 */
export const invoiceSettings = {
  trn: '100123456700003',
  vat_registered_on: '2018-01-01',
  legal_name: 'Marina Homes Property Management L.L.C.',
  address: { line1: 'Office 1204, Marina Plaza, Dubai Marina', city: 'Dubai', emirate: 'DXB' as const },
  trade_licence: { number: 'DED-774512', authority: 'Dubai Economy and Tourism' },
};

/** The seller {@link invoiceSettings} make (as lib/invoices.ts `sellerOf` reads them) for a company named `name`. */
export function testSeller(name: string): Seller {
  const { address, trade_licence } = invoiceSettings;
  return {
    name,
    legalName: invoiceSettings.legal_name,
    trn: invoiceSettings.trn,
    address: { line1: address.line1, city: address.city, subdivision: address.emirate, country: 'AE' },
    registration: { id: trade_licence.number, type: 'TL', authority: trade_licence.authority },
  };
}

/** A simplified invoice of a management fee of `amount` AED (VAT included, 5 %) to the owner `reference`, on `day`. */
export function feeDocument(seller: Seller, amount: string, reference = 'P-TEST', day = '2027-02-03'): Prepared {
  const prepared = prepareDocument(
    {
      kind: 'invoice',
      issueDate: day,
      currency: 'AED',
      seller,
      buyer: {
        name: `Owner ${reference}`,
        reference,
        address: { line1: 'Marina Gate 1', city: 'Dubai', subdivision: 'DXB', country: 'AE' },
      },
      lines: [
        {
          description: 'Management fee, February 2027',
          name: 'Management fee',
          quantity: '1',
          unitCode: 'C62',
          amount,
          basis: 'inclusive',
          category: 'standard',
          rate: '5',
          serviceCode: '997221',
        },
      ],
      paid: amount,
      payment: { code: '20' },
    },
    true,
  );
  if (!prepared.issued) throw new Error(JSON.stringify(prepared.problems));
  return prepared;
}

/**
 * Issues `prepared` for the company in one statement, as an owner's fees (source key `key`); `fail` makes the statement
 * fail after the issue (its number must come back). Answers the number.
 */
export async function issueDocument(db: Db, companyId: string, prepared: Prepared, key: string, fail = false) {
  const { rows } = await writeStatement(
    [
      sql`happened as (select 1 as one)`,
      issueCtes('issued', 'happened', {
        companyId,
        kind: 'invoice',
        prepared,
        source: { kind: 'statement_fees', key },
        causedBy: 'system',
      }),
    ],
    fail ? sql`select 1 / 0 as failed from issued_doc` : sql`select number from issued_doc`,
  ).execute(db);
  return (rows[0] as { number: string }).number;
}
