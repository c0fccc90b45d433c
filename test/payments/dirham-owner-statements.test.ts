import Big from 'big.js';
import { afterAll, describe, expect, it } from 'vitest';
import { runScheduledWork } from '../../functions/jobs';
import { statementJobs } from '../../functions/statements/jobs';
import { setUpkeep } from '../maintenance/support';
import { book, bookingRow, type Ctx, day, newHome, plusDays, type Terms } from '../stay/support';
import { type StripeStandIn, startStripeStandIn } from '../support/stripe-standin';
import { useWorld } from '../support/world';
import { bookingJournalAccounts, bookingPayments, payForm, stayCtx } from './booking-support';
import { type Account, connectStripe, deliverEvent } from './support';

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

/** DET's rates per bedroom and night (Executive Council Resolution No. (2) of 2014), written apart from lib/. */
const rateOf = { standard: 10, deluxe: 15 } as const;
const terms = {
  booking_deposit_percent: 30,
  deposit_confirms: true,
  free_cancellation_days: 7,
  late_cancellation_refund_percent: 50,
};

const monthOf = (date: string) => date.slice(0, 7);
const nextMonth = (month: string) => monthOf(plusDays(`${month}-28`, 7));
// The stays' month (M), well ahead, and the one after it, when M has closed (5 grace days).
const m = monthOf(day(75));
const m1 = nextMonth(m);

type Stay = { home: string; nights: number; bedrooms: number; det: 'standard' | 'deluxe'; reference: string; stay_url: string };
const stays: Stay[] = [];
let ctx: Ctx;
let account: Account;
let owner: string;

/** Pays what is due now from the stay page, through the stand-in and Stripe's signed webhook. */
async function pay(stay: Stay, feeMinor: number) {
  const form = await payForm(ctx, stay.stay_url);
  expect(form.status, form.text).toBe(303);
  const location = form.headers.get('location') ?? '';
  const open = (await bookingPayments(ctx, stay.reference)).find((p) => location.endsWith(p.checkout_id));
  if (!open) throw new Error('no payment for the checkout');
  holder.stripe.pay(open.checkout_id, { at: w.api.clock.now(), feeMinor });
  const { res } = await deliverEvent(w, holder.stripe, account, 'checkout.session.completed', open.checkout_id);
  expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
}

/** A classed home of the owner (`bedrooms`, 0 a studio), booked for `nights` nights from `checkIn`, paid in full. */
async function paidStay(det: Stay['det'], bedrooms: number, price: string, deposit: string, checkIn: string, nights: number) {
  const more = { ...terms, det_class: det, deposit } as Partial<Terms>;
  const home = await newHome(ctx, { price, bedrooms, terms: more });
  expect((await setUpkeep(w, home, { owner })).response.status).toBe(200);
  const booking = await book(ctx, home, checkIn, plusDays(checkIn, nights));
  const stay = { home, nights, bedrooms, det, reference: booking.reference, stay_url: booking.stay_url };
  stays.push(stay);
  await pay(stay, 1_234);
  // The balance an hour later.
  w.api.clock.set(new Date(w.api.clock.now().getTime() + 3_600_000));
  try {
    await pay(stay, 2_345);
  } finally {
    w.api.clock.set(null);
  }
  expect((await bookingRow(ctx, stay.reference)).status).toBe('paid');
  return stay;
}

/** The fee of the stays, worked out here: nights × bedrooms (a studio one) × the class's rate, in fils. */
const feeOf = (list: Stay[]) => list.reduce((sum, s) => sum + s.nights * Math.max(1, s.bedrooms) * rateOf[s.det] * 100, 0);
const fils = (amount: string | number) => Number(new Big(amount).times(100).toFixed(0));

type Journal = {
  entries: Array<{ kind: string; lines: Array<{ account: string; debit: string; credit: string }> }>;
};
async function journal(month: string) {
  const { data, error } = await w.client.GET('/api/v1/exports/journal', { params: { query: { month } } });
  if (!data) throw new Error(JSON.stringify(error));
  return data as unknown as Journal;
}
/** An account's credit less its debit over the months' journals, in fils. */
async function credited(months: string[], account: string) {
  let sum = 0;
  for (const month of months) {
    for (const entry of (await journal(month)).entries) {
      for (const line of entry.lines) if (line.account === account) sum += fils(line.credit) - fils(line.debit);
    }
  }
  return sum;
}

