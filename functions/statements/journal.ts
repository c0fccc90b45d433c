import Big from 'big.js';
import { sql } from 'kysely';
import type { Executor } from '../../lib/db/index';
import type { LineKind } from '../../schema/statements/db';
import type { DirhamKind } from './journal-dirham';
import { type AccountMap, type JournalAccount, type JournalLine, sideOf } from './journal-accounts';
import type { LineRow } from './statements';
import { type BookingVat, bookingVatColumns, bookingVatLines } from './journal-vat';

/**
 * The accounting journal of a month: one balanced entry per statement line of every owner (a debit and a credit of
 * the line's amount), to the accounts the company maps (setting `accounting_accounts`). The rent the bank feed booked
 * to rent income is moved to what the company owes the owner (owner payable); the fee moves from owner payable to
 * the company's fee income; an owner's maintenance charge from owner payable to maintenance (where the contractor's
 * bill was booked); a booking's receipt from booking receipts (where the guest's payment was held) to owner payable;
 * a bounce, a cancellation or a booking's refund runs the other way. So the month's credits less debits to owner
 * payable are the sum of its statements' `net`, per currency.
 */

/** The account each kind of line moves against owner payable. */
const counterAccount: Record<LineKind, JournalAccount> = {
  rent_received: 'rent_income',
  rent_reversed: 'rent_income',
  fee: 'fees',
  fee_reversed: 'fees',
  job_charge: 'maintenance',
  job_charge_cancelled: 'maintenance',
  rent_vat: 'vat_payable',
  rent_vat_reversed: 'vat_payable',
  // The payment's base (what the guest paid less the card fee and rounding) is held in booking receipts (the payment's
  // entry) until the owner's line moves it to owner payable; a refund's line moves back what the refund's entry then
  // pays out of booking receipts (least(refund, base)).
  booking_received: 'booking_receipts',
  booking_refunded: 'booking_receipts',
};

export const kindLabels: Record<LineKind, string> = {
  rent_received: 'Rent received',
  fee: 'Management fee',
  rent_reversed: 'Rent reversed (bounced)',
  fee_reversed: 'Management fee reversed (bounced)',
  job_charge: 'Maintenance charge',
  job_charge_cancelled: 'Maintenance charge cancelled',
  rent_vat: 'VAT on rent',
  rent_vat_reversed: 'VAT on rent reversed (bounced)',
  booking_received: 'Booking received',
  booking_refunded: 'Booking refunded',
};

/**
 * An online payment's entry: applied to a rent payment's receipt, or not (the rent was received before: refund due), or
 * a booking's deposit or balance; a refund made through the provider.
 */
export type PaymentKind = 'online_payment' | 'online_payment_unapplied' | 'booking_payment' | 'online_refund';
/** A booking staff marked paid: its invoice's VAT out of booking receipts (journal-vat.ts offlineBookingEntry). */
type OfflineKind = 'booking_paid_offline';
export const paymentKindLabels: Record<PaymentKind, string> = {
  online_payment: 'Rent paid online',
  online_payment_unapplied: 'Paid online, not applied (rent already received): refund due',
  booking_payment: 'Booking paid online',
  online_refund: 'Refunded online',
};
const paymentKinds = new Set<string>(Object.keys(paymentKindLabels));

/** Whether an entry is an online payment's or refund's (its month needs the payments' accounts). */
export const isPaymentEntry = (entry: { kind: string }) => paymentKinds.has(entry.kind);
/** Whether an entry is a booking's payment, refund or statement line (its month needs `booking_receipts` too). */
export const isBookingEntry = (entry: { kind: string; booking?: string | null }) =>
  entry.kind === 'booking_payment' ||
  entry.kind === 'booking_received' ||
  entry.kind === 'booking_refunded' ||
  entry.kind === 'booking_paid_offline' ||
  entry.kind === 'tourism_dirham' ||
  (entry.kind === 'online_refund' && (entry.booking ?? null) !== null);

