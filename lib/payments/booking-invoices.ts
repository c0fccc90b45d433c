import { sql } from 'kysely';
import type { LineInput, PaymentMeans } from '../einvoice/document';
import { addDays } from '../dates';
import type { CausedBy } from '../events';
import { fromMinorUnits, minorUnits } from '../money';
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
} from '../invoices';
import type { TaxCategory } from '../../schema/common/tax';
import type { CompanySettings } from '../../schema/platform/db';
import type { StoredQuote } from '../../schema/stay/db';

/**
 * A booking's tax invoices and credit notes (issue 35; docs/api-reference.md, "Tax invoices and credit notes",
 * "Bookings"): one tax invoice per payment received (the tax point is the receipt of payment, Federal Decree-Law No. 8
 * of 2017, Articles 25 and 26), issued in the payment's settlement statement (lib/payments/settle.ts); one credit note
 * per refund of an invoiced payment, issued in the refund's statement (lib/payments/refunds.ts).
 *
 * A payment's lines are the booking's lines (its quote's: the stay's nights by category and rate, the cleaning fee, the
 * Tourism Dirham, the refundable security deposit, each with the tax the quote gave it) scaled to the payment's base
 * (what it paid toward what is due), cumulatively: the lines of everything paid so far are each line's share of it
 * rounded down, the largest standard-rated line (the stay) taking what is left, and a payment's lines are the
 * difference with what was paid before it. So each payment's lines add up to its base exactly, and once the booking is
 * paid in full its invoices add up to its lines exactly (VAT included, `basis: 'inclusive'`). The card fee passed on to
 * the guest and the provider's rounding are consideration for the stay: one more line, `Card fee`, in the stay's
 * category and rate.
 */

/** The name of a document's line holding the card fee passed on and the rounding (migration 0047 reads it). */
export const cardFeeLine = 'Card fee';

/** The name of a booking's Tourism Dirham line (a refund's credit note gives it the refund's stored part of the fee). */
export const dirhamLine = 'Tourism Dirham';

/** What a settlement reads for a booking's invoice (null for a rent payment's). */
export type BookingInvoiceRead = {
  company_name: string | null;
  card_fee: string | null;
  rounding: string | null;
  booking_quote: StoredQuote | null;
  booking_check_in: string | null;
  booking_check_out: string | null;
  /** The bases of the booking's other payments received (succeeded or refunded), added up. */
  booking_paid_before: string | null;
  booking_home: HomeAddressParts | null;
};

/** The columns of {@link BookingInvoiceRead}, over a payment `p` and its booking `b` (lib/payments/settle.ts foundJoins). */
export const bookingInvoiceColumns = sql`(select c.name from companies c where c.id = p.company_id) as company_name,
  p.card_fee::text as card_fee, p.rounding::text as rounding, b.quote as booking_quote,
  b.check_in::text as booking_check_in, b.check_out::text as booking_check_out,
  (select coalesce(sum(q.amount - q.card_fee - q.rounding), 0) from payments q where q.booking_id = p.booking_id
    and q.status in ('succeeded', 'refunded') and q.id <> p.id)::text as booking_paid_before,
  ${homeAddressJson(sql`b.listing_id`)} as booking_home`;

/** One line of a booking, its amount in minor units (VAT included). */
type BookingLine = { description: string; name: string; minor: bigint; category: TaxCategory; rate: string | null };

const notIssued = (path: string, code: string, message: string): NotIssued => ({
  issued: false,
  problems: [{ path, code, message }],
});

