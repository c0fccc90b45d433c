import { formatDay, formatDayTime, formatInstant, formatMoney } from '../../lib/display';
import Big from 'big.js';
import type { Context } from 'hono';
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { sha256 } from '../../lib/crypto';
import { zonedInstant } from '../../lib/dates';
import type { AppEnv } from '../../lib/env';
import { companyByHost, requestHost } from '../../lib/tenancy';
import { htmlPage, pageHeaders, sentFromOwnPage } from '../../lib/pages';
import type { StoredQuote } from '../../schema/stay/db';
import type { Company } from '../../schema/platform/db';
import { formatAmount } from '../../lib/money';
import { type StayLanguage, stayLanguage, stayTexts } from './page-texts';
import { type RawBuilder, sql } from 'kysely';
import { dueNow, paidSql } from '../../lib/bookings';
import { keyringOf } from '../../lib/crypto-jwe';
import { ApiError } from '../../lib/errors';
import { platformProviderFetch } from '../../lib/payments/index';
import { bookingForPayment, payBooking } from '../../lib/payments/bookings';
import { refundQuietly } from '../../lib/payments/settle';
import { stepBooking } from './bookings';
import { todayIn } from '../../lib/dates';
import { registrationSection } from './guest-form';
import { registeredGuestsSql, registrationOpen, registrationRequired } from './guests';

/**
 * The guest's stay page: HTML on the company's host at /stay/{token}, the address the booking request
 * answered with. The token (32 random characters, 190 bits) is the only key to it; only its hash is stored.
 * The page shows status, the quote and what is due by when, in the guest's language (Arabic right-to-left).
 */
const headers = pageHeaders;

const style = raw(`<style>
body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.6rem}table{width:100%;border-collapse:collapse}td,th{padding:.3rem 0;text-align:start}
td.amount,th.amount{text-align:end}label{display:block;margin:.4rem 0}fieldset{margin:1rem 0}.problem{color:#a00000}tfoot th,tfoot td{border-top:1px solid #999}.status{font-weight:600}
</style>`);

export function page(language: StayLanguage, title: string, body: HtmlEscapedString | Promise<HtmlEscapedString>) {
  return htmlPage(language, title, body, style);
}

/** The page's own 404 (an unknown host, a malformed or unknown token alike), in English: the guest is not known. */
export const notFound = (c: Context<AppEnv>) =>
  c.html(page('en', stayTexts.en.notFound, html`<h1>${stayTexts.en.notFound}</h1>`), 404, headers);

/** The company of the request's host when the token has a stay token's shape (32 letters and digits); else undefined. */
export async function stayCompany(c: Context<AppEnv>, token: string) {
  if (!/^[A-Za-z0-9]{32}$/.test(token)) return undefined;
  return companyByHost(c.var.services.db, requestHost(c));
}

/** What a stay page's step has found: the token, its company, the time of the request, the token's booking. */
export type StayFound<T> = { token: string; company: Company; at: Date; booking: T };

/**
 * The stay page's step before its own work (the page, its pay, cancel and guest forms): the company of the request's
 * host when the token has a stay token's shape, then the company's booking of the token, read by `read` (given the
 * token's hash and the `where` of a booking `b` of the company by that hash: only the hash is kept); the page's 404 when either is unknown.
 */
export async function stayAction<T>(
  c: Context<AppEnv>,
  token: string,
  read: (found: { company: Company; at: Date; hash: Uint8Array; where: RawBuilder<boolean> }) => Promise<T | undefined>,
): Promise<StayFound<T> | Response> {
  const company = await stayCompany(c, token);
  if (!company) return notFound(c);
  const at = c.var.services.now();
  const hash = await sha256(token);
  const where = sql<boolean>`b.company_id = ${company.id}::uuid and b.stay_token_hash = ${hash}`;
  const booking = await read({ company, at, hash, where });
  if (!booking) return notFound(c);
  return { token, company, at, booking };
}

