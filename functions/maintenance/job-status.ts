import { sql, type Updateable } from 'kysely';
import { calendarLocked, staysHoldingQuery } from '../../lib/calendar';
import { addDays, todayIn } from '../../lib/dates';
import { writeLockedWhenStale } from '../../lib/locked-write';
import { fieldProblem } from '../../lib/named-records';
import type { Written } from '../../lib/resources';
import { checkMove, statusMachine } from '../../lib/transitions';
import type { EventType } from '../../lib/events';
import type { WriteScope } from '../../lib/write';
import type { JobStatus, JobsTable } from '../../schema/maintenance/db';
import type { ApprovalValue, CancelValue, CompleteValue, ScheduleValue } from '../../schema/maintenance/jobs';
import { checkWho, contractorStillActive, type JobRead, jobUnchanged, lockJob, readJob, writeJobChange } from './jobs';
import type { JobRecord } from './jobs.present';

/**
 * A job's status (lib/transitions.ts): an open or scheduled job is scheduled (again: rescheduled), done or cancelled;
 * done and cancelled are final. Completing a done job or cancelling a cancelled one answers it unchanged.
 */
export const jobMachine = statusMachine<JobStatus>('job', {
  open: ['scheduled', 'done', 'cancelled'],
  scheduled: ['scheduled', 'done', 'cancelled'],
  done: [],
  cancelled: [],
});

/** What a schedule reads beside the job: the home's calendar, the night, the job's own contractor. */
type ScheduleRead = {
  calendar_version: string | null;
  night_taken: boolean;
  own_contractor_status: 'active' | 'stopped' | null;
  own_contractor_name: string | null;
};

/** A write of one job by its reference: read and written once, again with the job locked under a burst. */
function jobWrite(
  scope: WriteScope,
  reference: string,
  attempt: (scope: WriteScope) => ReturnType<typeof writeJobChange>,
): Promise<Written<JobRecord>> {
  return writeLockedWhenStale(scope, (trx) => lockJob(trx, scope.company.id, reference), attempt);
}

/** The CTE that frees the day the job blocked in the booking calendar (a cancelled or rescheduled job). */
const releasedBlock = (job: JobRead) =>
  sql`released as (delete from calendar_blocks where job_id = ${job.id}::uuid and exists (select from changed))`;

/**
 * Schedules (or reschedules) a job: day, window, who does it (default who the job names; a stopped contractor is
 * `409 contractor_stopped`), optionally blocking a holiday home's night. A block held from before is released. The
 * night is not blocked when a stay (held, confirmed or paid, not lapsed) holds it: the job then shows `calendar_taken`.
 * The statement locks the home's terms row first and writes only if the calendar is still as read (any booking, block
 * or release since moves its `calendar_version`), so a booking request and a block never both take the night.
 * Records `job.scheduled`.
 */
