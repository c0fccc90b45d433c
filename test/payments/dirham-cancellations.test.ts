import { afterAll, describe, expect, it } from 'vitest';
import { bookingRow, day } from '../stay/support';
import { invoiceSettings } from '../support/invoices';
import { type StripeStandIn, startStripeStandIn } from '../support/stripe-standin';
import { useWorld } from '../support/world';
import { bookingJournalAccounts, bookingPayments, openStay, stayCtx } from './booking-support';
import {
  cancelLater,
  credited,
  type DirhamWorld,
  feeOf,
  fils,
  monthOf,
  paidStay,
  refundsOfBooking,
  report,
} from './dirham-support';
import { connectStripe } from './support';

/**
 * The Tourism Dirham of a cancelled booking goes back to the guest (issue 37; docs/api-reference.md, "The Tourism
 * Dirham", "Decided: the fee of a cancelled booking"; migration 0064): a late cancellation keeps its policy's share of
 * the stay paid without the fee and refunds the whole fee; the credit notes' Tourism Dirham lines give it back, the
 * owner keeps the kept stay less its VAT, booking receipts end at zero and nothing is owed to DET. A free
 * cancellation still refunds everything. A company registered for VAT (tax invoices and credit notes).
 */
const holder = {} as { stripe: StripeStandIn };
const w = useWorld(async () => {
  holder.stripe = await startStripeStandIn();
  return {
    environment: 'development',
    env: { STRIPE_API_BASE: holder.stripe.url },
    company: { currency: 'AED', time_zone: 'Asia/Dubai' },
    settings: { ...invoiceSettings, accounting_accounts: bookingJournalAccounts },
  };
});
afterAll(() => holder.stripe?.close());

let t: DirhamWorld;
const world = async () => {
  if (t) return t;
  const account = await connectStripe(w, { cardFee: { kind: 'percent', value: '2.5' } });
  t = { w, stripe: holder.stripe, ctx: await stayCtx(w), account, owner: await w.contact({ name: 'Dirham Owner' }) };
  return t;
};

type Line = { name: string; gross: string; vat: string };
const documentsOf = async (bookingId: string) =>
  (await w.api.db
    .selectFrom('tax_documents')
    .select(['kind', 'vat', 'document'])
    .where('booking_id', '=', bookingId)
    .execute()) as unknown as Array<{ kind: string; vat: string; document: { lines: Line[] } }>;
const dirhamOf = (docs: Awaited<ReturnType<typeof documentsOf>>, kind: string) =>
  docs
    .filter((d) => d.kind === kind)
    .flatMap((d) => d.document.lines)
    .filter((l) => l.name === 'Tourism Dirham')
    .reduce((sum, l) => sum + fils(l.gross), 0);

