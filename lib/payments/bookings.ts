import { sql } from 'kysely';
import { type DueNow, dueNow, requireDue } from '../bookings';
import type { BookingStatus, StoredQuote } from '../../schema/stay/db';
import type { PaymentAccountRow, PaymentRow } from '../../schema/platform/payments-db';
import { type LinkAnswer, linkAnswer, openCheckout, requireAccount } from './checkout';
import type { PaymentsContext } from './index';

/**
 * A guest's payment of a booking from the stay page (issue 34; docs/api-reference.md, "Booking payments"): what is due
 * now (lib/bookings.ts dueNow: the deposit while held, then the balance), a checkout through the company's account for
 * the booking's currency (lib/payments/checkout.ts, as rent's), the open checkout of the booking answered again while
 * it takes payments. One read (the booking by its stay token's hash within the company, what it paid, the account, the
 * open checkout), the provider's call, one write.
 */

export type BookingPaymentRead = {
  id: string;
  reference: string;
  status: BookingStatus;
  quote: StoredQuote;
  currency: string;
  booking_deposit: string;
  sent_email: string | null;
  language: string | null;
  paid: string;
  lapsed: boolean;
  account: PaymentAccountRow | null;
  open: PaymentRow | null;
};

/** The booking of a stay token (its hash) within the company, with what it paid and its account and open checkout. */
export async function bookingForPayment(ctx: PaymentsContext, tokenHash: Uint8Array): Promise<BookingPaymentRead | undefined> {
  const at = sql`${ctx.now.toISOString()}::timestamptz`;
  const { rows } = await sql<BookingPaymentRead>`
    select b.id, b.reference, b.status, b.quote, b.currency, b.booking_deposit::text as booking_deposit, b.sent_email, b.language,
      (select coalesce(sum(p.amount - p.card_fee - p.rounding), 0) from payments p
        where p.booking_id = b.id and p.status in ('succeeded', 'refunded'))::text as paid,
      (b.status = 'held' and b.hold_expires_at <= ${at} or b.status = 'confirmed' and b.payment_due_at <= ${at}) as lapsed,
      (select to_jsonb(a) from payment_accounts a where a.company_id = b.company_id and a.currency = b.currency) as account,
      (select to_jsonb(p) from payments p
        where p.company_id = b.company_id and p.booking_id = b.id and p.status = 'open'
          and (p.expires_at is null or p.expires_at > ${at})) as open
    from bookings b
    where b.company_id = ${ctx.companyId}::uuid and b.stay_token_hash = ${tokenHash}
  `.execute(ctx.db);
  return rows[0];
}

/** The booking's money as lib/bookings.ts weighs it. */
const moneyOf = (read: BookingPaymentRead) => ({
  status: read.status,
  quote: read.quote,
  booking_deposit: read.booking_deposit,
  paid: read.paid,
  lapsed: read.lapsed,
});

/** What the booking `read` owes now (null: nothing). */
export const dueOf = (read: BookingPaymentRead): DueNow => dueNow(moneyOf(read));

/**
 * `POST /stay/{token}/payment`: the checkout of what the booking owes now, at the provider's hosted page; its return
 * address is the stay page. 409 `nothing_due` (paid, cancelled, lapsed, or held without a deposit), 409
 * `payment_account_missing`, 503 `provider_unavailable`: nothing recorded.
 */
export async function payBooking(
  ctx: PaymentsContext,
  read: BookingPaymentRead,
  returnUrl: string,
): Promise<{ answer: LinkAnswer; created: boolean }> {
  const due = requireDue(read.reference, moneyOf(read));
  if (read.open && read.open.purpose === due.purpose) return { answer: linkAnswer(read.open), created: false };
  const account = requireAccount(read.account ?? undefined, read.currency);
  const what = due.purpose === 'booking_deposit' ? 'Deposit' : 'Payment';
  const { row, created } = await openCheckout({
    ...ctx,
    account,
    purpose: due.purpose,
    subject: { column: 'booking_id', id: read.id },
    due: due.amount,
    currency: read.currency,
    description: `${what}, booking ${read.reference}`,
    returnUrl,
    email: read.sent_email,
    causedBy: 'website',
  });
  return { answer: linkAnswer(row), created };
}
