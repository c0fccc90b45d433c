import { type RawBuilder, sql } from 'kysely';
import { auditCte, readAuditCte } from '../../lib/audit';
import { stamp } from '../../lib/clock';
import { type Keyring, sealSecret } from '../../lib/crypto-jwe';
import type { Db } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { eventCtes, type EventType, newEventId } from '../../lib/events';
import { amountIn } from '../../lib/money';
import { checkIfMatch } from '../../lib/preconditions';
import type { Written } from '../../lib/resources';
import { checkMove, checkTakes, statusMachine } from '../../lib/transitions';
import { type Stale, stale, type WriteScope, writeStatement } from '../../lib/write';
import { isUuid } from '../../schema/common/api';
import type { LeaseStatus, RentMandateStatus } from '../../schema/leases/db';
import type { RentMandateInputValue, RentMandatePatchValue } from '../../schema/leases/mandates';
import { leaseMachine } from './leases';
import { mandateColumns, type RentMandateRecord, selectMandates } from './mandates.present';

/**
 * Direct-debit mandates of a lease (issue 34): recorded `pending` as the renter signed it, `active` once the bank
 * accepted it, then `cancelled`, `rejected` or `expired`. Each write is two round trips (lib/write.ts): one read, one
 * statement with the change guarded by the version read, its event (ids only) and its audit row. The IBAN is sealed
 * (lib/crypto-jwe.ts sealSecret, bound to the mandate's id) before the statement: no statement, event or audit row
 * ever holds it in clear.
 */

/** A mandate's status moves (the database holds the same table: migration 0038's rent_mandate_fixed). */
export const mandateMachine = statusMachine<RentMandateStatus>('mandate', {
  pending: ['active', 'rejected', 'cancelled'],
  active: ['cancelled', 'expired'],
  cancelled: [],
  rejected: [],
  expired: [],
});

/** The event of each status a mandate moves to. */
const movedEvent: Record<Exclude<RentMandateStatus, 'pending'>, EventType> = {
  active: 'rent_mandate.activated',
  cancelled: 'rent_mandate.cancelled',
  rejected: 'rent_mandate.rejected',
  expired: 'rent_mandate.expired',
};

/** The column each status sets to the moment of the move. */
const movedAt = {
  active: 'activated_at',
  cancelled: 'cancelled_at',
  rejected: 'rejected_at',
  expired: 'expired_at',
} as const;

/** Statuses of a lease that take a mandate: a draft (signed with the contract) and an active lease. */
const takingLease: readonly LeaseStatus[] = ['draft', 'active'];

type LeaseFound = { id: string; status: LeaseStatus; reference: string; currency: string };

/** The mandates `where` finds, as shown, beside the lease of `reference` (when given). */
async function readMandates(db: Db, companyId: string, where: RawBuilder<boolean>, leaseReference?: string) {
  const lease =
    leaseReference === undefined
      ? sql`null::jsonb`
      : sql`(select jsonb_build_object('id', l.id, 'status', l.status, 'reference', l.reference, 'currency', c.currency)
          from leases l join companies c on c.id = l.company_id
          where l.company_id = ${companyId}::uuid and l.reference = ${leaseReference})`;
  const { rows } = await sql<
    { [K in keyof RentMandateRecord]: RentMandateRecord[K] | null } & { lease_found: LeaseFound | null }
  >`
    select k.*, m.*
    from (select ${lease} as lease_found) k
    left join lateral ${selectMandates(db, companyId).where(sql<boolean>`(${where})`)} as m on true
  `.execute(db);
  const mandates = rows
    .filter((row) => row.id !== null)
    .map(({ lease_found: _l, ...mandate }) => mandate as unknown as RentMandateRecord);
  return { mandates, lease: rows[0]?.lease_found ?? null };
}

/** A mandate answered as read, nothing written but the audit of the answer. */
async function mandateAsRead(scope: WriteScope, mandate: RentMandateRecord): Promise<Written<RentMandateRecord>> {
  const audit = readAuditCte('answer_read', scope.answerRead, [mandate.id]);
  if (audit) await writeStatement([audit], sql`select 1`).execute(scope.db);
  return { row: mandate, version: mandate.version };
}

/** The event (`{mandate_id, lease_reference}`: ids only) and the audit row of a mandate's write, after the CTE `source`. */
function announced(scope: WriteScope, type: EventType, mandateId: string, leaseReference: string, source: string) {
  const data = { mandate_id: mandateId, lease_reference: leaseReference };
  return [
    eventCtes('announced', newEventId(), { companyId: scope.company.id, type, causedBy: scope.causedBy, data }, source),
    auditCte('audited', source, { actor: scope.causedBy, action: type, subject: 'id', columns: ['status'] }),
    readAuditCte('answer_read', scope.answerRead, [mandateId], source),
  ];
}

