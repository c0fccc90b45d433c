import Big from 'big.js';
import { sql, type Updateable } from 'kysely';
import type { Executor, Trx } from '../../lib/db/index';
import { readLocked } from '../../lib/db/locked';
import { notFound } from '../../lib/errors';
import { linkExternal, linkNewRecord, recordIdByExternal } from '../../lib/external-ids';
import { fitsDigits, storedDigits } from '../../lib/money';
import { newReference } from '../../lib/references';
import type { JobsTable } from '../../schema/maintenance/db';
import type { JobInputValue, JobPatchValue } from '../../schema/maintenance/jobs';
import type { Company } from '../../schema/platform/db';
import { activeLeaseOf, checkWho, fieldProblem, resolveHome } from './parties';

/**
 * A company's jobs with what their answer shows joined: the home's slug and type, the lease's reference, whether the
 * job's calendar block exists, the owner's approval limit (the home's, else the company's) and the currency. `rows`:
 * the jobs to read (all by default), e.g. one locked bare row (lib/db/locked.ts).
 */
export function selectJobs(executor: Executor, companyId: string, rows = executor.selectFrom('jobs').selectAll()) {
  return executor
    .selectFrom(rows.as('jobs'))
    .innerJoin('listings as home', 'home.id', 'jobs.listing_id')
    .innerJoin('companies as company', 'company.id', 'jobs.company_id')
    .leftJoin('leases as lease', 'lease.id', 'jobs.lease_id')
    .leftJoin('maintenance_homes as settings', 'settings.listing_id', 'jobs.listing_id')
    .leftJoin('calendar_blocks as block', 'block.job_id', 'jobs.id')
    .selectAll('jobs')
    .select([
      sql<string | null>`jobs.scheduled_on::text`.as('scheduled_on'),
      sql<string | null>`jobs.done_on::text`.as('done_on'),
      sql<string | null>`jobs.estimate::text`.as('estimate'),
      'home.slug_en as home_slug',
      'home.listing_type as home_type',
      'lease.reference as lease_reference',
      sql<boolean>`block.id is not null`.as('blocked'),
      sql<string | null>`coalesce(settings.approval_limit::text, company.settings->>'maintenance_approval_limit')`.as(
        'approval_limit',
      ),
      'company.currency as currency',
    ])
    .where('jobs.company_id', '=', companyId);
}

/** The job of this company with this reference, locked (the bare row) for the write; 404 when there is none. */
export async function lockJob(trx: Trx, companyId: string, reference: string) {
  const row = trx.selectFrom('jobs').selectAll().where('company_id', '=', companyId).where('reference', '=', reference);
  const job = await readLocked(() => selectJobs(trx, companyId, row.forUpdate()).executeTakeFirst());
  if (!job) throw notFound(`The job ${reference}`);
  return job;
}

/** An amount of the body kept to the currency's digits, or 400 `currency_digits` at `path`. */
export function amountFor(company: Company, amount: string, path: string): string {
  const digits = storedDigits(company.currency);
  if (!fitsDigits(amount, digits)) {
    throw fieldProblem(path, 'currency_digits', `At most ${digits} digits after the point in this currency.`);
  }
  return new Big(amount).toFixed(digits);
}

/**
 * Adds a job on a home, on its active lease when it has one. Sent again with the same external id (the helpdesk
 * ticket): the first job, `created: false`, nothing written. Run it in `transactionRetryingConflict`: of concurrent
 * identical creates one links the ticket, the others fail on external_ids' key and their retry finds that job.
 */
export async function createJob(trx: Trx, company: Company, input: JobInputValue): Promise<{ id: string; created: boolean }> {
  if (input.external) {
    const existing = await recordIdByExternal(trx, company.id, 'job', input.external);
    if (existing) return { id: existing, created: false };
  }
  const home = await resolveHome(trx, company.id, input.home);
  await checkWho(trx, company.id, input);
  const job = await trx
    .insertInto('jobs')
    .values({
      company_id: company.id,
      reference: newReference('J'),
      listing_id: home.id,
      lease_id: await activeLeaseOf(trx, home.id),
      category: input.category,
      priority: input.priority,
      problem: input.problem,
      payer: input.payer,
      estimate: input.estimate === undefined ? null : amountFor(company, input.estimate, 'estimate'),
      contractor_id: input.contractor ?? null,
      member_id: input.member ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  if (input.external) await linkNewRecord(trx, company.id, 'job', job.id, input.external);
  return { id: job.id, created: true };
}

/**
 * PATCH of a job, at any status: what is wrong, category, priority, payer, estimate, who does it (a stopped contractor
 * is refused: new work), what was done and your id. Naming a contractor drops the member and the other way round.
 */
export async function updateJob(trx: Trx, company: Company, reference: string, input: JobPatchValue): Promise<string> {
  const job = await lockJob(trx, company.id, reference);
  const { external, estimate, contractor, member, ...fields } = input;
  const set: Updateable<JobsTable> = {};
  for (const [column, value] of Object.entries(fields)) {
    if (value !== undefined) Object.assign(set, { [column]: value });
  }
  if (estimate !== undefined) set.estimate = estimate === null ? null : amountFor(company, estimate, 'estimate');
  if (contractor !== undefined && contractor !== job.contractor_id) {
    await checkWho(trx, company.id, { contractor });
    set.contractor_id = contractor;
    if (contractor !== null) set.member_id = null;
  }
  if (member !== undefined && member !== job.member_id) {
    await checkWho(trx, company.id, { member });
    set.member_id = member;
    if (member !== null) set.contractor_id = null;
  }
  const linked = external ? await linkExternal(trx, company.id, 'job', job.id, external) : false;
  const same = (column: string, value: unknown) => String(job[column as keyof typeof job]) === String(value);
  const changed = Object.entries(set).some(([column, value]) => !same(column, value));
  if (!changed && !linked) return job.id;
  await trx
    .updateTable('jobs')
    .set({ ...set, updated_at: sql`clock_timestamp()` })
    .where('id', '=', job.id)
    .execute();
  return job.id;
}