/** The page's answer to a token (page.routes.ts declares its route, lib/pages.ts). */
export function stayPage() {
  return async function showStay(c: Context<AppEnv, '/stay/:token'>): Promise<Response> {
    const { db } = c.var.services;
    const found = await stayAction(c, c.req.param('token'), ({ company, where }) =>
      db
        .selectFrom('bookings as b')
        .innerJoin('listings as l', 'l.id', 'b.listing_id')
        .innerJoin('holiday_home_terms as t', 't.listing_id', 'b.listing_id')
        .select([
          'b.reference',
          'b.status',
          'b.check_in',
          'b.check_out',
          'b.guests',
          'b.language',
          'b.quote',
          'b.hold_expires_at',
          'b.payment_due_at',
          'b.booking_deposit',
          'b.balance_due_at',
          paidSql(sql.ref('b.id')).as('paid'),
          sql<string>`(select coalesce(sum(r.amount), 0) from payment_refunds r
          where r.booking_id = b.id and r.status = 'succeeded')`.as('refunded'),
          sql<string>`(select coalesce(sum(r.amount), 0) from payment_refunds r
          where r.booking_id = b.id and r.status = 'pending')`.as('refund_pending'),
          'b.late_cancellation_refund_percent',
          arrivalSql(company.time_zone, 'b.check_in', sql`0`).as('arrival'),
          arrivalSql(company.time_zone, 'b.check_in', sql.ref('b.free_cancellation_days')).as('free_until'),
          'l.title',
          't.check_in_time',
          't.check_out_time',
          registeredGuestsSql.as('registered'),
        ])
        .where(where)
        .executeTakeFirst(),
    );
    if (found instanceof Response) return found;
    const { token, company, at: now, booking } = found;
    const language = stayLanguage(booking.language);
    const t = stayTexts[language];
    const instant = (at: Date | string) => formatInstant(at, language, company.time_zone);
    const day = (date: string) => formatDay(date, language);
    // Check-in and check-out: the home's local time on that day, its zone named like every other time here.
    const atHome = (date: string, time: unknown) =>
      formatDayTime(zonedInstant(date, String(time), company.time_zone), language, company.time_zone);
    const quote = booking.quote as StoredQuote;
    const amount = (value: string) => formatMoney(value, quote.currency, language);
    const title = (booking.title as Record<string, string>)[language] ?? (booking.title as Record<string, string>).en ?? '';
    const due = formatAmount(new Big(quote.total).plus(quote.deposit), quote.currency);
    const lapsed =
      (booking.status === 'held' && new Date(booking.hold_expires_at).getTime() <= now.getTime()) ||
      (booking.status === 'confirmed' &&
        booking.payment_due_at !== null &&
        new Date(booking.payment_due_at).getTime() <= now.getTime());
    // What the guest pays now (lib/bookings.ts): the deposit while held, then the balance; the pay button posts to
    // /stay/{token}/payment, which sends the guest to the provider's page.
    const dueNowAmount = dueNow({
      status: booking.status,
      quote,
      booking_deposit: String(booking.booking_deposit),
      paid: String(booking.paid),
      lapsed,
    });
    const when =
      booking.status === 'confirmed' && booking.payment_due_at
        ? booking.balance_due_at
          ? t.balanceBy(instant(booking.payment_due_at))
          : t.dueBy(instant(booking.payment_due_at))
        : booking.status === 'held'
          ? dueNowAmount
            ? t.depositWhileHeld(instant(booking.hold_expires_at))
            : t.holdUntil(instant(booking.hold_expires_at))
          : t.nothingDue;
    const paid = new Big(String(booking.paid));
    const refunded = new Big(String(booking.refunded));
    const refundPending = new Big(String(booking.refund_pending));
    // The guest may cancel a booking that holds its dates until its check-in day begins (cancelStay below).
    const cancellable = booking.status !== 'cancelled' && !lapsed && new Date(booking.arrival).getTime() > now.getTime();
    const freeUntil = new Date(booking.free_until);
    // Guest registration (issue 37, guest-form.ts): in Dubai, the state, and the form while the booking takes one.
    const registration =
      registrationRequired(company.settings) &&
      registrationSection(language, token, {
        expected: booking.guests,
        registered: booking.registered,
        open: registrationOpen({ status: booking.status, check_out: booking.check_out, lapsed }, todayIn(company.time_zone, now)),
      });
    const body = html`<main>
<h1>${t.title}: ${title}</h1>
<p>${t.reference}: <strong data-reference>${booking.reference}</strong></p>
<p>${t.status}: <span class="status" data-status="${booking.status}">${t.statuses[booking.status]}</span></p>
<dl>
<dt>${t.checkIn}</dt><dd data-check-in>${atHome(booking.check_in, booking.check_in_time)}</dd>
<dt>${t.checkOut}</dt><dd data-check-out>${atHome(booking.check_out, booking.check_out_time)}</dd>
<dt>${t.guests}</dt><dd>${booking.guests}</dd>
</dl>
<table>
<caption>${t.nights}</caption>
<tbody>
${quote.nights.map((n) => html`<tr><td>${day(n.date)}</td><td>${t.rates[n.rate]}</td><td class="amount">${amount(n.price)}</td></tr>`)}
<tr><th>${t.subtotal}</th><td></td><td class="amount">${amount(quote.subtotal)}</td></tr>
${quote.fees.map((f) =>
  // A classed home's Tourism Dirham (issue 37) as quoted: its own line, how it is made up, outside VAT.
  f.code === 'tourism_fee' && quote.tourism_dirham
    ? html`<tr data-tourism-dirham><td>${t.dirham(quote.tourism_dirham.bedrooms, quote.tourism_dirham.nights, amount(quote.tourism_dirham.per_bedroom_night))}</td><td></td><td class="amount">${amount(f.amount)}</td></tr>`
    : html`<tr><td>${t.fees[f.code]}</td><td></td><td class="amount">${amount(f.amount)}</td></tr>`,
)}
</tbody>
<tfoot>
<tr><th>${t.total}</th><td></td><td class="amount" data-total>${amount(quote.total)}</td></tr>
${
  // The total's VAT as quoted when the booking was requested (issue 35): shown when there is some.
  quote.tax && !new Big(quote.tax.vat).eq(0)
    ? html`<tr><td>${t.net}</td><td></td><td class="amount" data-net>${amount(quote.tax.net)}</td></tr>
<tr><td>${t.vat}</td><td></td><td class="amount" data-vat>${amount(quote.tax.vat)}</td></tr>`
    : ''
}
<tr><th>${t.deposit}</th><td></td><td class="amount">${amount(quote.deposit)}</td></tr>
${booking.status === 'held' || booking.status === 'confirmed' ? html`<tr><th>${t.due}</th><td></td><td class="amount" data-due>${amount(due)}</td></tr>` : ''}
</tfoot>
</table>
${paid.gt(0) ? html`<p>${t.paidSoFar}: <span data-paid>${amount(String(booking.paid))}</span></p>` : ''}
${refunded.gt(0) ? html`<p>${t.refunded}: <span data-refunded>${amount(String(booking.refunded))}</span></p>` : ''}
${refundPending.gt(0) ? html`<p>${t.refundPending}: <span data-refund-pending>${amount(String(booking.refund_pending))}</span></p>` : ''}
${
  dueNowAmount
    ? html`<p>${t.dueNow[dueNowAmount.purpose]}: <strong data-due-now="${dueNowAmount.purpose}">${amount(dueNowAmount.amount)}</strong></p>
<form method="post" action="/stay/${token}/payment"><button type="submit" data-pay>${t.pay(amount(dueNowAmount.amount))}</button></form>`
    : ''
}
<p data-when>${when}</p>
${
  cancellable
    ? html`<section data-cancellation>
<h2>${t.cancelTitle}</h2>
<p>${t.cancelNote}</p>
${freeUntil.getTime() > now.getTime() ? html`<p data-free-until>${t.freeUntil(instant(freeUntil))}</p>` : ''}
${booking.late_cancellation_refund_percent < 100 ? html`<p>${t.lateRefund(booking.late_cancellation_refund_percent, Boolean(quote.tourism_dirham))}</p>` : ''}
<form method="post" action="/stay/${token}/cancellation"><button type="submit" data-cancel>${t.cancel}</button></form>
</section>`
    : ''
}
${booking.status === 'cancelled' || !registration ? '' : registration}
</main>`;
    return c.html(page(language, `${t.title}: ${title}`, body), 200, headers);
  };
}

