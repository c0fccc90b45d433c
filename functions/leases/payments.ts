import { type RawBuilder, sql, type Updateable } from 'kysely';
import { readAuditCte } from '../../lib/audit';
import { todayIn } from '../../lib/dates';
import type { Db } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { eventCtes, type EventInput, newEventId } from '../../lib/events';
import { type External, externalHolder, linkCte, linkFor, linksAfter } from '../../lib/external-ids';
import { amountIn } from '../../lib/money';
import { unknownReference } from '../../lib/named-records';
import { checkIfMatch } from '../../lib/preconditions';
import type { Written } from '../../lib/resources';
import { checkMove, statusMachine } from '../../lib/transitions';
import { type Stale, stale, type WriteScope, writeStatement } from '../../lib/write';
import { isUuid } from '../../schema/common/api';
import type { RentPaymentStatus, RentPaymentsTable } from '../../schema/leases/db';
import { duePaymentFields, type RentPaymentInputValue, type RentPaymentPatchValue } from '../../schema/leases/rent-payments';
import { paymentColumns, type RentPaymentRecord, selectPayments } from './payments.present';
import { type ReceiptColumns, receiptColumns, taxRatesJson } from '../../lib/rent-receipts';
import {
  type RentDocument,
  type RentFacts,
  rentCreditNote,
  rentFactsJson,
  rentInvoice,
  rentInvoiceCtes,
} from '../../lib/rent-invoices';
import { type IssuedDocument, issuedJson } from '../../lib/invoices';
import type { TaxRate } from '../../lib/tax';
import { stamp } from '../../lib/clock';
import { checkMandate, type MandateFound, mandateFound, mandateHeld, namedMandateId } from './mandate-checks';

/**
 * Rent payments: a receipt, bounce or cancellation (PATCH) and a replacement for a bounced payment (POST), each in two
 * round trips (lib/write.ts): one read (the payment as shown, the holder of the client's id), then one statement
 * that touches the lease (its schedule shows the payment; the lease is written first, as every lease write does, so
 * the two never deadlock), writes the payment guarded by the version read, the link, the event and the audit.
 */

/** The status moves the spec's table allows: from `due` to any settled status, from `received` to `bounced`. */
export const paymentMachine = statusMachine<RentPaymentStatus>('payment', {
  due: ['received', 'bounced', 'cancelled'],
  received: ['bounced'],
  bounced: [],
  cancelled: [],
});

/**
 * The payments `where` finds, as shown, beside the holder of the client's id (`k.holder`, which `where` may name) and,
 * for each, the mandate it will be collected under: the one the body names (`mandate`), else its own (mandate-checks.ts).
 */
async function readPayments(
  db: Db,
  companyId: string,
  external: External | undefined,
  where: RawBuilder<boolean>,
  mandate?: string,
) {
  const held = external ? externalHolder(companyId, 'rent_payment', external) : undefined;
  const { rows } = await sql<
    { [K in keyof RentPaymentRecord]: RentPaymentRecord[K] | null } & {
      holder: string | null;
      linked_at: string | null;
      mandate_found: MandateFound | null;
      tax_rates: TaxRate[];
      rent_facts: RentFacts | null;
      rent_invoice: IssuedDocument | null;
    }
  >`
    select k.*, p.*, ${mandateFound(companyId, sql`coalesce(${mandate ?? null}::uuid, p.mandate_id)`)} as mandate_found,
      ${taxRatesJson} as tax_rates, ${rentFactsJson(sql`p.id`)} as rent_facts,
      ${issuedJson(companyId, 'invoice', 'rent_payment', sql`p.id::text`)} as rent_invoice
    from (select ${held?.holder ?? null}::text as holder, ${held?.linkedAt ?? null}::text as linked_at) k
    left join lateral ${selectPayments(db, companyId).where(sql<boolean>`(${where})`)} as p on true
  `.execute(db);
  const first = rows[0];
  const mandates = new Map<string, MandateFound | null>();
  const invoicing = new Map<string, { facts: RentFacts | null; invoice: IssuedDocument | null }>();
  const payments = rows
    .filter((row) => row.id !== null)
    .map(({ holder: _h, linked_at: _l, mandate_found, tax_rates: _t, rent_facts, rent_invoice, ...payment }) => {
      mandates.set(payment.id as string, mandate_found);
      invoicing.set(payment.id as string, { facts: rent_facts, invoice: rent_invoice });
      return payment as unknown as RentPaymentRecord;
    });
  const rates = first?.tax_rates ?? [];
  return { payments, mandates, invoicing, rates, holder: first?.holder ?? null, linkedAt: first?.linked_at ?? null };
}