/** The booking's lines from its quote (null: the quote has no tax, a booking requested before issue 35). */
function bookingLines(quote: StoredQuote, reference: string, checkIn: string, checkOut: string): BookingLine[] | null {
  const { currency } = quote;
  const lines: BookingLine[] = [];
  const stays = new Map<string, BookingLine & { nights: number }>();
  for (const night of quote.nights) {
    if (!night.tax) return null;
    const key = `${night.tax.category}|${night.tax.rate}`;
    const line = stays.get(key) ?? {
      description: '',
      name: 'Stay',
      minor: 0n,
      category: night.tax.category,
      rate: night.tax.rate,
      nights: 0,
    };
    line.minor += BigInt(minorUnits(night.price, currency));
    line.nights += 1;
    stays.set(key, line);
  }
  for (const line of stays.values()) {
    const nights = line.nights === 1 ? '1 night' : `${line.nights} nights`;
    lines.push({ ...line, description: `Holiday-home stay, booking ${reference}, ${checkIn} to ${checkOut} (${nights})` });
  }
  for (const fee of quote.fees) {
    if (!fee.tax) return null;
    const [name, description] =
      fee.code === 'cleaning' ? ['Cleaning', 'Cleaning fee'] : [dirhamLine, 'Tourism Dirham (government fee)'];
    lines.push({
      description: `${description}, booking ${reference}`,
      name,
      minor: BigInt(minorUnits(fee.amount, currency)),
      category: fee.tax.category,
      rate: fee.tax.rate,
    });
  }
  if (minorUnits(quote.deposit, currency) > 0) {
    if (!quote.deposit_tax) return null;
    lines.push({
      description: `Refundable security deposit, booking ${reference}`,
      name: 'Security deposit',
      minor: BigInt(minorUnits(quote.deposit, currency)),
      category: quote.deposit_tax.category,
      rate: quote.deposit_tax.rate,
    });
  }
  return lines;
}

/** The line that takes what rounding leaves: the largest standard-rated line, else the largest. */
function absorberOf(lines: ReadonlyArray<{ minor: bigint; category: TaxCategory }>): number {
  let best = 0;
  lines.forEach((line, i) => {
    const current = lines[best];
    if (!current || i === best) return;
    const standard = line.category === 'standard';
    if (standard !== (current.category === 'standard') ? standard : line.minor > current.minor) best = i;
  });
  return best;
}

/**
 * `paid` of `whole` spread over lines: each line's share rounded down, the absorber taking what is left (so `whole`
 * paid is every line exactly).
 */
function spread(lines: ReadonlyArray<{ minor: bigint }>, absorber: number, paid: bigint, whole: bigint): bigint[] {
  const out = lines.map((line, i) => (i === absorber || whole === 0n ? 0n : (line.minor * paid) / whole));
  out[absorber] = paid - out.reduce((a, b) => a + b, 0n);
  return out;
}

/** A payment's share of `lines`: what the lines of everything paid after it hold less those of what was paid before. */
function shareOf(lines: BookingLine[], before: bigint, base: bigint): bigint[] | null {
  const whole = lines.reduce((a, line) => a + line.minor, 0n);
  if (before + base > whole || base <= 0n) return null;
  const absorber = absorberOf(lines);
  const after = spread(lines, absorber, before + base, whole);
  const earlier = spread(lines, absorber, before, whole);
  const share = after.map((v, i) => v - (earlier[i] ?? 0n));
  return share.some((v) => v < 0n) ? null : share;
}

const lineInput = (line: Omit<BookingLine, 'minor'>, minor: bigint, currency: string): LineInput => ({
  description: line.description,
  name: line.name,
  quantity: '1',
  unitCode: 'C62',
  amount: fromMinorUnits(Number(minor), currency),
  basis: 'inclusive',
  category: line.category,
  rate: line.rate,
});

/** A booking's payment as {@link bookingInvoice} needs it (lib/payments/settle.ts Found). */
export type BookingPaymentOfInvoice = BookingInvoiceRead & {
  id: string;
  amount: string;
  currency: string;
  booking_reference: string | null;
  company_settings: CompanySettings | null;
};

/** A payment toward a booking, as {@link bookingSupplyInvoice} invoices it. */
export type BookingSupply = {
  company: { name: string; settings: CompanySettings };
  quote: StoredQuote | null;
  reference: string;
  checkIn: string;
  checkOut: string;
  home: HomeAddressParts | null;
  /** The bases of what was paid toward the booking before (decimal), and this payment's gross and the card fee and rounding in it. */
  paidBefore: string;
  amount: string;
  extra: string;
  currency: string;
  note: string;
  payment: PaymentMeans;
  /** The tax point: the company's day the payment was received. */
  day: string;
};

