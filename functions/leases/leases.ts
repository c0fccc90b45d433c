import { type Insertable, type RawBuilder, sql, type Updateable } from 'kysely';
import { readAuditCte } from '../../lib/audit';
import type { Db } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { eventCtes, type EventInput, type EventType, newEventId } from '../../lib/events';
import { type External, externalHolder, type LinkWrite, linkCte, linkFor, linksAfter } from '../../lib/external-ids';
import { amountIn } from '../../lib/money';
import { fieldProblem, type MemberRule, memberKnown, unknownMember, unknownReference } from '../../lib/named-records';
import { checkIfMatch } from '../../lib/preconditions';
import { newReference } from '../../lib/references';
import type { Written } from '../../lib/resources';
import { statusMachine } from '../../lib/transitions';
import { type Stale, stale, type WriteScope, writeStatement } from '../../lib/write';
import type { LeaseStatus, LeasesTable, Warning } from '../../schema/leases/db';
import type { LeaseInputValue, ScheduleInputValue } from '../../schema/leases/leases';
import { type LeaseRecord, leaseColumns, type ScheduleEntry, scheduleOf, selectLeases } from './leases.present';
import { type LeaseRules, leaseRules } from './rules';
import { buildSchedule, type ScheduleRow } from './schedule';
import { type Rent, termRent } from './term';
import { type LeaseFacts, leaseWarnings, type Notice } from './warnings';
import { stamp } from '../../lib/clock';

/**
 * Leases: POST /leases here; PATCH and activation in lease-changes.ts, notices, end and renewal in their files. Each
 * write is two round trips (lib/write.ts): one read of everything its decision needs (the lease with its notices,
 * schedule and external ids, the records the body names, the holder of the client's id), then one statement with the
 * change guarded by the lease's version, its payments, the link, the event and the audit of the answer. The answer is
 * composed from that statement's rows and the read: no other query.
 */

/** A lease's status moves: a draft is activated, an active lease ends; an ended lease is final. */
export const leaseMachine = statusMachine<LeaseStatus>('lease', { draft: ['active'], active: ['ended'], ended: [] });

/** Who may handle a lease: any member of the company. */
const handlerRule: MemberRule = { path: 'handler' };

/** The records a lease's body may name, by the body's values (undefined: not sent). */
export type Named = { home?: string; renter?: string; landlord?: string; handler?: string | null; external?: External };

/** What the read found of {@link Named}: the home's id and listing type, the parties' ids, the holder of the client's id. */
export type Found = {
  home_found: { id: string; type: string } | null;
  renter_found: { id: string; erased: boolean } | null;
  landlord_found: { id: string; erased: boolean } | null;
  handler_known: boolean;
  holder: string | null;
  linked_at: string | null;
};

/** The lookups of {@link Named} as the columns of a read statement (all null or true when not sent). */
function namedColumns(companyId: string, named: Named) {
  const contact = (reference: string | undefined) =>
    reference === undefined
      ? sql`null::jsonb`
      : sql`(select jsonb_build_object('id', id, 'erased', erased) from contacts
          where company_id = ${companyId}::uuid and reference = ${reference})`;
  const held = named.external ? externalHolder(companyId, 'lease', named.external) : undefined;
  return sql`
    ${named.home === undefined ? sql`null::jsonb` : sql`(select jsonb_build_object('id', id, 'type', listing_type) from listings where company_id = ${companyId}::uuid and slug_en = ${named.home})`} as home_found,
    ${contact(named.renter)} as renter_found,
    ${contact(named.landlord)} as landlord_found,
    ${typeof named.handler === 'string' ? memberKnown(companyId, named.handler, handlerRule) : sql`true`} as handler_known,
    ${held?.holder ?? null}::text as holder,
    ${held?.linkedAt ?? null}::text as linked_at`;
}

/**
 * One read: the leases `where` finds (as shown, with their notices, schedule and external ids) beside what the body
 * names ({@link Found}); `k.holder` (the lease holding the client's id) may be named in `where`.
 */