/** A payment answered as read, nothing written but the audit of the answer. */
async function paymentAsRead(scope: WriteScope, payment: RentPaymentRecord): Promise<Written<RentPaymentRecord>> {
  const audit = readAuditCte('answer_read', scope.answerRead, [payment.id]);
  if (audit) await writeStatement([audit], sql`select 1`).execute(scope.db);
  return { row: payment, version: payment.version };
}

/** The columns a payment's own fields (sent on a payment still due) write; 409 on a settled payment. */
function ownFields(payment: RentPaymentRecord, input: RentPaymentPatchValue): Updateable<RentPaymentsTable> {
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
  if (input.amount !== undefined) set.amount = amountIn(input.amount, payment.currency, 'amount');
  Object.assign(set, methodColumns(input));
  if (input.notes !== undefined) set.notes = input.notes;
  return set;
}

/**
 * The columns of a body's method: a cheque (number and bank) or a direct debit (its mandate), one replacing the other;
 * `null` for either removes it. Nothing for a body that names neither.
 */
function methodColumns(input: Pick<RentPaymentPatchValue, 'cheque' | 'direct_debit'>): Updateable<RentPaymentsTable> {
  const set: Updateable<RentPaymentsTable> = {};
  if (input.cheque !== undefined) {
    set.cheque_number = input.cheque?.number ?? null;
    set.cheque_bank = input.cheque?.bank ?? null;
    if (input.cheque !== null) set.mandate_id = null;
  }
  if (input.direct_debit !== undefined) {
    set.mandate_id = input.direct_debit === null ? null : namedMandateId(input.direct_debit.mandate);
    if (input.direct_debit !== null) Object.assign(set, { cheque_number: null, cheque_bank: null });
  }
  return set;
}

/**
 * The mandate a payment's write leaves it collected under, checked (mandate-checks.ts) when the body names it anew or
 * changes the amount or due day of a payment collected under one; the mandate named anew, for the write to hold.
 */
function mandateAfter(
  payment: RentPaymentRecord,
  set: Updateable<RentPaymentsTable>,
  found: MandateFound | null | undefined,
): string | undefined {
  const mandateId = set.mandate_id === undefined ? payment.mandate_id : set.mandate_id;
  if (mandateId === null) return undefined;
  const named = set.mandate_id === undefined || set.mandate_id === null ? undefined : set.mandate_id;
  if (named === undefined && set.amount === undefined && set.due_on === undefined) return undefined;
  checkMandate(found ?? null, named, {
    leaseId: payment.lease_id,
    amount: String(set.amount ?? payment.amount),
    dueOn: String(set.due_on ?? payment.due_on),
    currency: payment.currency,
  });
  return named;
}

/** The columns a status step writes: the receipt's (lib/rent-receipts.ts, as a settlement writes them), the reversal's day on a bounce. */
function statusStep(
  payment: RentPaymentRecord,
  status: RentPaymentStatus,
  amount: string,
  scope: WriteScope,
  rates: readonly TaxRate[],
) {
  const { now } = scope;
  const timeZone = scope.company.time_zone;
  const set: Updateable<RentPaymentsTable> = { status };
  if (status === 'received') {
    const tax = { timeZone, settings: scope.company.settings, rates };
    Object.assign(set, receiptColumns(payment, amount, payment.currency, tax, now));
  }
  if (status === 'bounced') {
    Object.assign(set, { bounced_at: now, bounced_on: payment.status === 'received' ? todayIn(timeZone, now) : null });
  }
  if (status === 'cancelled') set.cancelled_at = now;
  return set;
}

/**
 * The tax document a status step issues (lib/rent-invoices.ts): a receipt's invoice, a bounce's credit note of the
 * receipt's invoice; none for any other write. A receipt the company cannot invoice (why: `notIssuedProblems`) is
 * recorded all the same: this answer has no `warnings` to carry them (docs/api-reference.md, "Rent receipts and bounces").
 */
function rentDocument(
  payment: RentPaymentRecord,
  set: Updateable<RentPaymentsTable>,
  facts: RentFacts | null,
  invoice: IssuedDocument | null,
): RentDocument {
  if (set.status === 'received') {
    const columns = set as unknown as ReceiptColumns;
    const paidBy =
      (set.mandate_id === undefined ? payment.mandate_id : set.mandate_id) !== null
        ? 'direct_debit'
        : (set.cheque_number === undefined ? payment.cheque_number : set.cheque_number) !== null
          ? 'cheque'
          : 'other';
    const amount = String(set.amount ?? payment.amount);
    return rentInvoice(facts, { paymentId: payment.id, amount, currency: payment.currency, paidBy }, columns);
  }
  if (set.status === 'bounced' && payment.status === 'received' && typeof set.bounced_on === 'string') {
    return rentCreditNote(invoice, set.bounced_on, { leaseId: payment.lease_id, ownerId: facts?.landlord.id ?? null });
  }
  return { issued: 'none' };
}