/** The tax invoice of one payment toward a booking: its share of the booking's lines, and the card fee's line. */
export function bookingSupplyInvoice(supply: BookingSupply): Prepared | NotIssued {
  const { currency, reference, quote } = supply;
  const seller = sellerOf(supply.company, supply.day);
  if (!('trn' in seller)) return seller;
  const lines = quote && bookingLines(quote, reference, supply.checkIn, supply.checkOut);
  if (!lines)
    return notIssued('booking.quote', 'quote_untaxed', `The booking ${reference} was quoted before amounts had their tax.`);
  const gross = BigInt(minorUnits(supply.amount, currency));
  const extra = BigInt(minorUnits(supply.extra, currency));
  const share = shareOf(lines, BigInt(minorUnits(supply.paidBefore, currency)), gross - extra);
  if (!share)
    return notIssued('payment.amount', 'allocation', `The payment is more than the booking ${reference} has left to pay.`);
  const inputs = lines.flatMap((line, i) => ((share[i] ?? 0n) > 0n ? [lineInput(line, share[i] ?? 0n, currency)] : []));
  const stay = lines[absorberOf(lines)];
  if (extra > 0n && stay) {
    const fee = { description: `Card payment fee and rounding, booking ${reference}`, name: cardFeeLine };
    inputs.push(lineInput({ ...fee, category: stay.category, rate: stay.rate }, extra, currency));
  }
  const { buyer, simplified } = buyerOf({
    label: 'Guest',
    reference,
    name: null,
    trn: null,
    address: homeAddress(supply.home, seller.address),
  });
  return prepareDocument(
    {
      kind: 'invoice',
      issueDate: supply.day,
      currency,
      seller,
      buyer,
      period: { start: supply.checkIn, end: addDays(supply.checkOut, -1) },
      note: supply.note,
      lines: inputs,
      paid: supply.amount,
      payment: supply.payment,
    },
    simplified,
  );
}

/**
 * The tax invoice of a booking's payment received on `day` (the company's day of the settlement, the payment's
 * `booked_on`), ready to issue; {@link NotIssued} when the company does not issue that day (lib/invoices.ts sellerOf),
 * the booking's quote has no tax, or its lines cannot take the payment.
 */
export function bookingInvoice(payment: BookingPaymentOfInvoice, day: string): Prepared | NotIssued {
  const settings = payment.company_settings;
  const [checkIn, checkOut, reference] = [payment.booking_check_in, payment.booking_check_out, payment.booking_reference];
  if (!settings || !checkIn || !checkOut || !reference) return notIssued('booking', 'booking', 'Not a booking’s payment.');
  const extra = fromMinorUnits(
    minorUnits(payment.card_fee ?? '0', payment.currency) + minorUnits(payment.rounding ?? '0', payment.currency),
    payment.currency,
  );
  return bookingSupplyInvoice({
    company: { name: payment.company_name ?? '', settings },
    quote: payment.booking_quote,
    reference,
    checkIn,
    checkOut,
    home: payment.booking_home,
    paidBefore: payment.booking_paid_before ?? '0',
    amount: payment.amount,
    extra,
    currency: payment.currency,
    note: `Payment ${payment.id} of booking ${reference}.`,
    payment: { code: '48' },
    day,
  });
}

/**
 * The tax invoice of a booking's payment received on `day`, issued in the settlement's statement (lib/payments/settle.ts
 * writeSuccess) when the payment moved and its booking still holds its dates (its CTE `sums` has its row): a payment for
 * dates the booking no longer holds is refunded in full, no supply; a company that does not issue that day issues nothing.
 */
export function bookingInvoiceCtes(
  companyId: string,
  day: string,
  payment: BookingPaymentOfInvoice & { booking_id: string | null },
  causedBy: CausedBy,
) {
  const prepared = bookingInvoice(payment, day);
  if (!prepared.issued) return [];
  const source = { kind: 'booking_payment', key: payment.id } as const;
  return [
    issueCtes('invoice', 'sums', { companyId, kind: 'invoice', prepared, source, bookingId: payment.booking_id, causedBy }),
  ];
}

/** What a refund's credit note reads (lib/payments/refunds.ts): the refunded payment's invoice, the company. */
export type BookingRefundRead = {
  company_name: string;
  company_settings: CompanySettings;
  invoice: IssuedDocument | null;
};

