import { sql, type Updateable } from 'kysely';
import { ApiError } from '../../lib/errors';
import { linkFor, linksAfter } from '../../lib/external-ids';
import { amountIn, fixedTo } from '../../lib/money';
import { fieldProblem } from '../../lib/named-records';
import type { Written } from '../../lib/resources';
import { checkMove } from '../../lib/transitions';
import { type Stale, stale, type WriteScope } from '../../lib/write';
import type { LeasesTable, Warning } from '../../schema/leases/db';
import { type LeasePatchValue, leaseTermFields, type ScheduleInputValue } from '../../schema/leases/leases';
import {
  leaseAsRead,
  leaseMachine,
  namedContact,
  namedHandler,
  namedHome,
  paymentsCte,
  planTerms,
  readLease,
  writeChange,
} from './leases';
import { type LeaseRecord, type ScheduleEntry, scheduleOf } from './leases.present';
import { type LeaseRules, leaseRules } from './rules';
import { type ScheduleRow, scheduleTotalWarning } from './schedule';
import { termRent } from './term';
import { type LeaseFacts, leaseWarnings, type Notice } from './warnings';

/** A lease's facts as the warnings read them, from its row as read. */
export function factsOf(lease: LeaseRecord): LeaseFacts {
  return {
    home: { slug: lease.home_slug, type: lease.home_type },
    term: { start: lease.starts_on, end: lease.ends_on },
    rent: { amount: lease.rent_amount, period: lease.rent_period },
    deposit: lease.deposit_amount,
    notice_days: lease.notice_days,
    renews:
      lease.renews_rent_amount === null || lease.renews_rent_period === null
        ? null
        : { rent: { amount: lease.renews_rent_amount, period: lease.renews_rent_period } },
  };
}

/** A lease's notices as the warnings read them. */
export const noticesOf = (lease: LeaseRecord): Notice[] =>
  lease.notices.map((n) => ({ given_on: n.given_on, given_by: n.given_by, intent: n.intent, vacate_on: n.vacate_on }));

