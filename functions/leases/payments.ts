import { type Updateable, sql } from 'kysely';
import { todayIn } from '../../lib/dates';
import type { Executor, Trx } from '../../lib/db/index';
import { readLocked } from '../../lib/db/locked';
import { ApiError, notFound } from '../../lib/errors';
import { type CausedBy, recordEvent } from '../../lib/events';
import { linkExternal, linkNewRecord, recordIdByExternal } from '../../lib/external-ids';
import { isUuid } from '../../schema/common/api';
import type { RentPaymentsTable, RentPaymentStatus } from '../../schema/leases/db';
import { duePaymentFields, type RentPaymentInputValue, type RentPaymentPatchValue } from '../../schema/leases/rent-payments';
import type { Company } from '../../schema/platform/db';
import { amountIn } from './leases';
import { fieldProblem } from './parties';
import { feeAmount, leaseRules } from './rules';

/**
 * A company's rent payments with what their answer shows joined: the lease's reference and fee, the company's
 * currency. Dates, money and the version as text.
 */
export function selectPayments(executor: Executor, companyId: string, rows = executor.selectFrom('rent_payments').selectAll()) {
  return executor
    .selectFrom(rows.as('rent_payments'))
    .innerJoin('leases as lease', 'lease.id', 'rent_payments.lease_id')
    .innerJoin('companies as company', 'company.id', 'rent_payments.company_id')
    .selectAll('rent_payments')
    .select([
      sql<string>`rent_payments.due_on::text`.as('due_on'),
      sql<string>`rent_payments.amount::text`.as('amount'),
      sql<string | null>`rent_payments.booked_on::text`.as('booked_on'),
      sql<string | null>`rent_payments.fee_amount::text`.as('fee_amount'),
      sql<string | null>`rent_payments.bounced_on::text`.as('bounced_on'),
      sql<string>`rent_payments.version::text`.as('version'),
      'lease.reference as lease_reference',
      'lease.fee_kind as fee_kind',
      'lease.fee_value as fee_value',
      'company.currency as currency',
    ])
    .where('rent_payments.company_id', '=', companyId);
}

/**
 * The payment of this company with this id, locked for the write with its lease; 404 when there is none (or the id is
 * malformed). The lease is locked first, as every lease write does (end, PATCH), so the two never deadlock.
 */
async function lockPayment(trx: Trx, companyId: string, paymentId: string, path?: string) {
  const lease = isUuid(paymentId)
    ? await trx
        .selectFrom('leases')
        .select('id')
        .where('company_id', '=', companyId)
        .where('id', '=', (eb) => eb.selectFrom('rent_payments').select('lease_id').where('id', '=', paymentId))
        .forUpdate()
        .executeTakeFirst()
    : undefined;
  const payment = lease
    ? await readLocked(() => {
        const row = trx.selectFrom('rent_payments').selectAll().where('company_id', '=', companyId).where('id', '=', paymentId);
        return selectPayments(trx, companyId, row.forUpdate()).executeTakeFirst();
      })
    : undefined;
  if (payment) return payment;
  if (path) throw fieldProblem(path, 'unknown_reference', `No payment ${paymentId} in this company.`);
  throw notFound(`The payment ${paymentId}`);
}

type Payment = Awaited<ReturnType<typeof lockPayment>>;

/** The status moves the spec's table allows: from `due` to any settled status, from `received` to `bounced`. */
const moves: Record<RentPaymentStatus, readonly RentPaymentStatus[]> = {
  due: ['received', 'bounced', 'cancelled'],
  received: ['bounced'],
  bounced: [],
  cancelled: [],
};

/** The columns a payment's own fields (sent on a payment still due) write; 409 on a settled payment. */
function ownFields(payment: Payment, input: RentPaymentPatchValue, digits: number): Updateable<RentPaymentsTable> {
  const sent = duePaymentFields.filter((field) => input[field] !== undefined);
  if (sent.length === 0) return {};
  if (payment.status !== 'due') {
    throw new ApiError(
      'payment_settled',
      `The payment ${payment.id} is ${payment.status}: its ${sent.join(', ')} no longer change (only a payment still due does).`,
    );
  }
  const set: Updateable<RentPaymentsTable> = {};
  if (input.due_on !== undefined) set.due_on = input.due_on;
  if (input.amount !== undefined) set.amount = amountIn(input.amount, { digits }, 'amount');
  if (input.cheque !== undefined) {
    set.cheque_number = input.cheque?.number ?? null;
    set.cheque_bank = input.cheque?.bank ?? null;
  }
  if (input.notes !== undefined) set.notes = input.notes;
  return set;
}

/** The columns a status step writes: the day it counted and the fee on receipt, the reversal's day on a bounce. */
function statusStep(payment: Payment, status: RentPaymentStatus, amount: string, today: string, now: Date, digits: number) {
  const set: Updateable<RentPaymentsTable> = { status };
  if (status === 'received') {
    const fee =
      payment.fee_kind === null || payment.fee_value === null ? null : { kind: payment.fee_kind, value: payment.fee_value };
    Object.assign(set, { booked_on: today, fee_amount: feeAmount(fee, amount, digits), received_at: now });
  }
  if (status === 'bounced') Object.assign(set, { bounced_at: now, bounced_on: payment.status === 'received' ? today : null });
  if (status === 'cancelled') set.cancelled_at = now;
  return set;
}

