import Big from 'big.js';
import { todayIn } from './dates';
import { fixedTo, storedDigits } from './money';
import type { FeeKind } from '../schema/leases/db';

/**
 * A rent payment's receipt, the one way (issue 34): the PATCH of staff (functions/leases/payments.ts) and a provider's
 * settlement (lib/payments/settle.ts) both write these columns, each in its own single statement: the status
 * `received`, `booked_on` today in the company's time zone (the day it counts in the statements), `fee_amount` by the
 * lease's fee now (fixed once: the database refuses a change, migration 0011), and `received_at`.
 */

export type Fee = { kind: FeeKind; value: string };

/**
 * The company's fee on a received payment, set once at receipt: a percentage of the payment (rounded half-up), or the
 * fixed amount; no fee is zero.
 */
export function feeAmount(fee: Fee | null, amount: string, digits: number): string {
  if (fee === null) return fixedTo(0, digits);
  if (fee.kind === 'fixed') return fixedTo(fee.value, digits);
  return fixedTo(new Big(amount).times(fee.value).div(100), digits);
}

/** The lease's fee as its columns hold it (a payment's row carries them from its lease). */
export type FeeColumns = { fee_kind: FeeKind | null; fee_value: string | null };

export type ReceiptColumns = { status: 'received'; booked_on: string; fee_amount: string; received_at: Date };

/** The columns a receipt of `amount` (the payment's, in `currency`) writes, at `now` in the company's `timeZone`. */
export function receiptColumns(lease: FeeColumns, amount: string, currency: string, timeZone: string, now: Date): ReceiptColumns {
  const fee = lease.fee_kind === null || lease.fee_value === null ? null : { kind: lease.fee_kind, value: lease.fee_value };
  return {
    status: 'received',
    booked_on: todayIn(timeZone, now),
    fee_amount: feeAmount(fee, amount, storedDigits(currency)),
    received_at: now,
  };
}
