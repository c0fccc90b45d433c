import { sql, type Updateable } from 'kysely';
import { lockHomeCalendar, staysHolding } from '../../lib/calendar';
import { addDays, todayIn } from '../../lib/dates';
import type { Trx } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';
import { type CausedBy, recordEvent } from '../../lib/events';
import type { JobStatus, JobsTable } from '../../schema/maintenance/db';
import type { ApprovalValue, CancelValue, CompleteValue, ScheduleValue } from '../../schema/maintenance/jobs';
import type { Company } from '../../schema/platform/db';
import { lockJob } from './jobs';
import { checkWho, fieldProblem } from './parties';

/**
 * The job's status machine: schedule an open or scheduled job (rescheduling), complete an open or scheduled one,
 * cancel an open or scheduled one. Completing a done job or cancelling a cancelled one answers it unchanged; any
 * other step from done or cancelled is `409 invalid_transition`.
 */
const steps = {
  schedule: { from: ['open', 'scheduled'], to: 'scheduled' },
  complete: { from: ['open', 'scheduled'], to: 'done' },
  cancel: { from: ['open', 'scheduled'], to: 'cancelled' },
} as const satisfies Record<string, { from: readonly JobStatus[]; to: JobStatus }>;

type Step = keyof typeof steps;
type Job = Awaited<ReturnType<typeof lockJob>>;

/** The locked job, or 409 when `step` cannot leave its status; `done: true` when it is already where `step` leads. */
async function jobFor(trx: Trx, company: Company, reference: string, step: Step): Promise<{ job: Job; done: boolean }> {
  const job = await lockJob(trx, company.id, reference);
  const rule = steps[step];
  if (job.status === rule.to && step !== 'schedule') return { job, done: true };
  if (!(rule.from as readonly JobStatus[]).includes(job.status)) {
    throw new ApiError('invalid_transition', `The job ${reference} is ${job.status}: it cannot be ${step}d any more.`);
  }
  return { job, done: false };
}

async function writeJob(
  trx: Trx,
  job: Job,
  set: Updateable<JobsTable>,
  event: string | null,
  company: Company,
  causedBy: CausedBy,
) {
  await trx
    .updateTable('jobs')
    .set({ ...set, updated_at: sql`clock_timestamp()` })
    .where('id', '=', job.id)
    .execute();
  if (event) await recordEvent(trx, { companyId: company.id, type: event, causedBy, data: { reference: job.reference } });
}

/** Frees the day a job blocked in the booking calendar (a cancelled or rescheduled job). */
function releaseBlock(trx: Trx, jobId: string) {
  return trx.deleteFrom('calendar_blocks').where('job_id', '=', jobId).execute();
}

/**
 * Blocks the night of `day` in the home's booking calendar for the job, unless a stay (held, confirmed or paid, not
 * lapsed) holds it: then nothing is blocked and the job shows `calendar_taken`. The home's terms row is locked first,
 * as every booking request locks it (lib/calendar.ts): a request and a block for the same night take turns, and the
 * later one sees the earlier one's night.
 */
async function blockDay(trx: Trx, company: Company, job: Job, day: string, now: Date): Promise<boolean> {
  await lockHomeCalendar(trx, job.listing_id);
  const next = addDays(day, 1);
  if ((await staysHolding(trx, job.listing_id, day, next, now)).length > 0) return false;
  await trx
    .insertInto('calendar_blocks')
    .values({
      company_id: company.id,
      listing_id: job.listing_id,
      reason: 'maintenance',
      starts_on: day,
      ends_on: next,
      note: `Job ${job.reference}`,
      job_id: job.id,
    })
    .execute();
  return true;
}

/**
 * Schedules (or reschedules) a job: day, window, who does it (default who the job names; a stopped contractor is
 * `409 contractor_stopped`), optionally blocking a holiday home's night. A block held from before is released first.
 * Records `job.scheduled`.
 */
export async function scheduleJob(
  trx: Trx,
  company: Company,
  reference: string,
  input: ScheduleValue,
  now: Date,
  causedBy: CausedBy,
): Promise<string> {
  const { job } = await jobFor(trx, company, reference, 'schedule');
  if (input.block_calendar && job.home_type !== 'holiday_home') {
    throw fieldProblem(
      'block_calendar',
      'not_a_holiday_home',
      `${job.home_slug} is not a holiday home: it has no booking calendar.`,
    );
  }
  const named = input.contractor !== undefined || input.member !== undefined;
  const contractor = named ? (input.contractor ?? null) : job.contractor_id;
  const member = named ? (input.member ?? null) : job.member_id;
  await checkWho(trx, company.id, { contractor, member });
  const set: Updateable<JobsTable> = {
    status: 'scheduled',
    scheduled_on: input.day,
    contractor_id: contractor,
    member_id: member,
    block_wanted: input.block_calendar,
  };
  if (input.window !== undefined) {
    Object.assign(set, { window_start: input.window?.start ?? null, window_end: input.window?.end ?? null });
  }
  await releaseBlock(trx, job.id);
  if (input.block_calendar) await blockDay(trx, company, job, input.day, now);
  await writeJob(trx, job, set, 'job.scheduled', company, causedBy);
  return job.id;
}

/** The work is done (on `done_on`, default today): records `job.done`. The day's block, if any, stays (it was used). */
export async function completeJob(
  trx: Trx,
  company: Company,
  reference: string,
  input: CompleteValue,
  now: Date,
  causedBy: CausedBy,
): Promise<string> {
  const { job, done } = await jobFor(trx, company, reference, 'complete');
  if (done) return job.id;
  const today = todayIn(company.time_zone, now);
  if (input.done_on !== undefined && input.done_on > today) {
    throw fieldProblem('done_on', 'in_the_future', `Work done: on or before today, ${today}.`);
  }
  const set: Updateable<JobsTable> = { status: 'done', done_at: now, done_on: input.done_on ?? today };
  if (input.work_done !== undefined) set.work_done = input.work_done;
  await writeJob(trx, job, set, 'job.done', company, causedBy);
  return job.id;
}

/** The job will not happen: records `job.cancelled` and releases its calendar block. */
export async function cancelJob(
  trx: Trx,
  company: Company,
  reference: string,
  input: CancelValue,
  now: Date,
  causedBy: CausedBy,
): Promise<string> {
  const { job, done } = await jobFor(trx, company, reference, 'cancel');
  if (done) return job.id;
  await releaseBlock(trx, job.id);
  await writeJob(
    trx,
    job,
    { status: 'cancelled', cancelled_at: now, cancel_reason: input.reason ?? null },
    'job.cancelled',
    company,
    causedBy,
  );
  return job.id;
}

/**
 * The owner's approval, at any status (it never locks a job): `requested` asks the owner (`job.approval_requested`),
 * `approved` or `declined` records the answer (`job.approval_answered`), `waived` goes ahead without one (no event).
 */
export async function answerApproval(
  trx: Trx,
  company: Company,
  reference: string,
  input: ApprovalValue,
  now: Date,
  causedBy: CausedBy,
): Promise<string> {
  const job = await lockJob(trx, company.id, reference);
  const set: Updateable<JobsTable> = { approval: input.decision, approval_note: input.note ?? null };
  let event: string | null = null;
  if (input.decision === 'requested') {
    Object.assign(set, { approval_requested_at: now, approval_answered_at: null });
    event = 'job.approval_requested';
  } else if (input.decision === 'approved' || input.decision === 'declined') {
    set.approval_answered_at = now;
    event = 'job.approval_answered';
  }
  await writeJob(trx, job, set, event, company, causedBy);
  return job.id;
}
