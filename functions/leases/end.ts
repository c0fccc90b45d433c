import Big from 'big.js';
import { sql } from 'kysely';
import { todayIn } from '../../lib/dates';
import { amountIn } from '../../lib/money';
import { fieldProblem } from '../../lib/named-records';
import type { Written } from '../../lib/resources';
import { checkMove } from '../../lib/transitions';
import { type Stale, stale, type WriteScope } from '../../lib/write';
import type { EndInputValue } from '../../schema/leases/leases';
import { leaseMachine, readLease, writeChange } from './leases';
import type { LeaseRecord } from './leases.present';

/**
 * Ends an active lease with its deposit's outcome (deductions at most the deposit) and records `lease.ended`.
 * `ended_on` defaults to today in the company's time zone; payments still due after it are cancelled, earlier ones stay
 * due (arrears), in the same statement. A draft or an ended lease is 409 `invalid_transition` (the lease machine).
 */
export async function endLease(
  scope: WriteScope,
  reference: string,
  input: EndInputValue,
): Promise<Written<LeaseRecord> | Stale> {
  const { company, now } = scope;
  const { lease } = await readLease(scope, reference);
  checkMove(leaseMachine, reference, lease.status, 'ended');
  const deductions =
    input.deposit.deductions === undefined ? null : amountIn(input.deposit.deductions, company.currency, 'deposit.deductions');
  if (deductions !== null && new Big(deductions).gt(lease.deposit_amount)) {
    throw fieldProblem('deposit.deductions', 'above_deposit', `At most the deposit, ${lease.deposit_amount}.`);
  }
  const endedOn = input.ended_on ?? todayIn(company.time_zone, now);
  const cancelled = sql`cancelled as (
    update rent_payments set status = 'cancelled', cancelled_at = ${now}::timestamptz
    where lease_id = (select id from changed) and status = 'due' and due_on > ${endedOn}::date
    returning id
  )`;
  const set = {
    status: 'ended' as const,
    ended_on: endedOn,
    deposit_outcome: input.deposit.outcome,
    deposit_deductions: deductions,
    deposit_reason: input.deposit.reason ?? null,
  };
  const row = await writeChange<{ cancelled_ids: string[] }>(scope, lease, set, {
    event: 'lease.ended',
    more: [cancelled],
    extra: sql`coalesce((select jsonb_agg(id) from cancelled), '[]'::jsonb) as cancelled_ids`,
  });
  if (row === stale) return stale;
  const { cancelled_ids, ...changed } = row;
  const payments = lease.payments.map((p) => (cancelled_ids.includes(p.payment_id) ? { ...p, status: 'cancelled' as const } : p));
  return { row: { ...changed, payments }, version: row.version };
}
