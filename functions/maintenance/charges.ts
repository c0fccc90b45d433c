import { sql } from 'kysely';
import { todayIn } from '../../lib/dates';
import type { Executor, Trx } from '../../lib/db/index';
import { readLocked } from '../../lib/db/locked';
import { ApiError, notFound } from '../../lib/errors';
import { type CausedBy, recordEvent } from '../../lib/events';
import { linkExternal, linkNewRecord, recordIdByExternal } from '../../lib/external-ids';
import type { ChargeInputValue, ChargePatchValue, ChargesQueryValue } from '../../schema/maintenance/charges';
import type { Company } from '../../schema/platform/db';
import { amountIn } from '../../lib/money';
import { fieldProblem } from '../../lib/named-records';

/** A company's job charges with their job's reference, home and the booked owner's reference joined. */
export function selectCharges(executor: Executor, companyId: string, rows = executor.selectFrom('job_charges').selectAll()) {
  return executor
    .selectFrom(rows.as('job_charges'))
    .innerJoin('jobs as job', 'job.id', 'job_charges.job_id')
    .innerJoin('listings as home', 'home.id', 'job.listing_id')
    .innerJoin('companies as company', 'company.id', 'job_charges.company_id')
    .leftJoin('contacts as owner', 'owner.id', 'job_charges.booked_owner_id')
    .selectAll('job_charges')
    .select([
      sql<string>`job_charges.cost::text`.as('cost'),
      sql<string>`job_charges.booked_on::text`.as('booked_on'),
      sql<string | null>`job_charges.paid_on::text`.as('paid_on'),
      sql<string | null>`job_charges.cancelled_on::text`.as('cancelled_on'),
      'job.reference as job_reference',
      'home.slug_en as home_slug',
      'owner.reference as owner_reference',
      'company.currency as currency',
    ])
    .where('job_charges.company_id', '=', companyId);
}

/** The list's filters: job, payer, owner, status, and `booked_on` / `cancelled_on` ranges (both days included). */
export function filterCharges(select: ReturnType<typeof selectCharges>, query: Partial<ChargesQueryValue>) {
  let filtered = select;
  if (query.job !== undefined) filtered = filtered.where('job.reference', '=', query.job);
  if (query.payer !== undefined) filtered = filtered.where('job_charges.payer', '=', query.payer);
  if (query.owner !== undefined) filtered = filtered.where('owner.reference', '=', query.owner);
  if (query.status !== undefined) filtered = filtered.where('job_charges.status', '=', query.status);
  if (query.booked_from !== undefined) filtered = filtered.where('job_charges.booked_on', '>=', query.booked_from);
  if (query.booked_to !== undefined) filtered = filtered.where('job_charges.booked_on', '<=', query.booked_to);
  if (query.cancelled_from !== undefined) filtered = filtered.where('job_charges.cancelled_on', '>=', query.cancelled_from);
  if (query.cancelled_to !== undefined) filtered = filtered.where('job_charges.cancelled_on', '<=', query.cancelled_to);
  return filtered;
}

/**
 * The home's owner now (a charge is booked today): the landlord of its active lease, else the owner its maintenance
 * settings name; null when neither says.
 */
