import { describe, expect, it } from 'vitest';
import { setUpkeep } from '../maintenance/support';
import { stays } from '../stay/support';
import { world } from '../support/world';
import {
  bookedHome,
  bookingJournalAccounts,
  bookingPayments,
  cancelForm,
  connectStripe,
  payForm,
  payNow,
  stayCtx,
  useBookingPaymentsWorld,
} from './booking-support';
import { deliverEvent } from './support';

/**
 * A holiday home's bookings on its owner's statement (issue 34; migration 0041; docs/api-reference.md, "Owner statements
 * and the accounting journal"): to the home's owner as a job charge is (the owner its maintenance settings name here),
 * none when the home has no owner; a refund reverses the line to whom it was booked; a payment settled after its month
 * closed books on the settlement's day, as a late rent receipt; the printable page names the new kinds in English and
 * Arabic.
 */
const t = useBookingPaymentsWorld();
const nights = stays(60);
const deposit = {
  booking_deposit_percent: 30,
  deposit_confirms: true,
  free_cancellation_days: 7,
  late_cancellation_refund_percent: 50,
};

const accounting_accounts = bookingJournalAccounts;

/** An AED company whose Stripe account passes a 2.5% card fee on (480.00 due is charged 492.00). */
async function company() {
  const w = await world({ api: t.w.api, company: { environment: 'development' }, settings: { accounting_accounts } });
  return { w, ctx: await stayCtx(w), account: await connectStripe(w, { cardFee: { kind: 'percent', value: '2.5' } }) };
}

const linesOf = (w: Awaited<ReturnType<typeof company>>['w'], paymentId: string) =>
  w.api.db.selectFrom('owner_statement_lines').selectAll().where('online_payment_id', '=', paymentId).orderBy('id').execute();

async function statement(w: Awaited<ReturnType<typeof company>>['w'], owner: string, month: string) {
  const { data, error } = await w.client.GET('/api/v1/owner-statements', { params: { query: { owner, month } } });
  if (!data) throw new Error(JSON.stringify(error));
  return data;
}

