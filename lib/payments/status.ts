import { statusMachine } from '../transitions';
import type { PaymentStatus } from '../../schema/platform/payments-db';

/**
 * A payment's statuses (issue 34). A checkout that failed or lapsed may still be paid: the provider's word comes late
 * (a webhook after our link expired still settles a payment the provider took). A refund follows a success only.
 */
export const checkoutPaymentMachine = statusMachine<PaymentStatus>('payment', {
  open: ['succeeded', 'failed', 'expired'],
  failed: ['succeeded'],
  expired: ['succeeded'],
  succeeded: ['refunded'],
  refunded: [],
});

/** The statuses a payment may move to `to` from, as SQL's `status in (…)` takes them. */
export function movableTo(to: PaymentStatus): PaymentStatus[] {
  const moves = checkoutPaymentMachine.moves;
  return (Object.keys(moves) as PaymentStatus[]).filter((from) => moves[from].includes(to));
}

/** A payment's id: `pay_` and 24 letters and digits. */
export const paymentIdPattern = /^pay_[A-Za-z0-9]{24}$/;