/**
 * `POST /leases/{reference}/rent-mandates`: a `pending` mandate on a draft or active lease. Sent again with the same
 * `mandate_reference` on the same lease: the mandate recorded first, `created: false`, nothing written (a concurrent
 * second insert fails on the reference's key, and the write runs again and finds the first); on another lease of the
 * company, 409 `mandate_reference_taken`.
 */
export async function createMandate(
  scope: WriteScope,
  keyring: Keyring | undefined,
  leaseReference: string,
  input: RentMandateInputValue,
): Promise<Written<RentMandateRecord>> {
  const { db, company } = scope;
  const read = await readMandates(
    db,
    company.id,
    sql<boolean>`rent_mandates.mandate_reference = ${input.mandate_reference}`,
    leaseReference,
  );
  const { lease } = read;
  if (!lease) throw notFound(`The lease ${leaseReference}`);
  const [existing] = read.mandates;
  if (existing) {
    if (existing.lease_id === lease.id) return mandateAsRead(scope, existing);
    throw new ApiError(
      'mandate_reference_taken',
      `The mandate reference ${input.mandate_reference} is already recorded on the lease ${existing.lease_reference}.`,
      { errors: [{ path: 'mandate_reference', code: 'mandate_reference_taken', message: 'Already recorded on another lease.' }] },
    );
  }
  checkTakes(leaseMachine, lease.reference, lease.status, 'mandate', takingLease);
  const maxAmount = amountIn(input.max_amount, lease.currency, 'max_amount');
  const id = crypto.randomUUID();
  const ibanJwe = await sealSecret(keyring, input.iban, id);
  const insert = sql`insert into rent_mandates
      (id, company_id, lease_id, mandate_reference, bank_name, bank_code, account_holder, iban_jwe, iban_last4, max_amount,
       starts_on, ends_on)
    values (${id}::uuid, ${company.id}::uuid, ${lease.id}::uuid, ${input.mandate_reference}, ${input.bank.name},
      ${input.bank.code ?? null}::text, ${input.account_holder}, ${ibanJwe}, ${input.iban.slice(-4)}, ${maxAmount}::numeric,
      ${input.starts_on}::date, ${input.ends_on}::date)
    returning *`;
  const { rows } = await writeStatement(
    [sql`added as (${insert})`, ...announced(scope, 'rent_mandate.created', id, lease.reference, 'added')],
    sql`select ${mandateColumns('added')} from added`,
  ).execute(db);
  const added = rows[0] as RentMandateRecord | undefined;
  if (!added) throw new Error('the mandate was not stored');
  return { row: { ...added, lease_reference: lease.reference, currency: lease.currency }, created: true, version: added.version };
}

/** A mandate id of a path: a UUID, else 404 (no mandate has another id). */
export function mandateId(id: string): string {
  if (!isUuid(id)) throw notFound(`The mandate ${id}`);
  return id;
}

/**
 * `PATCH /rent-mandates/{mandate_id}`: a status move the machine allows, its moment set (`activated_at`…), the event
 * `rent_mandate.<activated|cancelled|rejected|expired>` recorded. The status it has already changes nothing (so
 * concurrent activations give one event). Payments still due under a mandate that is no longer active keep naming it
 * (a collection made before the cancellation is still recorded as received or bounced); a new one cannot name it.
 */
export async function changeMandate(
  scope: WriteScope,
  id: string,
  input: RentMandatePatchValue,
): Promise<Written<RentMandateRecord> | Stale> {
  const { db, company } = scope;
  const read = await readMandates(db, company.id, sql<boolean>`rent_mandates.id = ${mandateId(id)}::uuid`);
  const [mandate] = read.mandates;
  if (!mandate) throw notFound(`The mandate ${id}`);
  checkIfMatch(scope.ifMatch, mandate.version);
  if (input.status === mandate.status) return mandateAsRead(scope, mandate);
  checkMove(mandateMachine, mandate.id, mandate.status, input.status);
  const change = db
    .updateTable('rent_mandates')
    .set({ status: input.status, [movedAt[input.status]]: scope.now, updated_at: stamp })
    .where('id', '=', mandate.id)
    .where(sql<boolean>`version = ${mandate.version}::bigint`)
    .returningAll();
  const { rows } = await writeStatement(
    [sql`changed as (${change})`, ...announced(scope, movedEvent[input.status], mandate.id, mandate.lease_reference, 'changed')],
    sql`select ${mandateColumns('changed')} from changed`,
  ).execute(db);
  const row = rows[0] as RentMandateRecord | undefined;
  if (!row) return stale;
  return { row: { ...mandate, ...row }, version: row.version };
}

/** The mandate list's filters (lease, status) over selectMandates. */
export function filteredMandates(filters: { lease?: string; status?: RentMandateStatus }) {
  return (select: ReturnType<typeof selectMandates>) => {
    let narrowedSelect = select;
    if (filters.lease !== undefined) narrowedSelect = narrowedSelect.where('lease.reference', '=', filters.lease);
    if (filters.status !== undefined) narrowedSelect = narrowedSelect.where('rent_mandates.status', '=', filters.status);
    return narrowedSelect;
  };
}