export async function readLeases<E = object>(
  db: Db,
  companyId: string,
  named: Named,
  where: RawBuilder<boolean>,
  extra?: RawBuilder<unknown>,
): Promise<{ leases: Array<LeaseRecord & E>; found: Found }> {
  const { rows } = await sql<Found & { [K in keyof LeaseRecord]: LeaseRecord[K] | null }>`
    select k.*, l.*${extra ? sql`, ${extra}` : sql``}
    from (select ${namedColumns(companyId, named)}) k
    left join lateral ${selectLeases(db, companyId).where(sql<boolean>`(${where})`)} as l on true
  `.execute(db);
  const first = rows[0];
  const found: Found = {
    home_found: first?.home_found ?? null,
    renter_found: first?.renter_found ?? null,
    landlord_found: first?.landlord_found ?? null,
    handler_known: first?.handler_known ?? true,
    holder: first?.holder ?? null,
    linked_at: first?.linked_at ?? null,
  };
  const leases = rows
    .filter((row) => row.id !== null)
    .map(
      ({ home_found, renter_found, landlord_found, handler_known, holder, linked_at, ...lease }) =>
        lease as unknown as LeaseRecord & E,
    );
  return { leases, found };
}

/** The lease by its reference, as read with what the body names; 404 when the company has none; If-Match checked. */
export async function readLease<E = object>(
  scope: WriteScope,
  reference: string,
  named: Named = {},
  extra?: RawBuilder<unknown>,
) {
  const where = sql<boolean>`leases.reference = ${reference}`;
  const { leases, found } = await readLeases<E>(scope.db, scope.company.id, named, where, extra);
  const lease = leases[0];
  if (!lease) throw notFound(`The lease ${reference}`);
  checkIfMatch(scope.ifMatch, lease.version);
  return { lease, found };
}

/** The home the body names: a listing of the company (any type and status); unknown is 400 at `home`. */
export function namedHome(found: Found, slug: string): { id: string; type: string } {
  if (!found.home_found) throw unknownReference('home', `${slug} is not a listing of this company.`);
  return found.home_found;
}

/** A party the body names: a contact of the company; unknown or erased is 400 at `path`. */
export function namedContact(contact: { id: string; erased: boolean } | null, reference: string, path: string): string {
  if (!contact) throw unknownReference(path, `${reference} is not a contact of this company.`);
  if (contact.erased) throw fieldProblem(path, 'contact_erased', `The contact ${reference} is erased.`);
  return contact.id;
}

/** The handler the body names: a member of the company (400 at `handler` otherwise). */
export function namedHandler(found: Found, handler: string | null | undefined): void {
  if (typeof handler === 'string' && !found.handler_known) throw unknownMember(handler, handlerRule);
}

/**
 * The schedule and warnings of a lease's terms: the schedule split from the term's rent or taken as rows (400 on
 * rows the currency cannot keep), then every warning with the company's rules now.
 */
export function planTerms(
  facts: LeaseFacts,
  schedule: ScheduleInputValue,
  notices: Notice[],
  rules: LeaseRules,
): { schedule: { rows: ScheduleRow[]; count: number | null }; warnings: Warning[] } {
  const built = buildSchedule(schedule, facts.term, termRent(facts.rent, facts.term, rules.digits), rules);
  if ('problems' in built) {
    const [first] = built.problems;
    throw new ApiError('invalid_request', first?.message, { errors: built.problems });
  }
  return {
    schedule: { rows: built.rows, count: built.count },
    warnings: leaseWarnings(facts, notices, built.warnings, rules),
  };
}