describe('a booking’s lines on the home owner’s statement', () => {
  it('writes none for a home with no owner: the payment and its refund stay in the journal only', async () => {
    const { w, ctx, account } = await company();
    const { booking } = await bookedHome(ctx, deposit, nights(2), '800.00');
    const paid = await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    const cancelled = await cancelForm(ctx, booking.stay_url);
    expect(cancelled.status, cancelled.text).toBe(303);
    const [row] = await bookingPayments(ctx, booking.reference);
    expect(row).toMatchObject({ id: paid.id, status: 'refunded' });
    expect(await linesOf(w, paid.id)).toEqual([]);
    const month = String(row?.booked_on).slice(0, 7);
    const { data } = await w.client.GET('/api/v1/exports/journal', { params: { query: { month } } });
    const entries = (data as unknown as { entries: Array<{ kind: string; online_payment: string | null }> }).entries;
    const kinds = entries.filter((e) => e.online_payment === paid.id).map((e) => e.kind);
    expect(kinds.sort()).toEqual(['booking_payment', 'online_refund']);
    await w.close();
  });

  it('reverses a refund to the owner the payment was booked to, though the home changed hands since', async () => {
    const { w, ctx, account } = await company();
    const [first, second] = [await w.contact({ name: 'First Owner' }), await w.contact({ name: 'Second Owner' })];
    const { home, booking } = await bookedHome(ctx, deposit, nights(2), '800.00');
    expect((await setUpkeep(w, home, { owner: first })).response.status).toBe(200);
    const paid = await payNow(ctx, t.stripe, w, account, booking.stay_url, booking.reference);
    expect((await setUpkeep(w, home, { owner: second })).response.status).toBe(200);
    const cancelled = await cancelForm(ctx, booking.stay_url);
    expect(cancelled.status, cancelled.text).toBe(303);
    const refund = await w.api.db
      .selectFrom('payment_refunds')
      .selectAll()
      .where('payment_id', '=', paid.id)
      .executeTakeFirstOrThrow();
    const day = refund.booked_on as string;
    // Cancelled in the free days: the whole charge is refunded, the card fee too; the owner's lines hold the base only
    // (the card fee pays the provider's fee, which the company bears).
    const [row] = await bookingPayments(ctx, booking.reference);
    const two = (v: unknown) => Number(v).toFixed(2);
    expect([row?.amount, row?.card_fee, row?.rounding].map(two)).toEqual(['492.00', '12.00', '0.00']);
    expect(two(refund.amount)).toBe('492.00');
    const mine = await statement(w, first, day.slice(0, 7));
    expect(mine.lines.map((l) => [l.kind, l.amount, l.online_payment, l.booking, l.refund])).toEqual([
      ['booking_received', '480.00', paid.id, booking.reference, null],
      ['booking_refunded', '-480.00', paid.id, booking.reference, refund.id],
    ]);
    expect(mine.totals).toEqual([
      expect.objectContaining({ currency: 'AED', bookings_received: '480.00', bookings_refunded: '480.00', net: '0.00' }),
    ]);
    expect((await statement(w, second, day.slice(0, 7))).lines).toEqual([]);
    // The journal: the payment's base to booking receipts and the card fee to payment fees; the refund takes the base
    // back out of booking receipts and the card fee out of payment fees.
    const entriesOf = async (month: string) => {
      const { data } = await w.client.GET('/api/v1/exports/journal', { params: { query: { month } } });
      type Entry = {
        kind: string;
        online_payment: string | null;
        lines: Array<{ account: string; debit: string; credit: string }>;
      };
      return (data as unknown as { entries: Entry[] }).entries.filter((e) => e.online_payment === paid.id);
    };
    const entries = [
      ...(await entriesOf(String(row?.booked_on).slice(0, 7))),
      ...(String(row?.booked_on).slice(0, 7) === day.slice(0, 7) ? [] : await entriesOf(day.slice(0, 7))),
    ];
    const linesOfKind = (kind: string) => entries.find((e) => e.kind === kind)?.lines.map((l) => [l.account, l.debit, l.credit]);
    expect(linesOfKind('booking_payment')?.slice(0, 3)).toEqual([
      ['payment_clearing', '492.00', '0.00'],
      ['booking_receipts', '0.00', '480.00'],
      ['payment_fees', '0.00', '12.00'],
    ]);
    expect(linesOfKind('online_refund')).toEqual([
      ['booking_receipts', '480.00', '0.00'],
      ['payment_fees', '12.00', '0.00'],
      ['payment_clearing', '0.00', '492.00'],
    ]);
    // The lines never change.
    const [line] = await linesOf(w, paid.id);
    await expect(
      w.api.db
        .updateTable('owner_statement_lines')
        .set({ home: 'changed' })
        .where('id', '=', line?.id as string)
        .execute(),
    ).rejects.toThrow(/never changes/);
    await w.close();
  });

  it('books a payment settled after its month closed on the settlement’s day; the closed month keeps no line', async () => {
    const { w, ctx, account } = await company();
    const owner = await w.contact({ name: 'Villa Owner' });
    const { home, booking } = await bookedHome(ctx, deposit, nights(2), '800.00');
    expect((await setUpkeep(w, home, { owner })).response.status).toBe(200);
    const form = await payForm(ctx, booking.stay_url);
    expect(form.status, form.text).toBe(303);
    const [open] = await bookingPayments(ctx, booking.reference);
    if (!open) throw new Error('no checkout');
    const createPaymentAt = w.api.clock.now();
    t.stripe.pay(open.checkout_id, { at: createPaymentAt });
    // Stripe's webhook never came; the next is 70 days later (the month it was paid has closed by then).
    const later = new Date(createPaymentAt.getTime() + 70 * 86_400_000);
    w.api.clock.set(later);
    try {
      const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', open.checkout_id);
      expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
      const paid = (await bookingPayments(ctx, booking.reference))[0];
      const paidMonth = new Date(paid?.paid_at as Date).toISOString().slice(0, 7);
      const bookedOn = paid?.booked_on as string;
      expect(bookedOn.slice(0, 7)).not.toBe(paidMonth);
      const closed = await statement(w, owner, paidMonth);
      expect(closed).toMatchObject({ status: 'closed', lines: [] });
      const now = await statement(w, owner, bookedOn.slice(0, 7));
      expect(now.lines.map((l) => [l.kind, l.day, l.amount])).toEqual([['booking_received', bookedOn, '480.00']]);

      // The printable page shows the kinds in English and Arabic, with the booking's reference and amounts.
      for (const [language, received, refunded] of [
        ['en', 'Booking received (guest paid online)', 'Bookings refunded'],
        ['ar', 'دفعة حجز مستلمة (دفعها الضيف إلكترونياً)', 'دفعات الحجوزات المستردة'],
      ] as const) {
        const { data: link } = await w.client.POST('/api/v1/owner-statements/links', {
          body: { owner, month: bookedOn.slice(0, 7), language },
        });
        // raw: the statement's HTML page, a path the API document does not declare
        const page = await w.api.request(new URL(link?.url as string).pathname, { host: w.company.host });
        expect(page.status).toBe(200);
        for (const text of [received, refunded, booking.reference, 'data-kind="booking_received"', 'data-amount="480.00"'])
          expect(page.text).toContain(text);
        expect(page.text).toContain('data-total="bookings_refunded"');
      }

      // QuickBooks' import carries each line's entry, booking receipts against owner payable.
      const { data: csv } = await w.client.GET('/api/v1/exports/journal', {
        params: { query: { month: bookedOn.slice(0, 7), format: 'quickbooks' } },
        parseAs: 'text',
      });
      expect(String(csv)).toContain('Booking received');
      expect(String(csv)).toContain(`booking ${booking.reference}`);
      // Xero's rows of the line's entry name the booking in their Description too.
      const { data: xero } = await w.client.GET('/api/v1/exports/journal', {
        params: { query: { month: bookedOn.slice(0, 7), format: 'xero' } },
        parseAs: 'text',
      });
      const rows = String(xero)
        .split('\r\n')
        .filter((r) => /^OS-\d+ Booking received/.test(r));
      expect(rows).toHaveLength(2);
      for (const r of rows) expect(r.split(',')[2]).toContain(booking.reference);
    } finally {
      w.api.clock.set(null);
    }
    await w.close();
  });
});
