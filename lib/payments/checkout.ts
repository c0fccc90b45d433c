import { type RawBuilder, sql } from 'kysely';
import { stamp } from '../clock';
import { randomToken } from '../crypto';
import { ApiError } from '../errors';
import { type CausedBy, eventCtes, newEventId } from '../events';
import { cardFeeOn, fromMinorUnits, minorUnits, roundingUp, sumAmounts } from '../money';
import { writeStatement } from '../write';
import type { PaymentAccountRow, PaymentPurpose, PaymentRow } from '../../schema/platform/payments-db';
import { amountStep, needsEmail, type PaymentsContext, providerOf } from './index';
import { ProviderRefused, ProviderUnavailable } from './provider';

/**
 * A checkout for an amount the API knows is due (issue 34), of a rent payment or of a booking (one way for both): the
 * company's account for the currency, the card fee its
 * account passes on, the provider's rounding (up, never less than due), the provider's hosted page, and the payment
 * row. At most one open checkout per subject (the database's partial unique index): an open one not yet expired is
 * answered again; one past its time lapses (`expired`, `payment.failed`) in the statement that adds its successor.
 */

/** How long a link takes payments: Stripe's longest (24 hours). */
export const checkoutHours = 24;

export type LinkAnswer = {
  payment: string;
  url: string;
  expires_at: string | null;
  amount: string;
  currency: string;
  card_fee: string;
  rounding: string;
};

export const linkAnswer = (
  row: Pick<PaymentRow, 'id' | 'url' | 'expires_at' | 'amount' | 'currency' | 'card_fee' | 'rounding'>,
): LinkAnswer => ({
  payment: row.id,
  url: row.url,
  expires_at: row.expires_at === null ? null : new Date(row.expires_at).toISOString(),
  amount: sumAmounts([row.amount], row.currency),
  currency: row.currency,
  card_fee: sumAmounts([row.card_fee], row.currency),
  rounding: sumAmounts([row.rounding], row.currency),
});

export const newPaymentId = () => `pay_${randomToken(24)}`;

/** The company's account for `currency`, or 409 `payment_account_missing`. */
export function requireAccount(account: PaymentAccountRow | undefined, currency: string): PaymentAccountRow {
  if (!account) {
    throw new ApiError(
      'payment_account_missing',
      `The company has no payment account for ${currency}: the operator connects one (admin API, payment-accounts).`,
    );
  }
  return account;
}

/** What a payment pays: a rent payment, or a booking (its deposit or balance). The column of `payments` naming it. */
export type PaymentSubject = 'rent_payment_id' | 'booking_id';

export type CheckoutRequest = PaymentsContext & {
  account: PaymentAccountRow;
  purpose: PaymentPurpose;
  /** The subject's column and id (`rent_payment_id`, `booking_id`): also the key its events name it by. */
  subject: { column: PaymentSubject; id: string };
  /** The amount due, stored form, in `currency`. */
  due: string;
  currency: string;
  description: string;
  returnUrl: string;
  email: string | null;
  causedBy: CausedBy;
};

const withQuery = (url: string, query: string) => `${url}${url.includes('?') ? '&' : '?'}${query}`;

/**
 * Creates the checkout at the provider, then the payment in one statement that also lapses the subject's open
 * payments past their time. A concurrent request for the same subject that stored its payment first wins (the unique
 * index): its payment is answered (the one made here was never shown; the provider lets it expire).
 */
export async function openCheckout(request: CheckoutRequest): Promise<{ row: PaymentRow; created: boolean }> {
  const { db, account, currency, now } = request;
  const cardFee = cardFeeOn(
    request.due,
    currency,
    account.card_fee_kind && account.card_fee_value !== null
      ? { kind: account.card_fee_kind, value: account.card_fee_value }
      : null,
  );
  const beforeRounding = sumAmounts([request.due, cardFee], currency);
  const rounding = roundingUp(beforeRounding, currency, amountStep(account.provider, currency));
  const amount = sumAmounts([beforeRounding, rounding], currency);
  if (request.email === null && needsEmail(account.provider)) {
    const message = 'The payer’s email: this company’s provider for the currency (N-Genius) needs it to make the payment page.';
    throw new ApiError('invalid_request', message, { errors: [{ path: 'email', code: 'required', message }] });
  }
  const id = newPaymentId();
  const provider = await providerOf(request, account);
  let checkout: Awaited<ReturnType<typeof provider.createCheckout>>;
  try {
    checkout = await provider.createCheckout({
      reference: id,
      amountMinor: minorUnits(amount, currency),
      currency,
      description: request.description,
      successUrl: withQuery(request.returnUrl, `payment=${id}`),
      cancelUrl: withQuery(request.returnUrl, `payment=${id}&cancelled=true`),
      email: request.email,
      expiresAt: new Date(now.getTime() + checkoutHours * 3_600_000),
      idempotencyKey: id,
    });
  } catch (error) {
    if (error instanceof ProviderUnavailable) throw new ApiError('provider_unavailable', error.message);
    if (error instanceof ProviderRefused) throw new ApiError('provider_refused', error.message);
    throw error;
  }
  const subject = sql.ref(request.subject.column);
  const lapse = sql`lapsed as (
    update payments set status = 'expired', updated_at = ${stamp}
    where company_id = ${request.companyId}::uuid and ${subject} = ${request.subject.id}::uuid and status = 'open'
      and expires_at <= ${now.toISOString()}::timestamptz
    returning id, purpose, ${subject} as subject_id
  )`;
  // At most one payment of a subject is open (the unique index): one event at most.
  const lapsedEvent: RawBuilder<unknown> = eventCtes(
    'lapsed',
    newEventId(),
    { companyId: request.companyId, type: 'payment.failed', causedBy: request.causedBy },
    'lapsed',
    sql`jsonb_build_object('payment_id', happened.id, ${request.subject.column}::text, happened.subject_id::text)`,
  );
  const insert = sql`added as (
    insert into payments (id, company_id, account_id, provider, purpose, ${subject}, amount, currency, card_fee, rounding,
      checkout_id, url, expires_at)
    select ${id}, ${request.companyId}::uuid, ${account.id}::uuid, ${account.provider}, ${request.purpose},
      ${request.subject.id}::uuid, ${amount}::numeric, ${currency}, ${cardFee}::numeric, ${rounding}::numeric,
      ${checkout.checkoutId}, ${checkout.url}, ${checkout.expiresAt?.toISOString() ?? null}::timestamptz
    from (select count(*) from lapsed) as after_lapse
    returning *
  )`;
  try {
    const { rows } = await writeStatement([lapse, lapsedEvent, insert], sql`select * from added`).execute(db);
    const row = rows[0] as PaymentRow | undefined;
    if (!row) throw new Error('the payment was not stored');
    return { row, created: true };
  } catch (error) {
    if ((error as { code?: string }).code !== '23505') throw error;
    const winner = await db
      .selectFrom('payments')
      .selectAll()
      .where('company_id', '=', request.companyId)
      .where(request.subject.column, '=', request.subject.id)
      .where('status', '=', 'open')
      .executeTakeFirst();
    if (!winner) throw error;
    return { row: winner, created: false };
  }
}

/** An amount of minor units as stored (for answers built from a provider's figures). */
export const storedFromMinor = (minor: number | null, currency: string) =>
  minor === null ? null : fromMinorUnits(minor, currency);