/** The columns of {@link BookingRefundRead} over a refund `r` and its company `c`. */
export const bookingRefundColumns = sql`c.name as company_name, c.settings as company_settings,
  (select json_build_object('id', d.id, 'number', d.number, 'issue_date', d.issue_date::text, 'document', d.document)
    from tax_documents d where d.company_id = r.company_id and d.kind = 'invoice' and d.source_kind = 'booking_payment'
      and d.source_key = r.payment_id and r.booking_id is not null) as invoice`;

/**
 * `returned` of a payment's base (`base`, its invoice's lines but the card fee's) over those lines: each its share rounded
 * down, the stay taking what is left; with the refund's Tourism Dirham part (`dirham`), the Tourism Dirham line that
 * part (at most the line) and the other lines the rest.
 */
function baseShares(stays: Array<{ line: LineInput; minor: bigint }>, returned: bigint, base: bigint, dirham: bigint | null) {
  const lines = stays.map((s) => ({ minor: s.minor, category: s.line.category }));
  const at = dirham === null ? -1 : stays.findIndex((s) => s.line.name === dirhamLine);
  const fee = lines[at];
  if (dirham === null || !fee) return spread(lines, absorberOf(lines), returned, base);
  const part = [dirham, fee.minor, returned].reduce((a, b) => (a < b ? a : b));
  const others = lines.filter((_, i) => i !== at);
  const rest = spread(others, absorberOf(others), returned - part, base - fee.minor);
  return lines.map((_, i) => (i === at ? part : (rest[i < at ? i : i - 1] ?? 0n)));
}

/**
 * The credit note of a refund of `amount` accepted on `day`, crediting the refunded payment's invoice (reason
 * DL8.61.1.A: the supply cancelled, Federal Decree-Law No. 8 of 2017, Article 61(1)(a)). Its lines: the whole refund,
 * the invoice's lines ({@link creditedLines}); else, as the journal takes a refund back, the part that returns the
 * payment's base from the stay's lines (each its share rounded down, the stay taking what is left) and the rest from
 * the card fee's line. A refund that stored its Tourism Dirham part (`dirham`, migration 0064) gives the invoice's
 * Tourism Dirham line that part and spreads the rest of what returns base over the other lines. Null when the payment
 * has no invoice.
 */
export function bookingCreditNote(
  read: BookingRefundRead,
  amount: string,
  day: string,
  dirham: string | null = null,
): Prepared | NotIssued | null {
  const invoice = read.invoice;
  if (!invoice) return null;
  const document = invoice.document;
  const { currency } = document;
  const seller = sellerOf({ name: read.company_name, settings: read.company_settings }, day);
  if (!('trn' in seller)) return seller;
  const refund = BigInt(minorUnits(amount, currency));
  const all = creditedLines(document);
  const minorOf = (line: LineInput) => BigInt(minorUnits(line.amount, currency));
  let lines = all;
  if (refund < BigInt(minorUnits(document.totals.gross, currency))) {
    const stays = all.filter((line) => line.name !== cardFeeLine).map((line) => ({ line, minor: minorOf(line) }));
    const fees = all.filter((line) => line.name === cardFeeLine);
    const base = stays.reduce((a, s) => a + s.minor, 0n);
    const returned = refund < base ? refund : base;
    const shares = baseShares(stays, returned, base, dirham === null ? null : BigInt(minorUnits(dirham, currency)));
    lines = stays.flatMap((s, i) =>
      (shares[i] ?? 0n) > 0n ? [{ ...s.line, amount: fromMinorUnits(Number(shares[i]), currency) }] : [],
    );
    const fee = fees[0];
    if (fee && refund > returned) lines.push({ ...fee, amount: fromMinorUnits(Number(refund - returned), currency) });
  }
  return prepareDocument(
    {
      kind: 'credit_note',
      issueDate: day,
      currency,
      seller,
      buyer: document.buyer,
      period: document.period ?? null,
      note: document.note ?? null,
      lines,
      credit: { reason: 'DL8.61.1.A', invoice: { number: invoice.number, issueDate: invoice.issue_date } },
    },
    !document.buyer.trn,
  );
}
