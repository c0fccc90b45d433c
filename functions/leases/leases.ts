import Big from 'big.js';
import { type Insertable, sql } from 'kysely';
import type { Executor, Trx } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';
import { type CausedBy, recordEvent } from '../../lib/events';
import { linkNewRecord, recordIdByExternal } from '../../lib/external-ids';
import { fitsDigits } from '../../lib/money';
import { newReference } from '../../lib/references';
import type { LeasesTable, Warning } from '../../schema/leases/db';
import type { LeaseInputValue, ScheduleInputValue } from '../../schema/leases/leases';
import type { Company } from '../../schema/platform/db';
import { checkHandler, fieldProblem, resolveContact, resolveHome } from './parties';
import { leaseRules, type LeaseRules } from './rules';
import { buildSchedule, type ScheduleRow } from './schedule';
import { type Rent, type Term, termRent } from './term';
import { type LeaseFacts, leaseWarnings, type Notice } from './warnings';

/**
 * A company's leases with what their answer shows joined: the home's English slug, the parties' references, the
 * leases this one renews and is renewed by, and the company's currency. Dates and money as text. `rows`: the leases to
 * read (all by default), e.g. one locked bare row (lib/db/locked.ts).
 */
export function selectLeases(executor: Executor, companyId: string, rows = executor.selectFrom('leases').selectAll()) {
  return executor
    .selectFrom(rows.as('leases'))
    .innerJoin('listings as home', 'home.id', 'leases.listing_id')
    .innerJoin('contacts as renter', 'renter.id', 'leases.renter_id')
    .innerJoin('contacts as landlord', 'landlord.id', 'leases.landlord_id')
    .innerJoin('companies as company', 'company.id', 'leases.company_id')
    .leftJoin('leases as renews', 'renews.id', 'leases.renews_id')
    .leftJoin('leases as renewal', 'renewal.renews_id', 'leases.id')
    .selectAll('leases')
    .select([
      sql<string>`leases.starts_on::text`.as('starts_on'),
      sql<string>`leases.ends_on::text`.as('ends_on'),
      sql<string | null>`leases.ended_on::text`.as('ended_on'),
      sql<string>`leases.version::text`.as('version'),
      'home.slug_en as home_slug',
      'home.listing_type as home_type',
      'renter.reference as renter_reference',
      'landlord.reference as landlord_reference',
      'renews.reference as renews_reference',
      'renewal.reference as renewal_reference',
      'company.currency as currency',
    ])
    .where('leases.company_id', '=', companyId);
}

/** An amount of the body kept to the currency's digits, or 400 `currency_digits` at `path`. */
export function amountIn(amount: string, rules: Pick<LeaseRules, 'digits'>, path: string): string {
  if (!fitsDigits(amount, rules.digits)) {
    throw fieldProblem(path, 'currency_digits', `At most ${rules.digits} digits after the point in this currency.`);
  }
  return new Big(amount).toFixed(rules.digits);
}

/** What a draft's terms make: its schedule's rows (or count) and the warnings standing on it. */
export type Terms = LeaseFacts & { schedule: { rows: ScheduleRow[]; count: number | null } };

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

/** Writes a schedule's rows as the lease's rent payments, all `due`. */
export async function insertPayments(trx: Trx, companyId: string, leaseId: string, rows: ScheduleRow[]): Promise<void> {
  await trx
    .insertInto('rent_payments')
    .values(
      rows.map((row) => ({
        company_id: companyId,
        lease_id: leaseId,
        due_on: row.due_on,
        amount: row.amount,
        cheque_number: row.cheque?.number ?? null,
        cheque_bank: row.cheque?.bank ?? null,
      })),
    )
    .execute();
}

/**
 * Adds a draft lease with its schedule's rent payments and records `lease.created`. Sent again with the same external
 * id: the first lease, `created: false`, nothing written. Run it in `transactionRetryingConflict`: a concurrent create
 * with the same external id fails on external_ids' key, and the retry finds the first.
 */
export async function createLease(
  trx: Trx,
  company: Company,
  input: LeaseInputValue,
  causedBy: CausedBy,
): Promise<{ id: string; created: boolean }> {
  if (input.external) {
    const existing = await recordIdByExternal(trx, company.id, 'lease', input.external);
    if (existing) return { id: existing, created: false };
  }
  const rules = leaseRules(company);
  const home = await resolveHome(trx, company.id, input.home);
  const renterId = await resolveContact(trx, company.id, input.renter, 'renter');
  const landlordId = await resolveContact(trx, company.id, input.landlord, 'landlord');
  if (input.handler !== undefined) await checkHandler(trx, company.id, input.handler);
  const term: Term = input.term;
  const rent: Rent = { amount: amountIn(input.rent.amount, rules, 'rent.amount'), period: input.rent.period };
  const deposit = amountIn(input.deposit, rules, 'deposit');
  const fee = input.fee ? { kind: input.fee.kind, value: amountIn(input.fee.value, rules, 'fee.value') } : null;
  const facts: LeaseFacts = {
    home: { slug: input.home, type: home.type },
    term,
    rent,
    deposit,
    notice_days: input.notice_days ?? rules.noticeDays,
    renews: null,
  };
  const plan = planTerms(facts, input.schedule, [], rules);

  const lease = await insertDraft(
    trx,
    company.id,
    {
      listing_id: home.id,
      renter_id: renterId,
      landlord_id: landlordId,
      starts_on: term.start,
      ends_on: term.end,
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
    },
    plan,
  );
  if (input.external) await linkNewRecord(trx, company.id, 'lease', lease.id, input.external);
  await recordEvent(trx, {
    companyId: company.id,
    type: 'lease.created',
    causedBy,
    data: { reference: lease.reference },
  });
  return { id: lease.id, created: true };
}

/** The columns of a new draft besides those insertDraft sets (its company, reference, schedule count and warnings). */
export type DraftValues = Omit<Insertable<LeasesTable>, 'company_id' | 'reference' | 'schedule_count' | 'warnings'>;

/** Writes a draft lease with a new `T-` reference and its schedule's rent payments. */
export async function insertDraft(
  trx: Trx,
  companyId: string,
  values: DraftValues,
  plan: { schedule: { rows: ScheduleRow[]; count: number | null }; warnings: Warning[] },
) {
  const lease = await trx
    .insertInto('leases')
    .values({
      ...values,
      company_id: companyId,
      reference: newReference('T'),
      schedule_count: plan.schedule.count,
      warnings: JSON.stringify(plan.warnings),
    })
    .returning(['id', 'reference'])
    .executeTakeFirstOrThrow();
  await insertPayments(trx, companyId, lease.id, plan.schedule.rows);
  return lease;
}
