import { afterAll, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { statementJobs } from '../../functions/statements/jobs';
import { bookingRow, day } from '../stay/support';
import { type StripeStandIn, startStripeStandIn } from '../support/stripe-standin';
import { useWorld } from '../support/world';
import { bookingJournalAccounts, bookingPayments, stayCtx } from './booking-support';
import {
  credited,
  type DirhamWorld,
  feeOf,
  fils,
  monthOf,
  nextMonth,
  paidStay,
  refundsOfBooking,
  report,
  type Stay,
} from './dirham-support';
import { connectStripe } from './support';

/**
 * The Tourism Dirham is never the owner's (issue 37; docs/api-reference.md, "The Tourism Dirham"; migration 0063): a
 * classed home's booking paid online (a deposit, then the balance) credits its owner with what the guest paid less
 * the fee, the journal's owner payable is the statement's, and the fee ends in `tourism_dirham_payable` alone
 * (booking receipts back at zero); the scheduled work that closes the month records its report, which a booking
 * changed afterwards does not change. Its own database: the scheduled work scans every company.
 */
const holder = {} as { stripe: StripeStandIn };
const w = useWorld(async () => {
  holder.stripe = await startStripeStandIn();
  return {
    environment: 'development',
    ownDatabase: true,
    env: { STRIPE_API_BASE: holder.stripe.url },
    company: { currency: 'AED', time_zone: 'Asia/Dubai' },
    settings: { accounting_accounts: bookingJournalAccounts },
  };
});
afterAll(() => holder.stripe?.close());

// The stays' month (M), well ahead, and the one after it, when M has closed (5 grace days).
const m = monthOf(day(75));
const m1 = nextMonth(m);

const stays: Stay[] = [];
let t: DirhamWorld;

describe('the Tourism Dirham off the owner’s statement', () => {
  it('credits the owner with the payments less the fee; the journal agrees and holds the fee for DET', async () => {
    const account = await connectStripe(w, { cardFee: { kind: 'percent', value: '2.5' } });
    const owner = await w.contact({ name: 'Classed Homes Owner' });
    t = { w, stripe: holder.stripe, ctx: await stayCtx(w), account, owner };
    // A deluxe three-bedroom with a security deposit (the fee's share of each payment is not a round number), and a
    // standard studio (one bedroom).
    stays.push(
      await paidStay(t, { det: 'deluxe', bedrooms: 3, price: '433.33', deposit: '750.00', checkIn: `${m}-03`, nights: 4 }),
    );
    stays.push(await paidStay(t, { det: 'standard', bedrooms: 0, price: '287.50', deposit: '0', checkIn: `${m}-11`, nights: 3 }));
    const fee = feeOf(stays);
    expect(fee).toBe((4 * 3 * 15 + 3 * 1 * 10) * 100);

    const payments = (await Promise.all(stays.map((s) => bookingPayments(t.ctx, s.reference)))).flat();
    expect(payments.map((p) => p.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    const bases = payments.reduce((sum, p) => sum + fils(p.amount) - fils(p.card_fee) - fils(p.rounding), 0);
    const months = [...new Set(payments.map((p) => monthOf(String(p.booked_on))))];
    expect(months).toHaveLength(1);
    const paidIn = months[0] as string;

    // The owner's statement: the payments' bases less the fee, to the fil.
    const { data, error } = await w.client.GET('/api/v1/owner-statements', { params: { query: { owner, month: paidIn } } });
    if (!data) throw new Error(JSON.stringify(error));
    const received = data.lines.filter((l) => l.kind === 'booking_received');
    expect(received).toHaveLength(4);
    expect(received.reduce((sum, l) => sum + fils(l.amount), 0)).toBe(bases - fee);
    const totals = data.totals.find((t) => t.currency === 'AED');
    expect(fils(totals?.bookings_received ?? '0')).toBe(bases - fee);
    expect(fils(totals?.net ?? '0')).toBe(bases - fee);

    // The journal: owner payable is the statement's; booking receipts keep the fee until its month moves it to
    // `tourism_dirham_payable`, then are empty.
    expect(await credited(w, [paidIn], 'owner_payable')).toBe(fils(totals?.net ?? '0'));
    expect(await credited(w, [paidIn], 'booking_receipts')).toBe(fee);
    const span = paidIn === m ? [m] : [paidIn, m];
    expect(await credited(w, span, 'tourism_dirham_payable')).toBe(fee);
    expect(await credited(w, span, 'booking_receipts')).toBe(0);
    expect(fils((await report(w, m)).total)).toBe(fee);
  });

  it('records the month’s report as the scheduled work closes it; a booking changed afterwards changes nothing', async () => {
    const at = new Date(`${m1}-07T00:00:00Z`);
    w.api.clock.set(at);
    try {
      await runScheduledWork(w.api.platform.services(), statementJobs);
      const recorded = await w.api.db
        .selectFrom('tourism_dirham_months')
        .select(['total', 'recorded_at'])
        .where('company_id', '=', w.company.id)
        .where('month', '=', `${m}-01`)
        .execute();
      expect(recorded.map((r) => [fils(r.total), new Date(r.recorded_at).toISOString()])).toEqual([
        [feeOf(stays), at.toISOString()],
      ]);
      // The studio's stay cancelled by staff afterwards, and the work run again: the month stays as it closed.
      w.api.clock.set(new Date(at.getTime() + 86_400_000));
      const studio = stays.find((s) => s.det === 'standard') as Stay;
      const cancelled = await w.admin(`/bookings/${studio.reference}/cancel`, undefined, 'POST');
      expect(cancelled.status, cancelled.text).toBe(200);
      // Its nights were declared to DET in the recorded month (the booking counted when it was recorded): their fee
      // stays DET's, so the refunds return half of the stay paid without the fee (its policy; the kept half rounded
      // down, in the guest's favour) and none of the fee; each refund's Tourism Dirham part is 0 and its owner line
      // takes back all it returns.
      const booked = await bookingRow(t.ctx, studio.reference);
      const studioFee = feeOf([studio]);
      const stayWithoutFee = fils((booked.quote as { total: string }).total) - studioFee;
      const keptStay = Math.floor((stayWithoutFee * 50) / 100);
      const payments = await bookingPayments(t.ctx, studio.reference);
      const baseOf = (id: string) => {
        const p = payments.find((q) => q.id === id);
        return p ? fils(p.amount) - fils(p.card_fee) - fils(p.rounding) : 0;
      };
      const refunds = await refundsOfBooking(t, studio.reference);
      expect(refunds.length).toBeGreaterThan(0);
      expect(refunds.reduce((sum, r) => sum + fils(r.amount), 0)).toBe(stayWithoutFee - keptStay);
      expect(refunds.map((r) => fils(r.tourism_dirham ?? 'null'))).toEqual(refunds.map(() => 0));
      const lines = await w.api.db
        .selectFrom('owner_statement_lines')
        .select(['refund_id', 'amount'])
        .where('kind', '=', 'booking_refunded')
        .where('booking_id', '=', booked.id)
        .execute();
      const want = refunds.map((r) => [r.id, -Math.min(fils(r.amount), baseOf(r.payment_id))]);
      expect(lines.map((l) => [l.refund_id, fils(l.amount)]).sort()).toEqual(want.sort());
      await runScheduledWork(w.api.platform.services(), statementJobs);
      const read = await report(w, m);
      expect(read.status).toBe('closed');
      expect(fils(read.total)).toBe(feeOf(stays));
      expect(new Date(read.recorded_at as string).toISOString()).toBe(at.toISOString());
    } finally {
      w.api.clock.set(null);
    }
  });
});
