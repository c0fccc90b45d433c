import Big from 'big.js';
import { expect } from 'vitest';
import { setUpkeep } from '../maintenance/support';
import { book, bookingRow, type Ctx, newHome, plusDays, type Terms, todayInZone } from '../stay/support';
import type { StripeStandIn } from '../support/stripe-standin';
import type { World } from '../support/world';
import { bookingPayments, payForm } from './booking-support';
import { type Account, deliverEvent } from './support';

/**
 * The Tourism Dirham's payment tests' pieces (issue 37; test/payments/dirham-*.test.ts): classed homes of an owner
 * booked and paid online as a deposit then a balance, the fee worked out apart from lib/, and the journal's balances.
 */

/** DET's rates per bedroom and night (Executive Council Resolution No. (2) of 2014), written apart from lib/. */
export const rateOf = { standard: 10, deluxe: 15 } as const;

export const terms = {
  booking_deposit_percent: 30,
  deposit_confirms: true,
  free_cancellation_days: 7,
  late_cancellation_refund_percent: 50,
};

export const monthOf = (date: string) => date.slice(0, 7);
export const nextMonth = (month: string) => monthOf(plusDays(`${month}-28`, 7));
export const fils = (amount: string | number) => Number(new Big(amount).times(100).toFixed(0));

export type Stay = {
  home: string;
  nights: number;
  bedrooms: number;
  det: 'standard' | 'deluxe';
  reference: string;
  stay_url: string;
};

/** The fee of the stays, worked out here: nights × bedrooms (a studio one) × the class's rate, in fils. */
export const feeOf = (list: Stay[]) => list.reduce((sum, s) => sum + s.nights * Math.max(1, s.bedrooms) * rateOf[s.det] * 100, 0);

/** A world with the Stripe stand-in, its stay context, its connected account and the homes' owner. */
export type DirhamWorld = { w: World; stripe: StripeStandIn; ctx: Ctx; account: Account; owner: string };

/** Pays what is due now from the stay page, through the stand-in and Stripe's signed webhook. */
async function pay(t: DirhamWorld, stay: Stay, feeMinor: number) {
  const form = await payForm(t.ctx, stay.stay_url);
  expect(form.status, form.text).toBe(303);
  const location = form.headers.get('location') ?? '';
  const open = (await bookingPayments(t.ctx, stay.reference)).find((p) => location.endsWith(p.checkout_id));
  if (!open) throw new Error('no payment for the checkout');
  t.stripe.pay(open.checkout_id, { at: t.w.api.clock.now(), feeMinor });
  const { res } = await deliverEvent(t.w, t.stripe, t.account, 'checkout.session.completed', open.checkout_id);
  expect(res.json).toMatchObject({ acted: true, status: 'succeeded' });
}

/** A classed home of the owner (`bedrooms`, 0 a studio), booked for `nights` nights from `checkIn`, paid in full. */
export async function paidStay(
  t: DirhamWorld,
  stay: { det: Stay['det']; bedrooms: number; price: string; deposit: string; checkIn: string; nights: number },
) {
  const more = { ...terms, det_class: stay.det, deposit: stay.deposit } as Partial<Terms>;
  const home = await newHome(t.ctx, { price: stay.price, bedrooms: stay.bedrooms, terms: more });
  expect((await setUpkeep(t.w, home, { owner: t.owner })).response.status).toBe(200);
  const booking = await book(t.ctx, home, stay.checkIn, plusDays(stay.checkIn, stay.nights));
  const made = { ...stay, home, reference: booking.reference, stay_url: booking.stay_url };
  // The deposit now, the balance an hour later, both on one day of the company (Asia/Dubai, as these worlds are): in
  // the last 65 minutes of its day (and of its month, on the last day), two and one hours ago, so that what the test
  // does next (at the real time) still comes after them.
  const now = t.w.api.clock.now().getTime();
  const oneDay = todayInZone('Asia/Dubai', new Date(now)) === todayInZone('Asia/Dubai', new Date(now + 65 * 60_000));
  const deposit = oneDay ? now : now - 2 * 3_600_000;
  try {
    t.w.api.clock.set(new Date(deposit));
    await pay(t, made, 1_234);
    t.w.api.clock.set(new Date(deposit + 3_600_000));
    await pay(t, made, 2_345);
  } finally {
    t.w.api.clock.set(null);
  }
  expect((await bookingRow(t.ctx, made.reference)).status).toBe('paid');
  return made;
}

type Journal = {
  entries: Array<{ kind: string; lines: Array<{ account: string; debit: string; credit: string }> }>;
};
async function journal(w: World, month: string) {
  const { data, error } = await w.client.GET('/api/v1/exports/journal', { params: { query: { month } } });
  if (!data) throw new Error(JSON.stringify(error));
  return data as unknown as Journal;
}

/** An account's credit less its debit over the months' journals, in fils. */
export async function credited(w: World, months: string[], account: string) {
  let sum = 0;
  for (const month of new Set(months)) {
    for (const entry of (await journal(w, month)).entries) {
      for (const line of entry.lines) if (line.account === account) sum += fils(line.credit) - fils(line.debit);
    }
  }
  return sum;
}

/** The month's Tourism Dirham report, as a key with `read:leases` reads it. */
export async function report(w: World, month: string) {
  // raw: a route not yet in the checked-in OpenAPI document the typed clients are made from
  const res = await w.api.request(`/api/v1/tourism-dirham?month=${month}`, {
    host: w.company.host,
    key: (await w.keyWith(['read:leases'])).secret,
  });
  expect(res.status, res.text).toBe(200);
  return res.json as { status: string; total: string; recorded_at: string | null };
}

/** The booking's succeeded refunds (its payments', oldest payment first). */
export async function refundsOfBooking(t: DirhamWorld, reference: string) {
  const booking = await bookingRow(t.ctx, reference);
  return t.w.api.db
    .selectFrom('payment_refunds')
    .selectAll()
    .where('booking_id', '=', booking.id)
    .where('status', '=', 'succeeded')
    .orderBy('created_at')
    .execute();
}

/** Staff cancel the booking two hours from now (after {@link paidStay}'s balance, paid an hour ahead). */
export async function cancelLater(t: DirhamWorld, reference: string) {
  t.w.api.clock.set(new Date(Date.now() + 7_200_000));
  try {
    const cancelled = await t.w.admin(`/bookings/${reference}/cancel`, undefined, 'POST');
    expect(cancelled.status, cancelled.text).toBe(200);
  } finally {
    t.w.api.clock.set(null);
  }
}
