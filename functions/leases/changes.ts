import Big from 'big.js';
import type { Updateable } from 'kysely';
import { type Db, isUniqueViolation, type Trx } from '../../lib/db/index';
import { readLocked } from '../../lib/db/locked';
import { ApiError, notFound } from '../../lib/errors';
import { type CausedBy, recordEvent } from '../../lib/events';
import { linkExternal } from '../../lib/external-ids';
import type { LeasesTable, Warning } from '../../schema/leases/db';
import { type LeasePatchValue, leaseTermFields, type ScheduleInputValue } from '../../schema/leases/leases';
import type { Company } from '../../schema/platform/db';
import { amountIn, insertPayments, planTerms, selectLeases } from './leases';
import { checkHandler, fieldProblem, resolveContact, resolveHome } from './parties';
import { type LeaseRules, leaseRules } from './rules';
import { scheduleTotalWarning } from './schedule';
import { termRent } from './term';
import { type LeaseFacts, leaseWarnings, type Notice } from './warnings';

/** The lease of this company with this reference, locked (the bare row) for the write; 404 when there is none. */
export async function lockLease(trx: Trx, companyId: string, reference: string) {
  const row = trx.selectFrom('leases').selectAll().where('company_id', '=', companyId).where('reference', '=', reference);
  const lease = await readLocked(() => selectLeases(trx, companyId, row.forUpdate()).executeTakeFirst());
  if (!lease) throw notFound(`The lease ${reference}`);
  return lease;
}

/** What the warnings read besides the lease itself: its notices and the rent of the lease it renews. */
export async function warningContext(trx: Trx, lease: { id: string; renews_id: string | null }) {
  const notices: Notice[] = await trx
    .selectFrom('lease_notices')
    .select(['given_by', 'intent'])
    .select((eb) => [
      eb.cast<string>('given_on', 'text').as('given_on'),
      eb.cast<string | null>('vacate_on', 'text').as('vacate_on'),
    ])
    .where('lease_id', '=', lease.id)
    .orderBy('recorded_at')
    .execute();
  const renewed = lease.renews_id
    ? await trx.selectFrom('leases').select(['rent_amount', 'rent_period']).where('id', '=', lease.renews_id).executeTakeFirst()
    : undefined;
  const renews = renewed ? { rent: { amount: renewed.rent_amount, period: renewed.rent_period } } : null;
  return { notices, renews };
}

/** The schedule a draft's changed terms call for: the one sent, else the same number of equal payments, else none. */
function scheduleFor(input: LeasePatchValue, scheduleCount: number | null): ScheduleInputValue | null {
  if (input.schedule !== undefined) return input.schedule;
  if ((input.term !== undefined || input.rent !== undefined) && scheduleCount !== null) return { payments: scheduleCount };
  return null;
}

/**
 * PATCH of a lease. A draft's terms (home, parties, term, rent, deposit, notice period, renewal terms, schedule) change
 * only on a draft (else 409 `lease_terms_locked`); the schedule is regenerated from the new schedule, or split again
 * into as many payments when it was a number; explicit rows are kept. Registration, fee, handler, notes and an external
 * id change at any time. The warnings are recomputed; `lease.updated` is recorded when anything changed.
 */
export async function updateLease(trx: Trx, company: Company, reference: string, input: LeasePatchValue, causedBy: CausedBy) {
  const lease = await lockLease(trx, company.id, reference);
  const rules = leaseRules(company);
  const termsSent = leaseTermFields.filter((field) => input[field] !== undefined);
  if (termsSent.length > 0 && lease.status !== 'draft') {
    throw new ApiError(
      'lease_terms_locked',
      `The lease ${reference} is ${lease.status}: its terms (${termsSent.join(', ')}) no longer change.`,
    );
  }
  const set: Updateable<LeasesTable> = {};
  const home = input.home === undefined ? undefined : await resolveHome(trx, company.id, input.home);
  if (home) set.listing_id = home.id;
  if (input.renter !== undefined) set.renter_id = await resolveContact(trx, company.id, input.renter, 'renter');
  if (input.landlord !== undefined) set.landlord_id = await resolveContact(trx, company.id, input.landlord, 'landlord');
  if ((set.renter_id ?? lease.renter_id) === (set.landlord_id ?? lease.landlord_id)) {
    throw fieldProblem(
      input.landlord !== undefined ? 'landlord' : 'renter',
      'same_party',
      'The renter and the landlord are two people.',
    );
  }
  if (input.term !== undefined) Object.assign(set, { starts_on: input.term.start, ends_on: input.term.end });
  if (input.rent !== undefined) {
    Object.assign(set, { rent_amount: amountIn(input.rent.amount, rules, 'rent.amount'), rent_period: input.rent.period });
  }
  if (input.deposit !== undefined) set.deposit_amount = amountIn(input.deposit, rules, 'deposit');
  if (input.notice_days !== undefined) set.notice_days = input.notice_days;
  if (input.renewal_terms !== undefined) set.renewal_terms = input.renewal_terms;
  if (input.registration !== undefined) set.registration = input.registration;
  if (input.fee !== undefined) {
    set.fee_kind = input.fee?.kind ?? null;
    set.fee_value = input.fee ? amountIn(input.fee.value, rules, 'fee.value') : null;
  }
  if (input.handler !== undefined) {
    if (input.handler !== null) await checkHandler(trx, company.id, input.handler);
    set.handler_id = input.handler;
  }
  if (input.notes !== undefined) set.notes = input.notes;
  const facts: LeaseFacts = {
    home: home && input.home ? { slug: input.home, type: home.type } : { slug: lease.home_slug, type: lease.home_type },
    term: { start: set.starts_on ?? lease.starts_on, end: set.ends_on ?? lease.ends_on },
    rent: { amount: String(set.rent_amount ?? lease.rent_amount), period: set.rent_period ?? lease.rent_period },
    deposit: String(set.deposit_amount ?? lease.deposit_amount),
    notice_days: set.notice_days ?? lease.notice_days,
    renews: null,
  };
  const context = await warningContext(trx, lease);
  facts.renews = context.renews;
  const schedule = scheduleFor(input, lease.schedule_count);
  set.warnings = JSON.stringify(
    schedule
      ? await replaceSchedule(trx, company.id, lease.id, facts, schedule, context.notices, rules, set)
      : await keptScheduleWarnings(trx, lease, facts, context.notices, rules),
  );
  const linked = input.external ? await linkExternal(trx, company.id, 'lease', lease.id, input.external) : false;
  const same = (column: string, value: unknown) => String(lease[column as keyof typeof lease]) === String(value);
  const changed = Object.entries(set).some(([column, value]) => column !== 'warnings' && !same(column, value));
  if (!changed && !linked && schedule === null && JSON.stringify(lease.warnings) === set.warnings) return lease.id;
  await trx.updateTable('leases').set(set).where('id', '=', lease.id).execute();
  await recordEvent(trx, { companyId: company.id, type: 'lease.updated', causedBy, data: { reference: lease.reference } });
  return lease.id;
}