/** Lines whose VAT is split to `vat_payable`, their net's account: a fee's, a job charge's (migration 0048); see vatBooked. */
const vatSplit: Partial<Record<LineKind, JournalAccount>> = {
  fee: 'fees',
  fee_reversed: 'fees',
  job_charge: 'maintenance',
  job_charge_cancelled: 'maintenance',
};
export const vatBooked = new Set<LineKind>([...(Object.keys(vatSplit) as LineKind[]), 'rent_vat', 'rent_vat_reversed']);
/** Whether an entry books VAT (a line to `vat_payable`): its month needs `vat_payable` mapped. */
export const isVatEntry = (entry: { lines: JournalLine[] }) =>
  entry.lines.some((line) => line.account === 'vat_payable' && !(new Big(line.debit).eq(0) && new Big(line.credit).eq(0)));
export type JournalEntry = Omit<LineRow, 'kind'> & {
  kind: LineKind | PaymentKind | OfflineKind | DirhamKind;
  owner: string | null;
  /** The booking's reference of a booking's payment or refund (not in the JSON: its narration names it). */
  booking?: string | null;
  number: string;
  narration: string;
  lines: JournalLine[];
};

/**
 * A line's balanced entry: owner payable on one side, the kind's account on the other. A fee's or a job charge's VAT
 * (the line's `vat`, issue 35) is split from it: its net to fees or maintenance, its VAT to VAT payable.
 */
export function entryOf(line: LineRow & { owner: string }, accounts: AccountMap): JournalEntry {
  const amount = new Big(line.amount);
  const onSide = sideOf(accounts, line.currency);
  // Positive: the company owes the owner more (credit owner payable); negative: less.
  const owes = amount.gte(0);
  const number = `OS-${line.id}`;
  const about = line.lease ?? line.job ?? (line.booking === null ? line.home : `booking ${line.booking}`);
  const split = vatSplit[line.kind];
  const vat = split !== undefined && line.vat !== null ? new Big(line.vat) : new Big(0);
  const counter =
    split === undefined || vat.eq(0)
      ? [onSide(counterAccount[line.kind], owes, amount)]
      : [onSide(split, owes, amount.minus(vat)), onSide('vat_payable', owes, vat)];
  // Every field named, not `...line`: a spread row then three more properties gave each entry a hidden class of its own
  // (989 of 1,000 in a batch), each allocated in V8's old space, so the journal's heap grew with the month (issue 39).
  return {
    id: line.id,
    kind: line.kind,
    day: line.day,
    amount: line.amount,
    currency: line.currency,
    lease: line.lease,
    home: line.home,
    payment_id: line.payment_id,
    charge_id: line.charge_id,
    job: line.job,
    method: line.method,
    online_payment: line.online_payment,
    vat: line.vat,
    tax_category: line.tax_category,
    rent_vat_accounted_by: line.rent_vat_accounted_by,
    booking: line.booking,
    refund: line.refund,
    owner: line.owner,
    number,
    narration: `${number} ${kindLabels[line.kind]} ${about} (${line.home}) owner ${line.owner}`,
    lines: [...counter, onSide('owner_payable', !owes, amount)],
  };
}

/** An online payment as its entry reads it (migration 0036, 0039): its record and, when applied, its receipt's line. */
type PaymentRead = {
  entry_number: string;
  id: string;
  day: string;
  currency: string;
  amount: string;
  /** What the payer paid less the card fee passed on and the provider's rounding (`amount - card_fee - rounding`). */
  base: string;
  fee: string | null;
  provider: string;
  method: string | null;
  rent_payment_id: string | null;
  /** The booking's reference, and its purpose (`booking_deposit`, `booking_balance`), of a booking's payment. */
  booking: string | null;
  purpose: string;
  /** The receipt's line it made (null: not applied). */
  rent: string | null;
  owner: string | null;
  lease: string | null;
  home: string | null;
} & BookingVat;