describe('the Tourism Dirham of a cancelled booking', () => {
  it('a late cancellation keeps half of the stay without the fee and refunds the whole fee', async () => {
    const t = await world();
    // A deluxe two-bedroom with a security deposit, three nights from the day after tomorrow (inside the 7 days).
    const stay = await paidStay(t, {
      det: 'deluxe',
      bedrooms: 2,
      price: '433.33',
      deposit: '500.00',
      checkIn: day(2),
      nights: 3,
    });
    const booking = await bookingRow(t.ctx, stay.reference);
    const fee = feeOf([stay]);
    expect(fee).toBe(3 * 2 * 15 * 100);
    const total = fils((booking.quote as { total: string }).total);
    const payments = await bookingPayments(t.ctx, stay.reference);
    const bases = payments.reduce((sum, p) => sum + fils(p.amount) - fils(p.card_fee) - fils(p.rounding), 0);
    expect(bases).toBe(total + 500_00);
    // The stay page's policy says so before the guest cancels.
    const page = await openStay(t.ctx, stay.stay_url);
    expect(page.text).toContain(
      'After that, 50% of the stay’s total paid is refunded (the refundable deposit and the Tourism Dirham in full).',
    );

    await cancelLater(t, stay.reference);
    const refunds = await refundsOfBooking(t, stay.reference);
    expect(refunds).toHaveLength(2);
    // Half of the stay paid without the fee (the kept half rounded down), the whole fee, the security deposit.
    const keptStay = Math.floor(((total - fee) * 50) / 100);
    const refunded = refunds.reduce((sum, r) => sum + fils(r.amount), 0);
    expect(refunded).toBe(total - fee - keptStay + fee + 500_00);
    expect(refunds.reduce((sum, r) => sum + fils(r.tourism_dirham ?? '0'), 0)).toBe(fee);

    // The deposit's payment is all kept but its fee: its refund is the fee alone, out of scope of VAT, which a credit
    // note to a guest cannot be (PINT AE ibr-136-ae), so it has none; the balance's credit note gives back the rest
    // of the invoices' Tourism Dirham lines.
    const [first, second] = payments.map((p) => refunds.find((r) => r.payment_id === p.id));
    expect(fils(first?.amount ?? '0')).toBe(fils(first?.tourism_dirham ?? '-1'));
    const docs = await documentsOf(booking.id);
    expect(docs.filter((d) => d.kind === 'credit_note')).toHaveLength(1);
    expect(dirhamOf(docs, 'invoice')).toBe(fee);
    expect(dirhamOf(docs, 'credit_note')).toBe(fils(second?.tourism_dirham ?? '0'));
    expect(dirhamOf(docs, 'credit_note') + fils(first?.amount ?? '0')).toBe(fee);
    // The owner keeps the kept stay less its VAT (the invoices' less the credit notes', the card fee's apart: the
    // card fee is the payment provider's, not the stay's).
    const vat = docs.reduce(
      (sum, d) =>
        sum +
        (d.kind === 'invoice' ? 1 : -1) *
          d.document.lines.filter((l) => l.name !== 'Card fee').reduce((a, l) => a + fils(l.vat), 0),
      0,
    );
    const lines = await w.api.db
      .selectFrom('owner_statement_lines')
      .select(['kind', 'amount'])
      .where('booking_id', '=', booking.id)
      .execute();
    expect(lines.map((l) => l.kind).sort()).toEqual([
      'booking_received',
      'booking_received',
      'booking_refunded',
      'booking_refunded',
    ]);
    expect(lines.reduce((sum, l) => sum + fils(l.amount), 0)).toBe(keptStay - vat);

    // The journal: owner payable is the owner's lines; booking receipts end at zero; nothing is owed to DET, and the
    // stay's month reports none of it.
    const months = [
      ...new Set([...payments.map((p) => String(p.booked_on)), ...refunds.map((r) => String(r.booked_on)), day(2)]),
    ].map(monthOf);
    expect(await credited(w, months, 'owner_payable')).toBe(keptStay - vat);
    expect(await credited(w, months, 'booking_receipts')).toBe(0);
    expect(await credited(w, months, 'tourism_dirham_payable')).toBe(0);
    expect(fils((await report(w, monthOf(day(2)))).total)).toBe(0);
  });

  it('a free cancellation refunds everything, card fees included', async () => {
    const t = await world();
    const stay = await paidStay(t, { det: 'standard', bedrooms: 1, price: '300.00', deposit: '0', checkIn: day(30), nights: 2 });
    const payments = await bookingPayments(t.ctx, stay.reference);
    await cancelLater(t, stay.reference);
    const refunds = await refundsOfBooking(t, stay.reference);
    expect(refunds.map((r) => [r.payment_id, fils(r.amount)]).sort()).toEqual(payments.map((p) => [p.id, fils(p.amount)]).sort());
    expect(refunds.reduce((sum, r) => sum + fils(r.tourism_dirham ?? '0'), 0)).toBe(feeOf([stay]));
    const docs = await documentsOf((await bookingRow(t.ctx, stay.reference)).id);
    expect(dirhamOf(docs, 'credit_note')).toBe(feeOf([stay]));
  });
});