/** The instant a booking's check-in day, less `days`, begins in the company's time zone (the refund policy's arrival). */
const arrivalSql = (timeZone: string, checkIn: string, days: RawBuilder<unknown>) =>
  sql<Date>`((${sql.ref(checkIn)} - ${days}::int)::timestamp at time zone ${timeZone})`;

/**
 * The stay page's pay button (`POST /stay/{token}/payment`): a checkout of what the booking owes now at the company's
 * provider for its currency (lib/payments/bookings.ts), answered 303 to the provider's page; its return address is the
 * stay page. Only the token's holder reaches the booking, and only on its company's host (another company's token is
 * this page's 404). When nothing can be paid (paid, cancelled, lapsed, held without a deposit; no account; the
 * provider down) the page says so in the guest's language, with the problem's code, and nothing is recorded.
 */
export function payStay() {
  return async function payStayPage(c: Context<AppEnv, '/stay/:token/payment'>): Promise<Response> {
    const { db, config } = c.var.services;
    const payments = (companyId: string, now: Date) => ({
      db,
      config,
      keyring: keyringOf(config),
      send: platformProviderFetch,
      now,
      companyId,
    });
    const found = await stayAction(c, c.req.param('token'), ({ company, at, hash }) =>
      bookingForPayment(payments(company.id, at), hash),
    );
    if (found instanceof Response) return found;
    const { token, company, at, booking: read } = found;
    const ctx = payments(company.id, at);
    const stayUrl = `${new URL(c.req.url).origin}/stay/${token}`;
    try {
      const { answer } = await payBooking(ctx, read, stayUrl);
      return c.body(null, 303, { ...headers, Location: answer.url });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const t = stayTexts[stayLanguage(read.language)];
      const body = html`<main><h1>${t.cannotPay}</h1><p data-problem="${error.code}">${error.message}</p><p><a href="/stay/${token}">${t.back}</a></p></main>`;
      return c.html(page(stayLanguage(read.language), t.cannotPay, body), error.status as 409, headers);
    }
  };
}