/** The online payments a company's settlements booked in [from, to] (one currency's, when given). */
export async function bookedPayments(db: Executor, companyId: string, from: string, to: string, currency: string | undefined) {
  const { rows } = await sql<PaymentRead>`
    select p.entry_number::text as entry_number, p.id, p.booked_on::text as day, p.currency, p.amount::text as amount,
      (p.amount - p.card_fee - p.rounding)::text as base, p.fee::text as fee, p.provider, p.method, p.rent_payment_id, b.reference as booking, p.purpose,
      l.amount::text as rent, o.reference as owner, le.reference as lease, coalesce(l.home, bl.slug_en) as home,
      ${bookingVatColumns('invoice', 'p')}
    from payments p
    left join bookings b on b.id = p.booking_id
    left join listings bl on bl.id = b.listing_id
    left join owner_statement_lines l on l.online_payment_id = p.id and l.kind = 'rent_received'
    left join contacts o on o.id = l.owner_id
    left join leases le on le.id = l.lease_id
    where p.company_id = ${companyId}::uuid and p.booked_on >= ${from}::date and p.booked_on <= ${to}::date
      and p.status in ('succeeded', 'refunded') ${currency === undefined ? sql`` : sql`and p.currency = ${currency}`}
    order by p.booked_on, p.entry_number`.execute(db);
  return rows;
}

/**
 * An online payment's balanced entry (docs/api-reference.md, "The accounting journal"): the gross the payer paid to
 * the provider's clearing account; against it the rent received (rent income, which the receipt's own entry moves to
 * owner payable) or a booking's base (booking receipts, which the booking's `booking_received` line moves to owner
 * payable), and what the payer paid beyond them (the card fee passed on and the provider's rounding) as a recovery of
 * payment fees, which the company bears; or, not applied (the rent was received before), the whole gross owed back to
 * the payer; then the provider's fee, when it said it, from clearing to payment fees. What stays in clearing is the payout (`net`),
 * which the company's bank feed books from clearing to the bank.
 */
export function paymentEntryOf(payment: PaymentRead, accounts: AccountMap): JournalEntry {
  const side = sideOf(accounts, payment.currency);
  const gross = new Big(payment.amount);
  const applied = payment.rent !== null;
  const booking = payment.booking !== null;
  const lines: JournalLine[] = [side('payment_clearing', true, gross)];
  if (booking) {
    // The booking's base is held for the guest's booking (and is what the owner's line receives); the card fee passed
    // on and the rounding pay the provider's fee, as a rent payment's do; its tax invoice's VAT to VAT payable.
    const base = new Big(payment.base);
    lines.push(...bookingVatLines(payment, base, gross.minus(base), (account, amount) => side(account, false, amount)));
  } else if (applied) {
    const rent = new Big(payment.rent as string);
    lines.push(side('rent_income', false, rent));
    if (gross.gt(rent)) lines.push(side('payment_fees', false, gross.minus(rent)));
  } else {
    lines.push(side('refunds_due', false, gross));
  }
  if (payment.fee !== null && new Big(payment.fee).gt(0)) {
    lines.push(side('payment_fees', true, payment.fee), side('payment_clearing', false, payment.fee));
  }
  const kind: PaymentKind = booking ? 'booking_payment' : applied ? 'online_payment' : 'online_payment_unapplied';
  const number = `OP-${payment.entry_number}`;
  const how = `${payment.provider}${payment.method ? ` ${payment.method}` : ''}`;
  const what = payment.purpose === 'booking_deposit' ? 'deposit' : 'balance';
  const about = booking
    ? ` booking ${payment.booking} ${what} (${payment.home})`
    : applied
      ? ` ${payment.lease} (${payment.home}) owner ${payment.owner}`
      : '';
  return {
    id: payment.entry_number,
    kind,
    day: payment.day,
    amount: payment.amount,
    currency: payment.currency,
    lease: payment.lease,
    home: payment.home ?? '',
    payment_id: payment.rent_payment_id,
    charge_id: null,
    job: null,
    method: payment.method ?? 'online',
    online_payment: payment.id,
    owner: payment.owner,
    booking: payment.booking,
    vat: null,
    tax_category: null,
    rent_vat_accounted_by: null,
    refund: null,
    number,
    narration: `${number} ${paymentKindLabels[kind]} ${payment.id} (${how})${about}`,
    lines,
  };
}