/** The CTE `touched`: the lease of a payment, its `updated_at` moved (a change to its schedule is a change to it). */
const touchedLease = (leaseId: string, guard: RawBuilder<boolean> = sql`true`) =>
  sql`touched as (update leases set updated_at = ${stamp} where id = ${leaseId}::uuid and ${guard} returning id)`;

/**
 * PATCH of a rent payment: a payment still due takes changes to its own fields (applied first) and any status step
 * the spec's table allows; `received` sets `booked_on` (today in the company's time zone) and `fee_amount` (the lease's
 * fee now), a bounce after a receipt sets `bounced_on`. Records `rent_payment.received` or `.bounced`. Sending the
 * status a payment already has changes nothing (so concurrent receipts give one event); any other move is 409
 * `invalid_transition`, and a bounced payment never changes (409 `payment_bounced`).
 */
export async function changePayment(
  scope: WriteScope,
  paymentId: string,
  input: RentPaymentPatchValue,
): Promise<Written<RentPaymentRecord> | Stale> {
  const { db, company } = scope;
  if (!isUuid(paymentId)) throw notFound(`The payment ${paymentId}`);
  const named = input.direct_debit ? namedMandateId(input.direct_debit.mandate) : undefined;
  const where = sql<boolean>`rent_payments.id = ${paymentId}::uuid`;
  const read = await readPayments(db, company.id, input.external, where, named);
  const [payment] = read.payments;
  if (!payment) throw notFound(`The payment ${paymentId}`);
  checkIfMatch(scope.ifMatch, payment.version);
  const repeated = input.status === undefined || input.status === payment.status;
  const onlyExternal = duePaymentFields.every((field) => input[field] === undefined);
  const alreadyLinked = !input.external || read.holder === payment.id;
  if (payment.status === 'bounced' && !(repeated && onlyExternal && alreadyLinked)) {
    throw new ApiError('payment_bounced', `The payment ${payment.id} bounced: a bounced payment never changes.`);
  }
  const set = ownFields(payment, input);
  const held = mandateAfter(payment, set, read.mandates.get(payment.id));
  if (!repeated && input.status !== undefined) {
    checkMove(paymentMachine, payment.id, payment.status, input.status);
    Object.assign(set, statusStep(payment, input.status, String(set.amount ?? payment.amount), scope, read.rates));
  }
  const link = linkFor('rent_payment', input.external, read.holder, payment.id);
  if (Object.keys(set).length === 0 && link.kind === 'none') return paymentAsRead(scope, payment);

  const guard = sql<boolean>`exists (select from rent_payments where id = ${payment.id}::uuid and version = ${payment.version}::bigint)`;
  const change = db
    .updateTable('rent_payments')
    .set({ ...set, updated_at: stamp })
    .where('id', '=', payment.id)
    .where(sql<boolean>`version = ${payment.version}::bigint and exists (select from touched)`)
    .where(sql<boolean>`${held === undefined ? sql`true` : sql`exists (select from mandate_held)`}`)
    .returningAll();
  const settled = set.status === 'received' || set.status === 'bounced';
  const invoicing = read.invoicing.get(payment.id);
  const document = rentDocument(payment, set, invoicing?.facts ?? null, invoicing?.invoice ?? null);
  const data = { payment_id: payment.id, lease_reference: payment.lease_reference };
  const event: EventInput = {
    companyId: company.id,
    type: set.status === 'bounced' ? 'rent_payment.bounced' : 'rent_payment.received',
    causedBy: scope.causedBy,
    data,
  };
  const { rows } = await writeStatement(
    [
      touchedLease(payment.lease_id, guard),
      held !== undefined && mandateHeld(held),
      sql`changed as (${change})`,
      linkCte('linked', company.id, 'rent_payment', link, 'changed'),
      settled && eventCtes('settled', newEventId(), event, 'changed'),
      ...rentInvoiceCtes('tax_doc', 'changed', document, {
        companyId: company.id,
        paymentId: payment.id,
        causedBy: scope.causedBy,
      }),
      readAuditCte('answer_read', scope.answerRead, [payment.id]),
    ],
    sql`select ${paymentColumns('changed')} from changed`,
  ).execute(db);
  const row = rows[0] as RentPaymentRecord | undefined;
  if (!row) return stale;
  const answer = { ...payment, ...row, external: linksAfter(payment.external, link, read.linkedAt) };
  return { row: answer, version: row.version };
}