/**
 * PATCH of a rent payment: a payment still due takes changes to its own fields (applied first) and any status step
 * the spec's table allows; `received` sets `booked_on` (today in the company's time zone) and `fee_amount` (the lease's
 * fee now), a bounce after a receipt sets `bounced_on`. Records `rent_payment.received` or `.bounced`. Sending the
 * status a payment already has changes nothing (so concurrent receipts give one event); any other move is 409
 * `invalid_transition`, and a bounced payment never changes (409 `payment_bounced`). Returns the payment's id.
 */
export async function changePayment(
  trx: Trx,
  company: Company,
  paymentId: string,
  input: RentPaymentPatchValue,
  now: Date,
  causedBy: CausedBy,
): Promise<string> {
  const payment = await lockPayment(trx, company.id, paymentId);
  const repeated = input.status === undefined || input.status === payment.status;
  const onlyExternal = duePaymentFields.every((field) => input[field] === undefined);
  if (payment.status === 'bounced' && !(repeated && onlyExternal && (await alreadyLinked(trx, company, payment, input)))) {
    throw new ApiError('payment_bounced', `The payment ${payment.id} bounced: a bounced payment never changes.`);
  }
  const digits = leaseRules(company).digits;
  const set = ownFields(payment, input, digits);
  if (!repeated && input.status !== undefined) {
    if (!moves[payment.status].includes(input.status)) {
      throw new ApiError(
        'invalid_transition',
        `The payment ${payment.id} is ${payment.status}: it cannot become ${input.status}.`,
      );
    }
    const amount = String(set.amount ?? payment.amount);
    Object.assign(set, statusStep(payment, input.status, amount, todayIn(company.time_zone, now), now, digits));
  }
  const linked = input.external ? await linkExternal(trx, company.id, 'rent_payment', payment.id, input.external) : false;
  const changed = Object.keys(set).length > 0;
  if (!changed && !linked) return payment.id;
  // A new id of yours shows in the payment: alone, it moves the payment's updated_at, so a sync pull brings it back.
  const update = changed ? set : { updated_at: sql<Date>`clock_timestamp()` };
  await trx.updateTable('rent_payments').set(update).where('id', '=', payment.id).execute();
  await touchLease(trx, payment.lease_id);
  if (set.status === 'received' || set.status === 'bounced') {
    const data = { payment_id: payment.id, lease_reference: payment.lease_reference };
    await recordEvent(trx, { companyId: company.id, type: `rent_payment.${set.status}`, causedBy, data });
  }
  return payment.id;
}

/** A repeated PATCH of a bounced payment changes nothing when its external id (if any) is linked to it already. */
async function alreadyLinked(trx: Trx, company: Company, payment: Payment, input: RentPaymentPatchValue) {
  if (!input.external) return true;
  return (await recordIdByExternal(trx, company.id, 'rent_payment', input.external)) === payment.id;
}

/**
 * `POST /rent-payments`: a replacement for a bounced payment, `due` on the same lease (a bounced payment may have
 * several). Sent again with the same external id: the first replacement, `created: false`, nothing written. Run it
 * in `transactionRetryingConflict`. A payment that has not bounced is 409 `payment_not_bounced`.
 */
export async function addReplacement(
  trx: Trx,
  company: Company,
  input: RentPaymentInputValue,
): Promise<{ id: string; created: boolean }> {
  if (input.external) {
    const existing = await recordIdByExternal(trx, company.id, 'rent_payment', input.external);
    if (existing) return { id: existing, created: false };
  }
  const replaced = await lockPayment(trx, company.id, input.replaces, 'replaces');
  if (replaced.status !== 'bounced') {
    throw new ApiError(
      'payment_not_bounced',
      `The payment ${replaced.id} is ${replaced.status}: only a bounced payment is replaced.`,
    );
  }
  const digits = leaseRules(company).digits;
  const row = await trx
    .insertInto('rent_payments')
    .values({
      company_id: company.id,
      lease_id: replaced.lease_id,
      due_on: input.due_on,
      amount: amountIn(input.amount, { digits }, 'amount'),
      cheque_number: input.cheque?.number ?? null,
      cheque_bank: input.cheque?.bank ?? null,
      notes: input.notes ?? null,
      replaces_id: replaced.id,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (input.external) await linkNewRecord(trx, company.id, 'rent_payment', row.id, input.external);
  await touchLease(trx, replaced.lease_id);
  return { id: row.id, created: true };
}

/**
 * A lease shows its schedule (each payment's status, due date, amount and cheque): a change to one of its payments
 * is a change to the lease, so its `updated_at` and version move and `updated_since` brings it back.
 */
async function touchLease(trx: Trx, leaseId: string): Promise<void> {
  await trx.updateTable('leases').set({ updated_at: sql<Date>`clock_timestamp()` }).where('id', '=', leaseId).execute();
}
