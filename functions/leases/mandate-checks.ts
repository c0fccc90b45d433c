import Big from 'big.js';
import { type RawBuilder, sql } from 'kysely';
import { ApiError } from '../../lib/errors';
import { amountShown } from '../../lib/money';
import { unknownReference } from '../../lib/named-records';
import { isUuid } from '../../schema/common/api';
import type { RentMandateStatus } from '../../schema/leases/db';

/**
 * Whether a rent payment may be collected under a direct-debit mandate (issue 34): the one check of a payment's
 * PATCH and of a replacement (functions/leases/payments.ts), so a cheque and a collection go through one flow.
 */

/** A mandate as a payment's read finds it (the columns of {@link mandateFound}). */
export type MandateFound = {
  id: string;
  lease_id: string;
  status: RentMandateStatus;
  max_amount: string;
  starts_on: string;
  ends_on: string;
};

/** The id a body names at `direct_debit.mandate`: a UUID, else 400 `unknown_reference` (no mandate has another id). */
export function namedMandateId(mandate: string): string {
  if (!isUuid(mandate)) throw unknownMandate(mandate);
  return mandate;
}

const unknownMandate = (mandate: string) => unknownReference('direct_debit.mandate', `No mandate ${mandate} in this company.`);

/** The column `mandate_found` of a read: the company's mandate `id` (SQL: a uuid or null) as JSON, or null. */
export function mandateFound(companyId: string, id: RawBuilder<unknown>): RawBuilder<MandateFound | null> {
  return sql<MandateFound | null>`(select jsonb_build_object('id', m.id, 'lease_id', m.lease_id, 'status', m.status,
      'max_amount', m.max_amount::text, 'starts_on', m.starts_on::text, 'ends_on', m.ends_on::text)
    from rent_mandates m where m.company_id = ${companyId}::uuid and m.id = ${id})`;
}

function unusable(path: string, code: string, message: string): ApiError {
  return new ApiError('mandate_unusable', message, { errors: [{ path, code, message }] });
}

/**
 * 400/409 unless `mandate` may collect a payment of `leaseId` of `amount` due on `dueOn`: a mandate of the company
 * (400 `unknown_reference` otherwise: another company's mandate is not named), of the same lease, active when the
 * payment names it anew (`named`), whose maximum covers the amount and whose period holds the due day (409
 * `mandate_unusable`, `errors[0].code` saying which).
 */
export function checkMandate(
  mandate: MandateFound | null,
  named: string | undefined,
  payment: { leaseId: string; amount: string; dueOn: string; currency: string },
): void {
  if (!mandate) throw unknownMandate(named ?? '');
  const path = 'direct_debit.mandate';
  if (mandate.lease_id !== payment.leaseId) {
    throw unusable(
      path,
      'mandate_other_lease',
      `The mandate ${mandate.id} belongs to another lease: a payment names its own lease's.`,
    );
  }
  if (named !== undefined && mandate.status !== 'active') {
    throw unusable(
      path,
      'mandate_not_active',
      `The mandate ${mandate.id} is ${mandate.status}: only an active mandate collects.`,
    );
  }
  if (new Big(payment.amount).gt(mandate.max_amount)) {
    throw unusable(
      'amount',
      'mandate_amount_exceeded',
      `The amount ${amountShown(payment.amount, payment.currency)} is above the mandate's maximum of ${amountShown(mandate.max_amount, payment.currency)} per collection.`,
    );
  }
  if (payment.dueOn < mandate.starts_on || payment.dueOn > mandate.ends_on) {
    throw unusable(
      'due_on',
      'mandate_period',
      `The payment is due on ${payment.dueOn}, outside the mandate's period (${mandate.starts_on} to ${mandate.ends_on}).`,
    );
  }
}

/**
 * The CTE `mandate_held` of a payment's write that names a mandate anew: the mandate's row share-locked while it is
 * still active, after the lease (`touched`) is locked, as every write of a lease's schedule locks it first. A mandate
 * cancelled since the read leaves it empty, and the write, guarded by it, changes nothing (run again: refused).
 */
export function mandateHeld(mandateId: string): RawBuilder<unknown> {
  return sql`mandate_held as (
    select id from rent_mandates where id = ${mandateId}::uuid and status = 'active' and exists (select from touched) for share
  )`;
}