/**
 * `POST /rent-payments`: a replacement for a bounced payment, `due` on the same lease (a bounced payment may have
 * several). Sent again with the same external id: the first replacement, `created: false`, nothing written; a
 * concurrent one fails the statement on external_ids' key, and the write runs again and finds the first. A payment
 * that has not bounced is 409 `payment_not_bounced`.
 */
export async function addReplacement(
  scope: WriteScope,
  input: RentPaymentInputValue,
): Promise<Written<RentPaymentRecord> | Stale> {
  const { db, company } = scope;
  const unknown = () => unknownReference('replaces', `No payment ${input.replaces} in this company.`);
  const replacesId = isUuid(input.replaces) ? input.replaces : null;
  const named = input.direct_debit ? namedMandateId(input.direct_debit.mandate) : undefined;
  const read = await readPayments(
    db,
    company.id,
    input.external,
    sql<boolean>`rent_payments.id = ${replacesId}::uuid or rent_payments.id::text = k.holder`,
    named,
  );
  const existing = read.holder === null ? undefined : read.payments.find((p) => p.id === read.holder);
  if (existing) return paymentAsRead(scope, existing);
  const replaced = read.payments.find((p) => p.id === replacesId);
  if (!replaced) throw unknown();
  if (replaced.status !== 'bounced') {
    throw new ApiError(
      'payment_not_bounced',
      `The payment ${replaced.id} is ${replaced.status}: only a bounced payment is replaced.`,
    );
  }
  const id = crypto.randomUUID();
  const amount = amountIn(input.amount, replaced.currency, 'amount');
  if (named !== undefined) {
    const found = read.mandates.get(replaced.id) ?? null;
    checkMandate(found, named, { leaseId: replaced.lease_id, amount, dueOn: input.due_on, currency: replaced.currency });
  }
  const link = linkFor('rent_payment', input.external, read.holder, undefined);
  // Inserted from `touched`: the lease is written first, as by every write of its schedule.
  const insert = sql`insert into rent_payments
      (id, company_id, lease_id, due_on, amount, cheque_number, cheque_bank, mandate_id, notes, replaces_id)
    select ${id}::uuid, ${company.id}::uuid, touched.id, ${input.due_on}::date, ${amount}::numeric,
      ${input.cheque?.number ?? null}::text, ${input.cheque?.bank ?? null}::text, ${named ?? null}::uuid,
      ${input.notes ?? null}::text, ${replaced.id}::uuid
    from touched where ${named === undefined ? sql`true` : sql`exists (select from mandate_held)`} returning *`;
  const { rows } = await writeStatement(
    [
      touchedLease(replaced.lease_id),
      named !== undefined && mandateHeld(named),
      sql`added as (${insert})`,
      linkCte('linked', company.id, 'rent_payment', link, 'added'),
      readAuditCte('answer_read', scope.answerRead, [id]),
    ],
    sql`select ${paymentColumns('added')} from added`,
  ).execute(db);
  const added = rows[0] as RentPaymentRecord | undefined;
  // Not stored: the mandate it names stopped being active since the read (run again: refused).
  if (!added) return stale;
  const row = { ...replaced, ...added, external: linksAfter([], link, null) };
  return { row, created: true, version: added.version };
}

/** A payment id of a path: a UUID, else 404 (no payment has another id). */
export function paymentId(id: string): string {
  if (!isUuid(id)) throw notFound(`The payment ${id}`);
  return id;
}

/** The payment list's filters (lease, status, the month of receipts or reversals) over selectPayments. */
export function filteredPayments(filters: {
  lease?: string;
  status?: RentPaymentStatus;
  booked_from?: string;
  booked_to?: string;
  bounced_from?: string;
  bounced_to?: string;
}) {
  return (select: ReturnType<typeof selectPayments>) => {
    let narrowedSelect = select;
    const { lease, status, booked_from, booked_to, bounced_from, bounced_to } = filters;
    if (lease !== undefined) narrowedSelect = narrowedSelect.where('lease.reference', '=', lease);
    if (status !== undefined) narrowedSelect = narrowedSelect.where('rent_payments.status', '=', status);
    if (booked_from !== undefined) narrowedSelect = narrowedSelect.where('rent_payments.booked_on', '>=', booked_from);
    if (booked_to !== undefined) narrowedSelect = narrowedSelect.where('rent_payments.booked_on', '<=', booked_to);
    if (bounced_from !== undefined) narrowedSelect = narrowedSelect.where('rent_payments.bounced_on', '>=', bounced_from);
    if (bounced_to !== undefined) narrowedSelect = narrowedSelect.where('rent_payments.bounced_on', '<=', bounced_to);
    return narrowedSelect;
  };
}