/** Whether an `Origin` header names the request's own host; an origin that is not a URL never does. */
/**
 * The stay page's cancel button (`POST /stay/{token}/cancellation`, issue 34): the guest cancels a booking that holds
 * its dates (held, confirmed or paid, not lapsed) before its check-in day begins in the company's time zone. It is the
 * staff's cancellation step (bookings.ts stepBooking: the status machine, `booking.cancelled`), `cancel_reason`
 * `guest`, `caused_by` `website`, then the refund of what the guest paid online by the booking's policy at this moment,
 * as the staff's (lib/payments/refunds.ts, through refundQuietly: a provider that does not answer leaves it pending for
 * the scheduler). Answered 303 back to the stay page, which shows the refund. Only the token's holder reaches the
 * booking, on its company's host; a form posted from another site (`Sec-Fetch-Site` not `same-origin`, or an `Origin`
 * of another host) is refused, 403. A
 * refusal (already cancelled, lapsed, check-in begun) is an HTML page naming the problem; nothing changes then.
 */
export function cancelStay() {
  return async function cancelStayPage(c: Context<AppEnv, '/stay/:token/cancellation'>): Promise<Response> {
    const { db, config } = c.var.services;
    const found = await stayAction(c, c.req.param('token'), ({ company, where }) =>
      db
        .selectFrom('bookings as b')
        .select(['b.reference', 'b.language', arrivalSql(company.time_zone, 'b.check_in', sql`0`).as('arrival')])
        .where(where)
        .executeTakeFirst(),
    );
    if (found instanceof Response) return found;
    const { token, company, at, booking } = found;
    const language = stayLanguage(booking.language);
    const t = stayTexts[language];
    const refuse = (code: string, message: string, status: 403 | 409) =>
      c.html(
        page(
          language,
          t.cannotCancel,
          html`<main><h1>${t.cannotCancel}</h1><p data-problem="${code}">${message}</p><p><a href="/stay/${token}">${t.back}</a></p></main>`,
        ),
        status,
        headers,
      );
    // A browser says where a form was sent from: only the stay page itself may cancel (no cross-site form). Its
    // `Sec-Fetch-Site` is `same-origin`; its `Origin` is `null` (the page's no-referrer policy) or its own.
    if (!sentFromOwnPage(c)) {
      return refuse('origin_not_allowed', 'The cancellation was sent from another site.', 403);
    }
    if (new Date(booking.arrival).getTime() <= at.getTime()) {
      return refuse(
        'cancellation_closed',
        `The booking ${booking.reference} can no longer be cancelled here: its check-in day has begun. Please contact the company.`,
        409,
      );
    }
    try {
      const { booking: cancelled, paidOnline } = await stepBooking(
        db,
        company.id,
        booking.reference,
        'cancel',
        'website',
        at,
        'guest',
      );
      if (paidOnline) {
        await refundQuietly({ db, config, keyring: keyringOf(config), send: platformProviderFetch, now: at }, cancelled.id);
      }
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 409) throw error;
      return refuse(error.code, error.message, 409);
    }
    return c.body(null, 303, { ...headers, Location: `/stay/${token}` });
  };
}