/** A schedule's rows as the CTE `<name>` inserting them as the rent payments (all due) of the lease of CTE `lease`. */
export function paymentsCte(name: string, companyId: string, lease: string, rows: ScheduleRow[]) {
  const values = JSON.stringify(
    rows.map((row) => ({
      due_on: row.due_on,
      amount: row.amount,
      cheque_number: row.cheque?.number ?? null,
      cheque_bank: row.cheque?.bank ?? null,
    })),
  );
  return sql`${sql.raw(name)} as (
    insert into rent_payments (company_id, lease_id, due_on, amount, cheque_number, cheque_bank)
    select ${companyId}::uuid, ${sql.ref(`${lease}.id`)}, r.due_on, r.amount, r.cheque_number, r.cheque_bank
    from ${sql.raw(lease)}, jsonb_to_recordset(${values}::jsonb) as r(due_on date, amount numeric, cheque_number text, cheque_bank text)
    returning *
  )`;
}

/** A lease answered as read, nothing written but the audit of the answer. */
export async function leaseAsRead(scope: WriteScope, lease: LeaseRecord): Promise<Written<LeaseRecord>> {
  const audit = readAuditCte('answer_read', scope.answerRead, [lease.reference]);
  if (audit) await writeStatement([audit], sql`select 1`).execute(scope.db);
  return { row: lease, version: lease.version };
}

/** The columns of a new draft besides those {@link writeDraft} sets (its id, company, reference, schedule and warnings). */
export type DraftValues = Omit<Insertable<LeasesTable>, 'id' | 'company_id' | 'reference' | 'schedule_count' | 'warnings'>;

/** What a new draft's answer shows of its joins: its home, parties and the lease it renews. */
export type DraftJoins = Pick<
  LeaseRecord,
  | 'home_slug'
  | 'home_type'
  | 'renter_reference'
  | 'landlord_reference'
  | 'renews_reference'
  | 'renews_rent_amount'
  | 'renews_rent_period'
>;

/**
 * A new draft in one statement: the lease with a new `T-` reference, its schedule's rent payments, the client's id,
 * `lease.created` and the audit of the answer.
 */
export async function writeDraft(
  scope: WriteScope,
  values: DraftValues,
  plan: { schedule: { rows: ScheduleRow[]; count: number | null }; warnings: Warning[] },
  joins: DraftJoins,
  link: LinkWrite = { kind: 'none' },
): Promise<Written<LeaseRecord>> {
  const { db, company } = scope;
  const reference = newReference('T');
  const insert = db
    .insertInto('leases')
    .values({
      ...values,
      company_id: company.id,
      reference,
      schedule_count: plan.schedule.count,
      warnings: JSON.stringify(plan.warnings),
    })
    .returningAll();
  const event: EventInput = { companyId: company.id, type: 'lease.created', causedBy: scope.causedBy, data: { reference } };
  const { rows } = await writeStatement(
    [
      sql`added as (${insert})`,
      paymentsCte('paid', company.id, 'added', plan.schedule.rows),
      linkCte('linked', company.id, 'lease', link, 'added'),
      eventCtes('created', newEventId(), event, 'added'),
      readAuditCte('answer_read', scope.answerRead, [reference]),
    ],
    sql`select ${leaseColumns('added')}, ${scheduleOf(sql`paid p`)} as payments from added`,
  ).execute(db);
  const added = rows[0] as (LeaseRecord & { payments: ScheduleEntry[] }) | undefined;
  if (!added) throw new Error('the new lease was not stored');
  const row: LeaseRecord = {
    ...added,
    ...joins,
    renewal_id: null,
    renewal_reference: null,
    currency: company.currency,
    notices: [],
    external: linksAfter([], link, null),
  };
  return { row, created: true, version: added.version };
}

/**
 * The change of a read lease in one statement: `set` guarded by the version read, the CTEs `more` (which may read the
 * changed row from `changed`), the link of the client's id, the event `type` (when given) and the audit of the
 * answer. The changed row's own columns (and `extra`, columns over `changed`), or `stale` when the lease changed since.
 */
