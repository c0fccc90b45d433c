import Big from 'big.js';
import { sql } from 'kysely';
import type { Executor } from '../../lib/db/index';

/**
 * A booking's VAT in the accounting journal (issue 35; docs/api-reference.md, "Tax invoices and credit notes",
 * "Bookings"; migration 0047): the `booking_payment` and `online_refund` entries (journal.ts) book the VAT of the
 * payment's tax invoice and of the refund's credit note to `vat_payable`.
 */

/**
 * The VAT of a booking's payment's tax invoice or of its refund's credit note (lib/payments/booking-invoices.ts,
 * migration 0047): all of it (`vat`, null: no document) and its stay lines' (`stay_vat`: the rest is the card fee's).
 */
export type BookingVat = { vat: string | null; stay_vat: string | null };
export const bookingVatColumns = (kind: 'invoice' | 'credit_note', of: 'p' | 'r') => {
  const [company, key] = [sql.ref(`${of}.company_id`), sql.ref(`${of}.id`)];
  return sql`(select d.vat::text from tax_documents d where d.company_id = ${company} and d.kind = ${kind}
      and d.source_kind = 'booking_payment' and d.source_key = ${key}) as vat,
    booking_document_stay_vat(${company}, ${kind}, ${key})::text as stay_vat`;
};

/**
 * A booking's VAT (issue 35) taken out of what its entry credits to booking receipts (`base`) and to payment fees
 * (`fees`): the stay lines' VAT from the first, the card fee's from the second, all of it to VAT payable.
 */
function bookingVatSplit(read: BookingVat, base: Big, fees: Big) {
  const vat = new Big(read.vat ?? 0);
  const stay = new Big(read.stay_vat ?? 0);
  return { vat, base: base.minus(stay), fees: fees.minus(vat.minus(stay)) };
}

/**
 * An entry's lines of a booking's payment (credits) or refund (debits) through `post`: booking receipts, then payment
 * fees and VAT payable when above zero.
 */
export function bookingVatLines<T>(
  read: BookingVat,
  base: Big,
  fees: Big,
  post: (account: 'booking_receipts' | 'payment_fees' | 'vat_payable', amount: Big) => T,
): T[] {
  const split = bookingVatSplit(read, base, fees);
  return [
    post('booking_receipts', split.base),
    ...(split.fees.gt(0) ? [post('payment_fees', split.fees)] : []),
    ...(split.vat.gt(0) ? [post('vat_payable', split.vat)] : []),
  ];
}

/** Whether a booking's payment or refund of `reads` books VAT (its month needs `vat_payable` mapped). */
export const booksVat = (reads: BookingVat[]) => reads.some((read) => read.vat !== null && new Big(read.vat).gt(0));

/**
 * A booking staff marked paid (the guest paid outside the API, migration 0051): its tax invoice, as its entry reads it.
 * The money went where the company's bank feed books it (booking receipts, as a booking's payment online is held);
 * the entry `booking_paid_offline` moves the invoice's VAT out of booking receipts to VAT payable.
 */
export type OfflineBookingVatRead = {
  id: string;
  number: string;
  day: string;
  currency: string;
  vat: string;
  booking: string;
  home: string;
};

/** The invoices of bookings staff marked paid, issued in [from, to] with VAT (one currency's, when given). */
export async function offlineBookingVat(db: Executor, companyId: string, from: string, to: string, currency?: string) {
  const { rows } = await sql<OfflineBookingVatRead>`
    select d.id, d.number, d.issue_date::text as day, d.currency, d.vat::text as vat, b.reference as booking,
      l.slug_en as home
    from tax_documents d join bookings b on b.id = d.booking_id join listings l on l.id = b.listing_id
    where d.company_id = ${companyId}::uuid and d.kind = 'invoice' and d.source_kind = 'booking_offline'
      and d.issue_date >= ${from}::date and d.issue_date <= ${to}::date and d.vat > 0
      ${currency === undefined ? sql`` : sql`and d.currency = ${currency}`}
    order by d.issue_date, d.number`.execute(db);
  return rows;
}

/** The fields of a `booking_paid_offline` entry (journal.ts adds its kind), its lines through `post`. */
export function offlineBookingEntry<T>(
  read: OfflineBookingVatRead,
  post: (account: 'booking_receipts' | 'vat_payable', debit: boolean, amount: Big) => T,
) {
  const vat = new Big(read.vat);
  const number = `BO-${read.number}`;
  return {
    id: read.id,
    day: read.day,
    amount: read.vat,
    currency: read.currency,
    lease: null,
    home: read.home,
    payment_id: null,
    charge_id: null,
    job: null,
    method: null,
    online_payment: null,
    owner: null,
    booking: read.booking,
    vat: read.vat,
    tax_category: null,
    rent_vat_accounted_by: null,
    refund: null,
    number,
    narration: `${number} Booking paid offline, VAT of invoice ${read.number}: booking ${read.booking} (${read.home})`,
    lines: [post('booking_receipts', true, vat), post('vat_payable', false, vat)],
  };
}