/** The warnings of a lease whose schedule stays: explicit rows are judged again against the term's rent. */
export function keptScheduleWarnings(
  lease: { schedule_count: number | null; payments: ScheduleEntry[] },
  facts: LeaseFacts,
  notices: Notice[],
  rules: LeaseRules,
): Warning[] {
  const rows = lease.payments.filter((p) => p.replaces_id === null);
  const rent = termRent(facts.rent, facts.term, rules.digits);
  const scheduleWarnings =
    lease.schedule_count === null
      ? scheduleTotalWarning(
          rows.map((row) => ({ due_on: row.due_on, amount: fixedTo(row.amount, rules.digits), cheque: null })),
          rent,
          rules.tolerance,
          rules.digits,
        )
      : [];
  return leaseWarnings(facts, notices, scheduleWarnings, rules);
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
export async function changeLease(
  scope: WriteScope,
  reference: string,
  input: LeasePatchValue,
): Promise<Written<LeaseRecord> | Stale> {
  const { company } = scope;
  const { lease, found } = await readLease(scope, reference, input);
  const rules = leaseRules(company);
  const termsSent = leaseTermFields.filter((field) => input[field] !== undefined);
  if (termsSent.length > 0 && lease.status !== 'draft') {
    throw new ApiError(
      'lease_terms_locked',
      `The lease ${reference} is ${lease.status}: its terms (${termsSent.join(', ')}) no longer change.`,
    );
  }
  const set: Updateable<LeasesTable> = {};
  const home = input.home === undefined ? undefined : namedHome(found, input.home);
  if (home) set.listing_id = home.id;
  if (input.renter !== undefined) set.renter_id = namedContact(found.renter_found, input.renter, 'renter');
  if (input.landlord !== undefined) set.landlord_id = namedContact(found.landlord_found, input.landlord, 'landlord');
  if ((set.renter_id ?? lease.renter_id) === (set.landlord_id ?? lease.landlord_id)) {
    throw fieldProblem(
      input.landlord !== undefined ? 'landlord' : 'renter',
      'same_party',
      'The renter and the landlord are two people.',
    );
  }
  const { currency } = company;
  if (input.term !== undefined) Object.assign(set, { starts_on: input.term.start, ends_on: input.term.end });
  if (input.rent !== undefined) {
    Object.assign(set, { rent_amount: amountIn(input.rent.amount, currency, 'rent.amount'), rent_period: input.rent.period });
  }
  if (input.deposit !== undefined) set.deposit_amount = amountIn(input.deposit, currency, 'deposit');
  if (input.notice_days !== undefined) set.notice_days = input.notice_days;
  if (input.renewal_terms !== undefined) set.renewal_terms = input.renewal_terms;
  if (input.registration !== undefined) set.registration = input.registration;
  if (input.fee !== undefined) {
    set.fee_kind = input.fee?.kind ?? null;
    set.fee_value = input.fee ? amountIn(input.fee.value, currency, 'fee.value') : null;
  }
  if (input.handler !== undefined) {
    namedHandler(found, input.handler);
    set.handler_id = input.handler;
  }
  if (input.notes !== undefined) set.notes = input.notes;
  if (input.tax_category !== undefined) set.tax_category = input.tax_category;
  const before = factsOf(lease);
  const facts: LeaseFacts = {
    ...before,
    home: home && input.home ? { slug: input.home, type: home.type } : before.home,
    term: { start: set.starts_on ?? lease.starts_on, end: set.ends_on ?? lease.ends_on },
    rent: { amount: String(set.rent_amount ?? lease.rent_amount), period: set.rent_period ?? lease.rent_period },
    deposit: String(set.deposit_amount ?? lease.deposit_amount),
    notice_days: set.notice_days ?? lease.notice_days,
  };
  const notices = noticesOf(lease);
  const schedule = scheduleFor(input, lease.schedule_count);
  let warnings: Warning[];
  let rows: ScheduleRow[] = [];
  if (schedule) {
    const plan = planTerms(facts, schedule, notices, rules);
    if (lease.payments.some((p) => p.status !== 'due')) {
      throw new ApiError('lease_terms_locked', 'A payment of this draft is no longer due: its schedule no longer changes.');
    }
    set.schedule_count = plan.schedule.count;
    warnings = plan.warnings;
    rows = plan.schedule.rows;
  } else {
    warnings = keptScheduleWarnings(lease, facts, notices, rules);
  }
  set.warnings = JSON.stringify(warnings);
  const link = linkFor('lease', input.external, found.holder, lease.id);
  const same = (column: string, value: unknown) => String(lease[column as keyof typeof lease]) === String(value);
  const changed = Object.entries(set).some(([column, value]) => column !== 'warnings' && !same(column, value));
  if (!changed && link.kind === 'none' && schedule === null && JSON.stringify(lease.warnings) === set.warnings) {
    return leaseAsRead(scope, lease);
  }
  const more = schedule
    ? [
        sql`dropped as (delete from rent_payments where lease_id = (select id from changed) returning id)`,
        paymentsCte('paid', company.id, 'changed', rows),
      ]
    : [];
  const row = await writeChange(scope, lease, set, {
    event: 'lease.updated',
    more,
    link,
    extra: schedule ? sql`${scheduleOf(sql`paid p`)} as payments` : undefined,
  });
  if (row === stale) return stale;
  const answer: LeaseRecord = {
    ...row,
    home_slug: facts.home.slug,
    home_type: facts.home.type,
    renter_reference: input.renter ?? lease.renter_reference,
    landlord_reference: input.landlord ?? lease.landlord_reference,
    external: linksAfter(lease.external, link, found.linked_at),
  };
  return { row: answer, version: row.version };
}

/** Whether another lease of the read lease's home is active (a column over the read's lease `l`). */
const homeOccupied = sql`exists (select from leases o where o.listing_id = l.listing_id and o.id <> l.id
  and o.status = 'active') as home_occupied`;

/**
 * Activates a draft and records `lease.activated`. Activating an active lease again answers it (nothing written); an
 * ended lease is `409 invalid_transition`. Refused (409 `lease_home_occupied`) when another lease of the home is
 * active: the read says so, and of concurrent activations of two drafts of one home the partial unique index
 * `leases_one_active` lets one commit; the others' statements fail there, run again (lib/write.ts) and read it.
 */
export async function activateLease(scope: WriteScope, reference: string): Promise<Written<LeaseRecord> | Stale> {
  const { lease } = await readLease<{ home_occupied: boolean }>(scope, reference, {}, homeOccupied);
  if (lease.status === 'active') return leaseAsRead(scope, lease);
  checkMove(leaseMachine, reference, lease.status, 'active');
  if (lease.home_occupied) {
    throw new ApiError('lease_home_occupied', `Another lease of this home is active: end it before activating ${reference}.`);
  }
  const row = await writeChange(scope, lease, { status: 'active', activated_at: scope.now }, { event: 'lease.activated' });
  if (row === stale) return stale;
  return { row, version: row.version };
}
