import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import { setUpkeep } from '../maintenance/support';
import { bookingRow, type Ctx, stays } from '../stay/support';
import { accounts as statementAccounts } from '../statements/support';
import { leasesOf, type World, world } from '../support/world';
import {
  bookedHome,
  bookingPayments,
  cancelForm,
  connectStripe,
  payForm,
  stayCtx,
  useBookingPaymentsWorld,
} from './booking-support';
import { type Account, deliverEvent, paymentLink, paymentRow } from './support';

/**
 * "The statement, the journal and the webhook log agree to the fils" (issue 34; docs/api-reference.md, "Owner statements
 * and the accounting journal"), in KWD (three digits, Stripe's tens of fils) and AED (two, a card fee passed on): a
 * tenant pays a rent link, a guest pays a holiday home's deposit and balance from the stay page and cancels late (the
 * policy refunds part), another pays a deposit and cancels in the free days (the whole charge refunded), all through
 * the Stripe stand-in and its signed webhooks. Then, read through the API, the owners' statements (the landlord's rent,
 * the home owner's bookings and refunds), the journal and the company's events (`payment.succeeded`,
 * `payment.refunded`, `booking.refunded`, as the admin API lists them) name the same payments, and every amount is the
 * same number of minor units in each, and in what the provider charged and refunded. The card fee passed on and
 * Stripe's rounding stay with the company (payment fees): the owner's lines are the bases, booking receipts equal them.
 */
const t = useBookingPaymentsWorld();
const nights = stays(50);
const accounts = {
  ...statementAccounts,
  payment_clearing: { code: '610', name: 'Payment provider clearing' },
  payment_fees: { code: '404', name: 'Payment provider fees' },
  refunds_due: { code: '830', name: 'Refunds due to payers' },
  booking_receipts: { code: '835', name: 'Guest booking receipts' },
};

type Line = {
  kind: string;
  day: string;
  amount: string;
  currency: string;
  home: string;
  lease: string | null;
  online_payment: string | null;
  booking: string | null;
  refund: string | null;
};
type Statement = { lines: Line[]; totals: Array<Record<string, string | null>> };
type Entry = {
  number: string;
  day: string;
  kind: string;
  owner: string | null;
  online_payment: string | null;
  narration: string;
  lines: Array<{ account: string; debit: string; credit: string }>;
};
type Journal = { entries: Entry[]; totals: Array<{ currency: string; owner_payable: string }> };
type Event = { id: string; type: string; data: Record<string, unknown> };

async function statement(w: World, owner: string, month: string): Promise<Statement> {
  const { data, error } = await w.client.GET('/api/v1/owner-statements', { params: { query: { owner, month } } });
  if (!data) throw new Error(JSON.stringify(error));
  return data as unknown as Statement;
}

async function journal(w: World, month: string): Promise<Journal> {
  const { data, error } = await w.client.GET('/api/v1/exports/journal', { params: { query: { month } } });
  if (!data) throw new Error(JSON.stringify(error));
  return data as unknown as Journal;
}

/** The company's events of `type`, as the operator's admin API lists them (its webhook log). */
async function events(w: World, type: string): Promise<Event[]> {
  const { data, error } = await w.adminClient.GET('/admin/v1/companies/{company_id}/events', {
    params: { path: { company_id: w.company.id }, query: { type, page_size: 100 } },
  });
  if (!data) throw new Error(JSON.stringify(error));
  return data.results as Event[];
}

/** Pays what the booking owes now from its stay page (Stripe taking `feeMinor`); the payment's row once settled. */
async function payStay(w: World, ctx: Ctx, account: Account, stayUrl: string, reference: string, feeMinor: number) {
  const form = await payForm(ctx, stayUrl);
  expect(form.status, form.text).toBe(303);
  const location = form.headers.get('location') ?? '';
  const open = (await bookingPayments(ctx, reference)).find((p) => location.endsWith(p.checkout_id));
  if (!open) throw new Error('no payment for the checkout');
  t.stripe.pay(open.checkout_id, { at: w.api.clock.now(), feeMinor });
  const { res } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', open.checkout_id);
  expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
  return (await bookingPayments(ctx, reference)).find((p) => p.id === open.id) as NonNullable<typeof open>;
}