/** A draft's schedule replaced: its payments (all still due) deleted and the new rows written. */
async function replaceSchedule(
  trx: Trx,
  companyId: string,
  leaseId: string,
  facts: LeaseFacts,
  schedule: ScheduleInputValue,
  notices: Notice[],
  rules: LeaseRules,
  set: Updateable<LeasesTable>,
): Promise<Warning[]> {
  const plan = planTerms(facts, schedule, notices, rules);
  const settled = await trx
    .selectFrom('rent_payments')
    .select('id')
    .where('lease_id', '=', leaseId)
    .where('status', '<>', 'due')
    .executeTakeFirst();
  if (settled)
    throw new ApiError('lease_terms_locked', 'A payment of this draft is no longer due: its schedule no longer changes.');
  await trx.deleteFrom('rent_payments').where('lease_id', '=', leaseId).execute();
  await insertPayments(trx, companyId, leaseId, plan.schedule.rows);
  set.schedule_count = plan.schedule.count;
  return plan.warnings;
}

/** The warnings of a lease whose schedule stays: explicit rows are judged again against the term's rent. */
export async function keptScheduleWarnings(
  trx: Trx,
  lease: { id: string; schedule_count: number | null },
  facts: LeaseFacts,
  notices: Notice[],
  rules: LeaseRules,
): Promise<Warning[]> {
  const rows = await trx
    .selectFrom('rent_payments')
    .select((eb) => [eb.cast<string>('due_on', 'text').as('due_on'), eb.cast<string>('amount', 'text').as('amount')])
    .where('lease_id', '=', lease.id)
    .where('replaces_id', 'is', null)
    .execute();
  const rent = termRent(facts.rent, facts.term, rules.digits);
  const scheduleWarnings =
    lease.schedule_count === null
      ? scheduleTotalWarning(
          rows.map((row) => ({ ...row, amount: new Big(row.amount).toFixed(rules.digits), cheque: null })),
          rent,
          rules.tolerance,
          rules.digits,
        )
      : [];
  return leaseWarnings(facts, notices, scheduleWarnings, rules);
}

/** PostgreSQL's unique violation of `leases_one_active`: another lease of the home became active first. */
function isHomeOccupied(error: unknown): boolean {
  return isUniqueViolation(error) && (error as { constraint?: unknown }).constraint === 'leases_one_active';
}

/**
 * Activates a draft in the caller's transaction and records `lease.activated` (see {@link activateLease}, which answers
 * 409 when another lease of the home is active). Activating an active lease again answers it (nothing written); an
 * ended lease is `409 invalid_transition`.
 */
export async function activateDraft(trx: Trx, company: Company, reference: string, now: Date, causedBy: CausedBy) {
  const lease = await lockLease(trx, company.id, reference);
  if (lease.status === 'active') return lease.id;
  if (lease.status === 'ended') throw new ApiError('invalid_transition', `The lease ${reference} has ended.`);
  await trx.updateTable('leases').set({ status: 'active', activated_at: now }).where('id', '=', lease.id).execute();
  const data = { reference: lease.reference };
  await recordEvent(trx, { companyId: company.id, type: 'lease.activated', causedBy, data });
  return lease.id;
}

/**
 * Activates a draft ({@link activateDraft}) in a transaction of its own. Refused (409 `lease_home_occupied`) only when
 * another lease of the home is active, which the partial unique index `leases_one_active` decides: of concurrent
 * activations of two drafts of one home, one commits and the others fail there.
 */
export async function activateLease(db: Db, company: Company, reference: string, now: Date, causedBy: CausedBy): Promise<string> {
  try {
    return await db.transaction().execute((trx) => activateDraft(trx, company, reference, now, causedBy));
  } catch (error) {
    if (!isHomeOccupied(error)) throw error;
    throw new ApiError('lease_home_occupied', `Another lease of this home is active: end it before activating ${reference}.`);
  }
}