export async function ownerNow(executor: Executor, listingId: string): Promise<string | null> {
  const lease = await executor
    .selectFrom('leases')
    .select('landlord_id')
    .where('listing_id', '=', listingId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (lease) return lease.landlord_id;
  const home = await executor
    .selectFrom('maintenance_homes')
    .select('owner_id')
    .where('listing_id', '=', listingId)
    .executeTakeFirst();
  return home?.owner_id ?? null;
}

/**
 * Records a charge on a job (any status: a cancelled job may still have cost a visit), booked today in the company's
 * time zone to the home's owner then, and records `job_charge.booked`. Same external id: the first charge.
 */
export async function createCharge(
  trx: Trx,
  company: Company,
  input: ChargeInputValue,
  now: Date,
  causedBy: CausedBy,
): Promise<{ id: string; created: boolean }> {
  if (input.external) {
    const existing = await recordIdByExternal(trx, company.id, 'job_charge', input.external);
    if (existing) return { id: existing, created: false };
  }
  const job = await trx
    .selectFrom('jobs')
    .select(['id', 'listing_id', 'payer', 'reference'])
    .where('company_id', '=', company.id)
    .where('reference', '=', input.job)
    .executeTakeFirst();
  if (!job) throw fieldProblem('job', 'unknown_reference', `${input.job} is not a job of this company.`);
  const bookedOn = todayIn(company.time_zone, now);
  const charge = await trx
    .insertInto('job_charges')
    .values({
      company_id: company.id,
      job_id: job.id,
      cost: amountIn(input.cost, company.currency, 'cost'),
      payer: input.payer ?? job.payer,
      description: input.description ?? null,
      booked_on: bookedOn,
      booked_owner_id: await ownerNow(trx, job.listing_id),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (input.external) await linkNewRecord(trx, company.id, 'job_charge', charge.id, input.external);
  const data = { charge_id: charge.id, job_reference: job.reference };
  await recordEvent(trx, { companyId: company.id, type: 'job_charge.booked', causedBy, data });
  return { id: charge.id, created: true };
}

const fixedFields = ['job', 'cost', 'payer', 'description', 'booked_on', 'booked_owner', 'cancelled_on'] as const;

/**
 * PATCH of a charge: cancel it (a mistake: `cancelled_on` today, `job_charge.cancelled`), mark a renter's charge paid,
 * or link your id. Any other change is `409 charge_fixed`; a cancelled charge takes no step (`409 invalid_transition`),
 * the same status sent again answers the charge unchanged. The database refuses changes to the booked fields too.
 */
export async function updateCharge(
  trx: Trx,
  company: Company,
  id: string,
  input: ChargePatchValue,
  now: Date,
  causedBy: CausedBy,
): Promise<string> {
  const row = trx.selectFrom('job_charges').selectAll().where('company_id', '=', company.id).where('id', '=', id);
  const charge = await readLocked(() => selectCharges(trx, company.id, row.forUpdate()).executeTakeFirst());
  if (!charge) throw notFound(`The charge ${id}`);
  const sent = fixedFields.filter((field) => input[field] !== undefined);
  if (sent.length > 0) {
    throw new ApiError('charge_fixed', `A charge never changes (${sent.join(', ')}): cancel it and record it again.`);
  }
  const linked = input.external ? await linkExternal(trx, company.id, 'job_charge', id, input.external) : false;
  const step = input.status;
  if (step === undefined || step === charge.status) {
    if (linked) await trx.updateTable('job_charges').set({ updated_at: sql`clock_timestamp()` }).where('id', '=', id).execute();
    return id;
  }
  if (charge.status === 'cancelled' || (step === 'paid' && charge.status !== 'booked')) {
    throw new ApiError('invalid_transition', `The charge is ${charge.status}: it cannot be marked ${step}.`);
  }
  const today = todayIn(company.time_zone, now);
  if (step === 'paid') {
    if (charge.payer !== 'renter')
      throw new ApiError('invalid_transition', `Only a renter’s charge is marked paid; the ${charge.payer} pays this one.`);
    const paidOn = input.paid_on ?? today;
    if (paidOn < charge.booked_on) throw fieldProblem('paid_on', 'before_booked_on', `On or after ${charge.booked_on}.`);
    if (paidOn > today) throw fieldProblem('paid_on', 'in_the_future', `A payment received: on or before today, ${today}.`);
    await trx.updateTable('job_charges').set({ status: 'paid', paid_on: paidOn }).where('id', '=', id).execute();
    return id;
  }
  await trx.updateTable('job_charges').set({ status: 'cancelled', cancelled_on: today }).where('id', '=', id).execute();
  const data = { charge_id: id, job_reference: charge.job_reference };
  await recordEvent(trx, { companyId: company.id, type: 'job_charge.cancelled', causedBy, data });
  return id;
}
