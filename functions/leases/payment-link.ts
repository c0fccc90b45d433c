import { sql } from 'kysely';
import { keyringOf } from '../../lib/crypto-jwe';
import { notFound } from '../../lib/errors';
import { type LinkAnswer, linkAnswer, openCheckout, requireAccount } from '../../lib/payments/checkout';
import { platformProviderFetch } from '../../lib/payments/index';
import type { ProviderFetch } from '../../lib/payments/provider';
import { checkTakes } from '../../lib/transitions';
import type { WriteScope } from '../../lib/write';
import { isUuid } from '../../schema/common/api';
import type { RentPaymentStatus } from '../../schema/leases/db';
import type { PaymentLinkValue } from '../../schema/leases/payment-links';
import type { PaymentAccountRow, PaymentRow } from '../../schema/platform/payments-db';
import type { Config } from '../../lib/config';
import { paymentMachine } from './payments';

/**
 * A payment link for a rent payment still due (issue 34): the company's provider account for its currency, a checkout
 * on the provider's hosted page for the amount due (and the card fee where the account passes it on). The open link of
 * the payment is answered again while it takes payments. One read (the payment, its lease, the account, the open
 * link), the provider's call, one write (lib/payments/checkout.ts).
 */

type Read = {
  id: string;
  status: RentPaymentStatus;
  amount: string;
  due_on: string;
  lease_reference: string;
  account: PaymentAccountRow | null;
  open: PaymentRow | null;
};

async function readForLink(scope: WriteScope, paymentId: string): Promise<Read | undefined> {
  const { company, now } = scope;
  const { rows } = await sql<Read>`
    select r.id, r.status, r.amount::text as amount, r.due_on::text as due_on, l.reference as lease_reference,
      (select to_jsonb(a) from payment_accounts a where a.company_id = r.company_id and a.currency = ${company.currency}) as account,
      (select to_jsonb(p) from payments p
        where p.company_id = r.company_id and p.rent_payment_id = r.id and p.status = 'open'
          and (p.expires_at is null or p.expires_at > ${now.toISOString()}::timestamptz)) as open
    from rent_payments r join leases l on l.id = r.lease_id
    where r.company_id = ${company.id}::uuid and r.id = ${paymentId}::uuid
  `.execute(scope.db);
  return rows[0];
}

/** `POST /rent-payments/{payment_id}/payment-link`. */
export async function rentPaymentLink(
  scope: WriteScope,
  config: Config,
  paymentId: string,
  input: PaymentLinkValue,
  send: ProviderFetch = platformProviderFetch,
): Promise<{ answer: LinkAnswer; created: boolean }> {
  if (!isUuid(paymentId)) throw notFound(`The payment ${paymentId}`);
  const read = await readForLink(scope, paymentId);
  if (!read) throw notFound(`The payment ${paymentId}`);
  checkTakes(paymentMachine, read.id, read.status, 'payment link', ['due']);
  if (read.open) return { answer: linkAnswer(read.open), created: false };
  const account = requireAccount(read.account ?? undefined, scope.company.currency);
  const { row, created } = await openCheckout({
    db: scope.db,
    config,
    keyring: keyringOf(config),
    send,
    now: scope.now,
    companyId: scope.company.id,
    account,
    purpose: 'rent',
    subject: { column: 'rent_payment_id', id: read.id },
    due: read.amount,
    currency: scope.company.currency,
    description: `Rent due ${read.due_on}, lease ${read.lease_reference}`,
    returnUrl: input.return_url,
    email: input.email ?? null,
    causedBy: scope.causedBy,
  });
  return { answer: linkAnswer(row), created };
}
