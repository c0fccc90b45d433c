import type { z } from '@hono/zod-openapi';
import Big from 'big.js';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { externalIdsOf } from '../../lib/external-ids';
import { storedDigits } from '../../lib/money';
import type { RentPaymentRow } from '../../schema/leases/db';
import type { RentPaymentSchema } from '../../schema/leases/rent-payments';

export type RentPaymentView = z.infer<typeof RentPaymentSchema>;

/** A payment row as selectPayments gives it (payments.ts). */
export type RentPaymentRecord = RentPaymentRow & { lease_reference: string; currency: string };

const money = (value: string | null, digits: number) => (value === null ? null : new Big(value).toFixed(digits));

/** A page of rent payments as the API shows them, with their external ids (one more query for the page). */
export async function presentPayments(db: Executor, rows: RentPaymentRecord[]): Promise<RentPaymentView[]> {
  const externals = await externalIdsOf(
    db,
    'rent_payment',
    rows.map((row) => row.id),
  );
  return rows.map((row) => {
    const digits = storedDigits(row.currency);
    return {
      payment_id: row.id,
      lease: row.lease_reference,
      status: row.status,
      due_on: row.due_on,
      amount: new Big(row.amount).toFixed(digits),
      cheque:
        row.cheque_number === null || row.cheque_bank === null ? null : { number: row.cheque_number, bank: row.cheque_bank },
      notes: row.notes,
      replaces: row.replaces_id,
      booked_on: row.booked_on,
      fee_amount: money(row.fee_amount, digits),
      bounced_on: row.bounced_on,
      received_at: iso(row.received_at),
      bounced_at: iso(row.bounced_at),
      cancelled_at: iso(row.cancelled_at),
      overdue_at: iso(row.overdue_at),
      external: externals.get(row.id) ?? [],
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    };
  });
}