export async function writeChange<E = object>(
  scope: WriteScope,
  lease: LeaseRecord,
  set: Updateable<LeasesTable>,
  options: {
    event?: EventType;
    more?: Array<RawBuilder<unknown> | undefined | false>;
    link?: LinkWrite;
    extra?: RawBuilder<unknown>;
  },
): Promise<(LeaseRecord & E) | Stale> {
  const { db, company } = scope;
  const change = db
    .updateTable('leases')
    .set({ ...set, updated_at: stamp })
    .where('id', '=', lease.id)
    .where(sql<boolean>`version = ${lease.version}::bigint`)
    .returningAll();
  const data = { reference: lease.reference };
  const event: EventInput | undefined = options.event
    ? { companyId: company.id, type: options.event, causedBy: scope.causedBy, data }
    : undefined;
  const { rows } = await writeStatement(
    [
      sql`changed as (${change})`,
      ...(options.more ?? []),
      options.link && linkCte('linked', company.id, 'lease', options.link, 'changed'),
      event && eventCtes('happened', newEventId(), event, 'changed'),
      readAuditCte('answer_read', scope.answerRead, [lease.reference]),
    ],
    sql`select ${leaseColumns('changed')}${options.extra ? sql`, ${options.extra}` : sql``} from changed`,
  ).execute(db);
  const row = rows[0] as (LeaseRecord & E) | undefined;
  if (!row) return stale;
  return { ...lease, ...row };
}

/**
 * POST /leases: a draft with its schedule's rent payments, `lease.created`. Sent again with the same external id: the
 * first lease, `created: false`, nothing written. A concurrent create of the same id fails the statement on
 * external_ids' key; lib/write.ts runs it again, and the read finds the first.
 */
export async function createLease(scope: WriteScope, input: LeaseInputValue): Promise<Written<LeaseRecord>> {
  const { db, company } = scope;
  const named: Named = { ...input, handler: input.handler };
  const { leases, found } = await readLeases(db, company.id, named, sql<boolean>`leases.id = k.holder::uuid`);
  const [existing] = leases;
  if (existing) return leaseAsRead(scope, existing);
  const rules = leaseRules(company);
  const home = namedHome(found, input.home);
  const renterId = namedContact(found.renter_found, input.renter, 'renter');
  const landlordId = namedContact(found.landlord_found, input.landlord, 'landlord');
  namedHandler(found, input.handler);
  const rent: Rent = { amount: amountIn(input.rent.amount, company.currency, 'rent.amount'), period: input.rent.period };
  const deposit = amountIn(input.deposit, company.currency, 'deposit');
  const fee = input.fee ? { kind: input.fee.kind, value: amountIn(input.fee.value, company.currency, 'fee.value') } : null;
  const facts: LeaseFacts = {
    home: { slug: input.home, type: home.type },
    term: input.term,
    rent,
    deposit,
    notice_days: input.notice_days ?? rules.noticeDays,
    renews: null,
  };
  const plan = planTerms(facts, input.schedule, [], rules);
  const values: DraftValues = {
    listing_id: home.id,
    renter_id: renterId,
    landlord_id: landlordId,
    starts_on: input.term.start,
    ends_on: input.term.end,
    rent_amount: rent.amount,
    rent_period: rent.period,
    deposit_amount: deposit,
    registration: input.registration ?? null,
    notice_days: facts.notice_days,
    renewal_terms: input.renewal_terms ?? null,
    fee_kind: fee?.kind ?? null,
    fee_value: fee?.value ?? null,
    handler_id: input.handler ?? null,
    notes: input.notes ?? null,
    tax_category: input.tax_category ?? null,
  };
  const joins: DraftJoins = {
    home_slug: input.home,
    home_type: home.type,
    renter_reference: input.renter,
    landlord_reference: input.landlord,
    renews_reference: null,
    renews_rent_amount: null,
    renews_rent_period: null,
  };
  return writeDraft(scope, values, plan, joins, linkFor('lease', input.external, found.holder, undefined));
}