const report = async (month: string) => {
  // raw: a route not yet in the checked-in OpenAPI document the typed clients are made from
  const res = await w.api.request(`/api/v1/tourism-dirham?month=${month}`, {
    host: w.company.host,
    key: (await w.keyWith(['read:leases'])).secret,
  });
  expect(res.status, res.text).toBe(200);
  return res.json as { status: string; total: string; recorded_at: string | null };
};

describe('the Tourism Dirham off the owner’s statement', () => {
  it('credits the owner with the payments less the fee; the journal agrees and holds the fee for DET', async () => {
    ctx = await stayCtx(w);
    account = await connectStripe(w, { cardFee: { kind: 'percent', value: '2.5' } });
    owner = await w.contact({ name: 'Classed Homes Owner' });
    // A deluxe three-bedroom with a security deposit (the fee's share of each payment is not a round number), and a
    // standard studio (one bedroom).
    await paidStay('deluxe', 3, '433.33', '750.00', `${m}-03`, 4);
    await paidStay('standard', 0, '287.50', '0', `${m}-11`, 3);
    const fee = feeOf(stays);
    expect(fee).toBe((4 * 3 * 15 + 3 * 1 * 10) * 100);

    const payments = (await Promise.all(stays.map((s) => bookingPayments(ctx, s.reference)))).flat();
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
    expect(await credited([paidIn], 'owner_payable')).toBe(fils(totals?.net ?? '0'));
    expect(await credited([paidIn], 'booking_receipts')).toBe(fee);
    const span = paidIn === m ? [m] : [paidIn, m];
    expect(await credited(span, 'tourism_dirham_payable')).toBe(fee);
    expect(await credited(span, 'booking_receipts')).toBe(0);
    expect(fils((await report(m)).total)).toBe(fee);
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
      // Its refunds take back the owner's lines less the fee's share of what they return: the payment's fee (the
      // booking's, spread over its payments by what each paid, rounded down, the balance taking the rest) × the
      // part returned ÷ the payment's base, rounded down.
      const [first, second] = await bookingPayments(ctx, studio.reference);
      const baseOf = (p: typeof first) => (p ? fils(p.amount) - fils(p.card_fee) - fils(p.rounding) : 0);
      const studioFee = feeOf([studio]);
      const whole = baseOf(first) + baseOf(second);
      const firstFee = Math.floor((studioFee * baseOf(first)) / whole);
      const feeOfPayment = new Map([
        [first?.id, firstFee],
        [second?.id, studioFee - firstFee],
      ]);
      const refunds = await w.api.db
        .selectFrom('payment_refunds')
        .selectAll()
        .where('payment_id', 'in', [first?.id as string, second?.id as string])
        .where('status', '=', 'succeeded')
        .execute();
      expect(refunds.length).toBeGreaterThan(0);
      const lines = await w.api.db
        .selectFrom('owner_statement_lines')
        .select(['refund_id', 'amount'])
        .where('kind', '=', 'booking_refunded')
        .where('booking_id', '=', (await bookingRow(ctx, studio.reference)).id)
        .execute();
      const want = refunds.map((r) => {
        const payment = [first, second].find((p) => p?.id === r.payment_id);
        const returned = Math.min(fils(r.amount), baseOf(payment));
        const fee = Math.floor(((feeOfPayment.get(r.payment_id) ?? 0) * returned) / baseOf(payment));
        return [r.id, -(returned - fee)];
      });
      expect(lines.map((l) => [l.refund_id, fils(l.amount)]).sort()).toEqual(want.sort());
      await runScheduledWork(w.api.platform.services(), statementJobs);
      const read = await report(m);
      expect(read.status).toBe('closed');
      expect(fils(read.total)).toBe(feeOf(stays));
      expect(new Date(read.recorded_at as string).toISOString()).toBe(at.toISOString());
    } finally {
      w.api.clock.set(null);
    }
  });
});