const cases = [
  { currency: 'KWD', digits: 3, time_zone: 'Asia/Kuwait', offset: '+03:00', price: '120.125', cardFee: null },
  {
    currency: 'AED',
    digits: 2,
    time_zone: 'Asia/Dubai',
    offset: '+04:00',
    price: '1234.55',
    cardFee: { kind: 'percent' as const, value: '2.5' },
  },
];

describe.each(cases)('a rent link and two bookings paid, then refunded in part and in full ($currency)', (c) => {
  it('agree to the fils in the owners’ statements, the journal and the webhook log', async () => {
    const w = await world({
      api: t.w.api,
      company: { currency: c.currency, time_zone: c.time_zone, environment: 'development' },
      settings: { accounting_accounts: accounts },
    });
    const ctx = await stayCtx(w);
    const account = await connectStripe(w, { currency: c.currency, cardFee: c.cardFee });
    /** An amount as an integer of minor units; the API's strings carry exactly the currency's digits. */
    const minor = (amount: string | Big) => {
      const value = new Big(amount);
      return Number(value.times(10 ** c.digits).toFixed(0));
    };
    const exact = new RegExp(`^-?\\d+\\.\\d{${c.digits}}$`);

    // A tenant pays a rent link (10,000 a month).
    const leases = leasesOf(w);
    const lease = await leases.active({ schedule: { payments: 12 } });
    const rentId = leases.paymentIds(lease)[0] as string;
    const { data: link, error } = await paymentLink(w, rentId);
    if (!link) throw new Error(JSON.stringify(error));
    const rentOpen = await paymentRow(w, link.payment);
    t.stripe.pay(rentOpen.checkout_id, { at: w.api.clock.now(), feeMinor: 2_345 });
    const { res: rentPaid } = await deliverEvent(w, t.stripe, account, 'checkout.session.completed', rentOpen.checkout_id);
    expect(rentPaid.json).toMatchObject({ acted: true, status: 'succeeded' });
    const rent = await paymentRow(w, link.payment);

    // A guest books a holiday home whose owner the company named, pays the deposit, then the balance an hour later.
    const homeOwner = await w.contact({ name: 'Holiday Home Owner' });
    const terms = {
      booking_deposit_percent: 30,
      deposit_confirms: true,
      free_cancellation_days: 7,
      late_cancellation_refund_percent: 50,
    };
    const { home, booking } = await bookedHome(ctx, terms, nights(2), c.price);
    const upkeep = await setUpkeep(w, home, { owner: homeOwner });
    expect(upkeep.response.status).toBe(200);
    const deposit = await payStay(w, ctx, account, booking.stay_url, booking.reference, 1_357);
    w.api.clock.set(new Date(w.api.clock.now().getTime() + 3_600_000));
    let balance: typeof deposit;
    try {
      balance = await payStay(w, ctx, account, booking.stay_url, booking.reference, 2_468);
    } finally {
      w.api.clock.set(null);
    }
    // The guest cancels from the stay page three days before arrival, within the 7 days: half the stay is kept.
    const row = await bookingRow(ctx, booking.reference);
    w.api.clock.set(new Date(new Date(`${row.check_in}T00:00:00${c.offset}`).getTime() - 3 * 86_400_000));
    try {
      const cancelled = await cancelForm(ctx, booking.stay_url);
      expect(cancelled.status, cancelled.text).toBe(303);
    } finally {
      w.api.clock.set(null);
    }
    // Another guest books a second home of the same owner, pays the deposit and cancels at once, weeks before arrival:
    // the whole charge is refunded, the card fee and rounding too.
    const second = await bookedHome(ctx, terms, nights(2), c.price);
    expect((await setUpkeep(w, second.home, { owner: homeOwner })).response.status).toBe(200);
    const early = await payStay(w, ctx, account, second.booking.stay_url, second.booking.reference, 1_111);
    const cancelledEarly = await cancelForm(ctx, second.booking.stay_url);
    expect(cancelledEarly.status, cancelledEarly.text).toBe(303);
    const secondRow = await bookingRow(ctx, second.booking.reference);

    const refunds = await w.api.db
      .selectFrom('payment_refunds')
      .selectAll()
      .where('booking_id', 'in', [row.id, secondRow.id])
      .execute();
    for (const refund of refunds) expect(refund.status).toBe('succeeded');
    const partials = refunds.filter((r) => r.booking_id === row.id);
    expect(partials.length).toBeGreaterThan(0);
    const partial = partials.reduce((sum, r) => sum.plus(r.amount), new Big(0));
    expect(partial.gt(0) && partial.lt(new Big(deposit.amount).plus(balance.amount))).toBe(true);
    const whole = refunds.filter((r) => r.booking_id === secondRow.id);
    expect(whole.map((r) => [r.payment_id, new Big(r.amount).eq(early.amount)])).toEqual([[early.id, true]]);

    // Everything read back through the API: both owners' statements and the journal of every month touched.
    const days = [rent.booked_on, deposit.booked_on, balance.booked_on, early.booked_on, ...refunds.map((r) => r.booked_on)];
    const months = [...new Set((days as string[]).map((d) => d.slice(0, 7)))].sort();
    const owners = [w.contacts.landlord, homeOwner];
    const statements = await Promise.all(
      owners.flatMap((owner) => months.map(async (month) => ({ owner, month, ...(await statement(w, owner, month)) }))),
    );
    const journals = await Promise.all(months.map(async (month) => ({ month, ...(await journal(w, month)) })));
    const lines = statements.flatMap((s) => s.lines.map((line) => ({ ...line, owner: s.owner })));
    const entries = journals.flatMap((j) => j.entries);
    const log = {
      succeeded: await events(w, 'payment.succeeded'),
      refunded: await events(w, 'payment.refunded'),
      bookingRefunded: await events(w, 'booking.refunded'),
    };
    for (const amount of [...lines.map((l) => l.amount), ...entries.flatMap((e) => e.lines.flatMap((l) => [l.debit, l.credit]))])
      expect(amount).toMatch(exact);

    const side = (entry: Entry | undefined, account: string, which: 'debit' | 'credit') =>
      minor(entry?.lines.find((l) => l.account === account && new Big(l[which]).gt(0))?.[which] ?? '0');
    const charged = (checkoutId: string) => Number(t.stripe.sessions.get(checkoutId)?.amount_total);
    /** What the payer paid beyond the amount due (the card fee passed on and Stripe's rounding), in minor units. */
    const passedOn = (p: { card_fee: string; rounding: string }) => minor(p.card_fee) + minor(p.rounding);

    // The rent: the landlord's receipt, the journal's payment entry and the provider's charge.
    const rentLine = lines.find((l) => l.kind === 'rent_received' && l.online_payment === rent.id);
    const rentEntry = entries.find((e) => e.kind === 'online_payment' && e.online_payment === rent.id);
    expect(rentLine).toMatchObject({ owner: w.contacts.landlord, day: rent.booked_on, lease: lease.reference });
    expect(minor(rentLine?.amount ?? '0')).toBe(minor('10000'));
    expect(side(rentEntry, 'rent_income', 'credit')).toBe(minor(rentLine?.amount ?? '0'));
    expect(side(rentEntry, 'payment_clearing', 'debit')).toBe(charged(rent.checkout_id));
    expect(side(rentEntry, 'payment_clearing', 'debit')).toBe(minor(rent.amount));

    // Each booking payment: the home owner's `booking_received` is what the guest paid less the card fee passed on and
    // Stripe's rounding (the company keeps them to pay the provider's fee), on the day it was booked: the journal's
    // entry credits booking receipts with it and payment fees with the rest; the line's own entry moves it to owner
    // payable.
    const bookingPaid = [
      { payment: deposit, reference: booking.reference, home },
      { payment: balance, reference: booking.reference, home },
      { payment: early, reference: second.booking.reference, home: second.home },
    ];
    for (const { payment, reference, home: slug } of bookingPaid) {
      const line = lines.find((l) => l.kind === 'booking_received' && l.online_payment === payment.id);
      const paid = entries.find((e) => e.kind === 'booking_payment' && e.online_payment === payment.id);
      const moved = entries.find((e) => e.kind === 'booking_received' && e.online_payment === payment.id);
      expect(line).toMatchObject({
        owner: homeOwner,
        day: payment.booked_on,
        home: slug,
        lease: null,
        booking: reference,
        refund: null,
        currency: c.currency,
      });
      expect(passedOn(payment)).toBeGreaterThan(0);
      expect(minor(line?.amount ?? '0')).toBe(charged(payment.checkout_id) - passedOn(payment));
      expect(side(paid, 'payment_clearing', 'debit')).toBe(charged(payment.checkout_id));
      expect(side(paid, 'booking_receipts', 'credit')).toBe(minor(line?.amount ?? '0'));
      expect(side(paid, 'payment_fees', 'credit')).toBe(passedOn(payment));
      expect(moved).toMatchObject({ day: payment.booked_on, owner: homeOwner });
      expect(moved?.narration).toContain(`booking ${reference}`);
      expect(side(moved, 'booking_receipts', 'debit')).toBe(minor(line?.amount ?? '0'));
      expect(side(moved, 'owner_payable', 'credit')).toBe(minor(line?.amount ?? '0'));
    }
    if (c.cardFee) expect(new Big(deposit.card_fee).gt(0)).toBe(true);
    if (c.digits === 3) expect(new Big(deposit.rounding).plus(balance.rounding).gt(0)).toBe(true);

    // Each refund: the provider's refund, the journal's refund entry and the home owner's `booking_refunded`, on its
    // day. The line takes back the part of the refund that returns base (least(refund, base)): all of a partial
    // refund, the base of a refund of the whole charge, whose card fee and rounding come back out of payment fees.
    const paymentOf = new Map([deposit, balance, early].map((p) => [p.id, p]));
    for (const refund of refunds) {
      const payment = paymentOf.get(refund.payment_id);
      if (!payment) throw new Error(`no payment of ${refund.id}`);
      const asked = t.stripe.requests.find(
        (r) => r.path === '/v1/refunds' && (r.params.metadata as Record<string, unknown> | undefined)?.refund === refund.id,
      );
      const line = lines.find((l) => l.kind === 'booking_refunded' && l.refund === refund.id);
      const out = entries.find((e) => e.kind === 'online_refund' && e.number === `RF-${refund.entry_number}`);
      const moved = entries.find(
        (e) => e.kind === 'booking_refunded' && e.online_payment === refund.payment_id && e.day === refund.booked_on,
      );
      expect(line).toMatchObject({
        owner: homeOwner,
        day: refund.booked_on,
        online_payment: refund.payment_id,
        booking: refund.booking_id === row.id ? booking.reference : second.booking.reference,
      });
      const amount = Number(asked?.params.amount);
      expect(minor(refund.amount)).toBe(amount);
      const base = minor(payment.amount) - passedOn(payment);
      const returned = Math.min(amount, base);
      expect(-minor(line?.amount ?? '0')).toBe(returned);
      expect(side(out, 'booking_receipts', 'debit')).toBe(returned);
      expect(side(out, 'payment_fees', 'debit')).toBe(amount - returned);
      expect(side(out, 'payment_clearing', 'credit')).toBe(amount);
      expect(side(moved, 'owner_payable', 'debit')).toBe(returned);
      expect(side(moved, 'booking_receipts', 'credit')).toBe(returned);
      if (payment === early) expect(amount - returned).toBe(passedOn(early));
      else expect(amount).toBeLessThanOrEqual(base);
    }

    // The same payments everywhere: every payment id of the statements is in the journal and the webhook log, and back.
    const ours = [rent.id, deposit.id, balance.id, early.id].sort();
    const inLines = [...new Set(lines.map((l) => l.online_payment).filter((id) => id !== null))].sort();
    const inJournal = [...new Set(entries.map((e) => e.online_payment).filter((id) => id !== null))].sort();
    const inLog = [...new Set(log.succeeded.map((e) => e.data.payment_id as string))].sort();
    expect(inLines).toEqual(ours);
    expect(inJournal).toEqual(ours);
    expect(inLog).toEqual(ours);
    const refunded = refunds.map((r) => r.payment_id).sort();
    expect(log.refunded.map((e) => e.data.payment_id).sort()).toEqual(refunded);
    expect(
      lines
        .filter((l) => l.kind === 'booking_refunded')
        .map((l) => l.online_payment)
        .sort(),
    ).toEqual(refunded);
    const refundIds = refunds.map((r) => r.id).sort();
    expect(log.refunded.map((e) => e.data.refund_id).sort()).toEqual(refundIds);
    const referenceOf = (r: (typeof refunds)[number]) => (r.booking_id === row.id ? booking.reference : second.booking.reference);
    expect(log.bookingRefunded.map((e) => [e.data.refund_id, e.data.reference]).sort()).toEqual(
      [...refunds].sort((a, b) => (a.id < b.id ? -1 : 1)).map((r) => [r.id, referenceOf(r)]),
    );

    // Totals: the home owner's bookings received (the charges less card fees and rounding) and refunded (the base
    // they returned); per month, owner payable is the statements' net.
    const ownerLines = lines.filter((l) => l.owner === homeOwner);
    const sum = (values: string[]) => values.reduce((s, v) => s + minor(v), 0);
    const totalsOf = statements.filter((s) => s.owner === homeOwner).flatMap((s) => s.totals);
    const bases = [deposit, balance, early].reduce((s, p) => s + charged(p.checkout_id) - passedOn(p), 0);
    expect(sum(totalsOf.map((x) => x.bookings_received as string))).toBe(bases);
    const returnedBase = minor(partial) + minor(early.amount) - passedOn(early);
    expect(sum(totalsOf.map((x) => x.bookings_refunded as string))).toBe(returnedBase);
    expect(sum(ownerLines.map((l) => l.amount))).toBe(bases - returnedBase);
    for (const j of journals) {
      const nets = statements.filter((s) => s.month === j.month).flatMap((s) => s.totals.map((x) => x.net as string));
      expect(minor(j.totals.find((x) => x.currency === c.currency)?.owner_payable ?? '0')).toBe(sum(nets));
    }
    const balanceOf = (account: string, kinds: string[] | null = null) =>
      entries
        .filter((e) => kinds === null || kinds.includes(e.kind))
        .flatMap((e) => e.lines)
        .filter((l) => l.account === account)
        .reduce((s, l) => s + minor(l.credit) - minor(l.debit), 0);
    // Booking receipts from the payments' and refunds' entries are exactly what the owner's statements hold for
    // bookings; the lines' entries move it all to owner payable (nothing stays held).
    expect(balanceOf('booking_receipts', ['booking_payment', 'online_refund'])).toBe(sum(ownerLines.map((l) => l.amount)));
    expect(balanceOf('booking_receipts')).toBe(0);
    // Payment fees: the provider's fees, less the card fees and rounding the payers paid (the rent's too), less none of
    // the refund in full's (returned to the guest with the charge).
    const fees = [rent, deposit, balance, early].reduce((s, p) => s + minor(p.fee as string), 0);
    expect(fees).toBe(2_345 + 1_357 + 2_468 + 1_111);
    const kept = [rent, deposit, balance].reduce((s, p) => s + passedOn(p), 0);
    expect(-balanceOf('payment_fees')).toBe(fees - kept);
    await w.close();
  });
});