/** A refund through the provider as its entry reads it (migrations 0037, 0040), with what its payment's entry credited. */
type RefundRead = {
  entry_number: string;
  id: string;
  day: string;
  currency: string;
  amount: string;
  payment_id: string;
  /** The refunded payment's base (`amount - card_fee - rounding`). */
  base: string;
  provider: string;
  rent_payment_id: string | null;
  booking: string | null;
  home: string | null;
} & BookingVat;

/** The refunds a company's provider accepted (`booked_on`) in [from, to] (one currency's, when given). */
export async function bookedRefunds(db: Executor, companyId: string, from: string, to: string, currency: string | undefined) {
  const { rows } = await sql<RefundRead>`
    select r.entry_number::text as entry_number, r.id, r.booked_on::text as day, r.currency, r.amount::text as amount,
      r.payment_id, (p.amount - p.card_fee - p.rounding)::text as base, p.provider, p.rent_payment_id, b.reference as booking, bl.slug_en as home,
      ${bookingVatColumns('credit_note', 'r')}
    from payment_refunds r
    join payments p on p.id = r.payment_id
    left join bookings b on b.id = p.booking_id
    left join listings bl on bl.id = b.listing_id
    where r.company_id = ${companyId}::uuid and r.status = 'succeeded'
      and r.booked_on >= ${from}::date and r.booked_on <= ${to}::date
      ${currency === undefined ? sql`` : sql`and r.currency = ${currency}`}
    order by r.booked_on, r.entry_number`.execute(db);
  return rows;
}

/**
 * A refund's balanced entry, on the day the provider accepted it (`booked_on`): what its payment's entry credited is
 * debited by the refund's amount — a booking's payment's `booking_receipts` by the part that returns the payment's
 * base (least(refund, base), what the owner's `booking_refunded` line takes back) and `payment_fees` by the rest (a
 * refund of the whole charged amount returns the card fee and rounding too); any other payment's (a rent payment's,
 * applied or not) `refunds_due` — and the provider's clearing account credited. A rent payment's receipt is never
 * taken back here: the owner's money moves only by statement lines (a reversal is staff's, `rent_reversed`), so rent
 * income is left alone (docs/api-reference.md, "The accounting journal"). A rent payment is refunded (in full) when it
 * came after its rent was received (`online_payment_unapplied`): the refund empties what that entry put in refunds due.
 */
export function refundEntryOf(refund: RefundRead, accounts: AccountMap): JournalEntry {
  const side = sideOf(accounts, refund.currency);
  const booking = refund.booking !== null;
  const number = `RF-${refund.entry_number}`;
  const about = booking ? ` booking ${refund.booking} (${refund.home})` : '';
  const amount = new Big(refund.amount);
  const base = new Big(refund.base);
  const returned = amount.gt(base) ? base : amount;
  // A booking's: its credit note's VAT back out of VAT payable (migration 0047).
  const debits = booking
    ? bookingVatLines(refund, returned, amount.minus(returned), (account, size) => side(account, true, size))
    : [side('refunds_due', true, amount)];
  return {
    id: refund.entry_number,
    kind: 'online_refund',
    day: refund.day,
    amount: refund.amount,
    currency: refund.currency,
    lease: null,
    home: refund.home ?? '',
    payment_id: refund.rent_payment_id,
    charge_id: null,
    job: null,
    method: 'online',
    online_payment: refund.payment_id,
    owner: null,
    booking: refund.booking,
    vat: null,
    tax_category: null,
    rent_vat_accounted_by: null,
    refund: refund.id,
    number,
    narration: `${number} ${paymentKindLabels.online_refund} ${refund.id} of ${refund.payment_id} (${refund.provider})${about}`,
    lines: [...debits, side('payment_clearing', false, amount)],
  };
}
