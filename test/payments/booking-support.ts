import { afterAll, expect } from 'vitest';
import { sha256 } from '../../lib/crypto';
import { type Ctx, book, bookingEvents, bookingRow, newHome, publishableKey, type Terms } from '../stay/support';
import { type StripeStandIn, startStripeStandIn } from '../support/stripe-standin';
import { useWorld, type World } from '../support/world';
import { type Account, connectStripe, deliverEvent } from './support';
import { accounts as statementAccounts } from '../statements/support';

/**
 * The booking payments' tests (issue 34, bookings part): a development world (its booking form takes the spam check's
 * test token) whose API talks to the Stripe stand-in, its company's Stripe account connected through the admin API,
 * bookings requested as a website sends them, paid from the stay page's form.
 */

export function useBookingPaymentsWorld(): { w: World; stripe: StripeStandIn; ctx: Ctx } {
  const holder = {} as { stripe: StripeStandIn; ctx: Ctx };
  const w = useWorld(async () => {
    holder.stripe = await startStripeStandIn();
    return { environment: 'development', env: { STRIPE_API_BASE: holder.stripe.url } };
  });
  afterAll(() => holder.stripe?.close());
  return {
    w,
    get stripe() {
      return holder.stripe;
    },
    get ctx() {
      return holder.ctx;
    },
  };
}

/** The stay support's context of a world (its API, company and a publishable key allowed to send bookings). */
export async function stayCtx(w: World): Promise<Ctx> {
  return { api: w.api, company: w.company, pk: await publishableKey(w.api, w.company.id) };
}

/** A new home of the world's company with these terms, and a booking of it (its stay page's address). */
export async function bookedHome(
  ctx: Ctx,
  terms: Partial<Terms> & Record<string, unknown>,
  nights: readonly [string, string],
  price = '1000.00',
) {
  const home = await newHome(ctx, { price, bedrooms: 1, terms: terms as Partial<Terms> });
  const booking = await book(ctx, home, ...nights);
  return { home, booking, token: new URL(booking.stay_url).pathname.split('/')[2] as string };
}

// raw: the stay page and its form are HTML outside the API's documents
export const openStay = (ctx: Ctx, stayUrl: string, host = new URL(stayUrl).host) =>
  ctx.api.request(new URL(stayUrl).pathname, { host });

/** The stay page's pay button: POST /stay/{token}/payment, as the browser sends the form. */
export const payForm = (ctx: Ctx, stayUrl: string, host = new URL(stayUrl).host) =>
  // raw: an HTML form's post to a page, outside the API's documents
  ctx.api.request(`${new URL(stayUrl).pathname}/payment`, {
    host,
    method: 'POST',
    body: '',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });

/** The stay page's cancel button: POST /stay/{token}/cancellation, as the browser sends the form from the page. */
export const cancelForm = (
  ctx: Ctx,
  stayUrl: string,
  options: { host?: string; origin?: string | null; fetchSite?: string } = {},
) => {
  const url = new URL(stayUrl);
  // The stay page's no-referrer policy makes a browser send `Origin: null` with its own forms.
  const origin = options.origin === undefined ? 'null' : options.origin;
  const site = options.fetchSite ?? 'same-origin';
  // raw: an HTML form's post to a page, outside the API's documents
  return ctx.api.request(`${url.pathname}/cancellation`, {
    host: options.host ?? url.host,
    method: 'POST',
    body: '',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      'Sec-Fetch-Site': site,
      ...(origin === null ? {} : { Origin: origin }),
    },
  });
};

/** The booking's payments, oldest first. */
export async function bookingPayments(ctx: Ctx, reference: string) {
  const booking = await bookingRow(ctx, reference);
  return ctx.api.db.selectFrom('payments').selectAll().where('booking_id', '=', booking.id).orderBy('created_at').execute();
}

/** Pays what is due now through the form, the stand-in's hosted page and Stripe's signed webhook; the payment row. */
export async function payNow(ctx: Ctx, stripe: StripeStandIn, w: World, account: Account, stayUrl: string, reference: string) {
  const res = await payForm(ctx, stayUrl);
  expect(res.status, res.text).toBe(303);
  const location = res.headers.get('location') ?? '';
  expect(location).toMatch(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_/);
  const payments = await bookingPayments(ctx, reference);
  const payment = payments.find((p) => location.endsWith(p.checkout_id));
  if (!payment) throw new Error('no payment for the checkout');
  stripe.pay(payment.checkout_id, { at: w.api.clock.now() });
  const { res: delivered } = await deliverEvent(w, stripe, account, 'checkout.session.completed', payment.checkout_id);
  expect(delivered.status, delivered.text).toBe(200);
  return payment;
}

/** The booking's event types, in order (those one statement wrote, which share its instant, by name). */
export async function eventTypes(ctx: Ctx, reference: string) {
  const events = await bookingEvents(ctx, reference);
  const at = (e: (typeof events)[number]) => new Date(e.created_at).getTime();
  return [...events].sort((a, b) => at(a) - at(b) || (a.type < b.type ? -1 : 1)).map((e) => e.type);
}

export { connectStripe, sha256 };

/** The journal's accounts of a company taking bookings: the statements' and the payments' and booking receipts. */
export const bookingJournalAccounts = {
  ...statementAccounts,
  payment_clearing: { code: '610', name: 'Payment provider clearing' },
  payment_fees: { code: '404', name: 'Payment provider fees' },
  refunds_due: { code: '830', name: 'Refunds due to payers' },
  booking_receipts: { code: '835', name: 'Guest booking receipts' },
};
