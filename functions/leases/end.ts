import Big from 'big.js';
import { todayIn } from '../../lib/dates';
import type { Trx } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';
import { type CausedBy, recordEvent } from '../../lib/events';
import type { EndInputValue } from '../../schema/leases/leases';
import type { Company } from '../../schema/platform/db';
import { lockLease } from './changes';
import { amountIn } from './leases';
import { fieldProblem } from './parties';
import { leaseRules } from './rules';

/**
 * Ends an active lease with its deposit's outcome (deductions at most the deposit) and records `lease.ended`.
 * `ended_on` defaults to today in the company's time zone; payments still due after it are cancelled, earlier ones stay
 * due (arrears). A draft or an ended lease is 409 `invalid_transition`.
 */
export async function endLease(
  trx: Trx,
  company: Company,
  reference: string,
  input: EndInputValue,
  now: Date,
  causedBy: CausedBy,
) {
  const lease = await lockLease(trx, company.id, reference);
  if (lease.status !== 'active') {
    throw new ApiError('invalid_transition', `The lease ${reference} is ${lease.status}: only an active lease ends.`);
  }
  const rules = leaseRules(company);
  const deductions =
    input.deposit.deductions === undefined ? null : amountIn(input.deposit.deductions, rules, 'deposit.deductions');
  if (deductions !== null && new Big(deductions).gt(lease.deposit_amount)) {
    throw fieldProblem('deposit.deductions', 'above_deposit', `At most the deposit, ${lease.deposit_amount}.`);
  }
  const endedOn = input.ended_on ?? todayIn(company.time_zone, now);
  await trx
    .updateTable('leases')
    .set({
      status: 'ended',
      ended_on: endedOn,
      deposit_outcome: input.deposit.outcome,
      deposit_deductions: deductions,
      deposit_reason: input.deposit.reason ?? null,
    })
    .where('id', '=', lease.id)
    .execute();
  await trx
    .updateTable('rent_payments')
    .set({ status: 'cancelled', cancelled_at: now })
    .where('lease_id', '=', lease.id)
    .where('status', '=', 'due')
    .where('due_on', '>', endedOn)
    .execute();
  await recordEvent(trx, {
    companyId: company.id,
    type: 'lease.ended',
    causedBy,
    data: { reference: lease.reference },
  });
  return lease.id;
}