export function scheduleJob(scope: WriteScope, reference: string, input: ScheduleValue) {
  const named = input.contractor !== undefined || input.member !== undefined;
  return jobWrite(scope, reference, async (attempt) => {
    const day = sql<string>`${input.day}::date`;
    const calendar = [
      sql<string | null>`(select calendar_version::text from holiday_home_terms t where t.listing_id = jobs.listing_id)`.as(
        'calendar_version',
      ),
      sql<boolean>`exists (${staysHoldingQuery(attempt.db, sql<string>`jobs.listing_id`, day, sql<string>`${addDays(input.day, 1)}::date`, sql<Date>`${attempt.now.toISOString()}::timestamptz`)})`.as(
        'night_taken',
      ),
    ];
    const who = named ? { contractor: input.contractor ?? null, member: input.member ?? null } : {};
    // Who the job names already, when the body names nobody: its contractor's status and name.
    const own = sql`from contractors c where c.id = jobs.contractor_id`;
    const job = await readJob<ScheduleRead>(attempt, reference, who, undefined, [
      ...calendar,
      sql<string | null>`(select c.status ${own})`.as('own_contractor_status'),
      sql<string | null>`(select c.name ${own})`.as('own_contractor_name'),
    ]);
    checkMove(jobMachine, reference, job.status, 'scheduled');
    if (input.block_calendar && job.home_type !== 'holiday_home') {
      throw fieldProblem(
        'block_calendar',
        'not_a_holiday_home',
        `${job.home_slug} is not a holiday home: it has no booking calendar.`,
      );
    }
    const contractor = named ? (input.contractor ?? null) : job.contractor_id;
    const member = named ? (input.member ?? null) : job.member_id;
    if (named) checkWho(job, { contractor, member });
    else
      checkWho(
        { contractor_status: job.own_contractor_status, contractor_name: job.own_contractor_name, member_known: true },
        { contractor },
      );
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
    const blocking = input.block_calendar && !job.night_taken;
    // One block per job (a unique index): a block held from before moves to the new night, else one is added.
    const block = sql`blocked as (insert into calendar_blocks (company_id, listing_id, reason, starts_on, ends_on, note, job_id)
      select company_id, listing_id, 'maintenance', ${input.day}::date, ${addDays(input.day, 1)}::date, ${`Job ${job.reference}`}, id
      from changed
      on conflict (job_id) where job_id is not null do update set starts_on = excluded.starts_on, ends_on = excluded.ends_on)`;
    return writeJobChange(attempt, job, set, {
      guards: [
        input.block_calendar ? calendarLocked(job.listing_id, job.calendar_version) : calendarLocked(job.listing_id),
        contractorStillActive(attempt.company.id, contractor),
      ],
      ctes: [blocking ? block : releasedBlock(job)],
      event: 'job.scheduled',
      blocked: blocking,
    });
  });
}

/** The work is done (on `done_on`, default today): records `job.done`. The day's block, if any, stays (it was used). */
export function completeJob(scope: WriteScope, reference: string, input: CompleteValue) {
  return jobWrite(scope, reference, async (attempt) => {
    const job = await readJob(attempt, reference, {}, undefined);
    if (job.status === 'done') return jobUnchanged(attempt, job);
    checkMove(jobMachine, reference, job.status, 'done');
    const today = todayIn(attempt.company.time_zone, attempt.now);
    if (input.done_on !== undefined && input.done_on > today) {
      throw fieldProblem('done_on', 'in_the_future', `Work done: on or before today, ${today}.`);
    }
    const set: Updateable<JobsTable> = { status: 'done', done_at: attempt.now, done_on: input.done_on ?? today };
    if (input.work_done !== undefined) set.work_done = input.work_done;
    return writeJobChange(attempt, job, set, { event: 'job.done' });
  });
}

/** The job will not happen: records `job.cancelled` and releases its calendar block. */
export function cancelJob(scope: WriteScope, reference: string, input: CancelValue) {
  return jobWrite(scope, reference, async (attempt) => {
    const job = await readJob(attempt, reference, {}, undefined);
    if (job.status === 'cancelled') return jobUnchanged(attempt, job);
    checkMove(jobMachine, reference, job.status, 'cancelled');
    const set: Updateable<JobsTable> = { status: 'cancelled', cancelled_at: attempt.now, cancel_reason: input.reason ?? null };
    return writeJobChange(attempt, job, set, {
      guards: [calendarLocked(job.listing_id)],
      ctes: [releasedBlock(job)],
      event: 'job.cancelled',
      blocked: false,
    });
  });
}

/**
 * The owner's approval, at any status (it never locks a job): `requested` asks the owner (`job.approval_requested`),
 * `approved` or `declined` records the answer (`job.approval_answered`), `waived` goes ahead without one (no event).
 */
export function recordApproval(scope: WriteScope, reference: string, input: ApprovalValue) {
  return jobWrite(scope, reference, async (attempt) => {
    const job = await readJob(attempt, reference, {}, undefined);
    const set: Updateable<JobsTable> = { approval: input.decision, approval_note: input.note ?? null };
    let event: EventType | undefined;
    if (input.decision === 'requested') {
      Object.assign(set, { approval_requested_at: attempt.now, approval_answered_at: null });
      event = 'job.approval_requested';
    } else if (input.decision === 'approved' || input.decision === 'declined') {
      set.approval_answered_at = attempt.now;
      event = 'job.approval_answered';
    }
    return writeJobChange(attempt, job, set, { event });
  });
}
