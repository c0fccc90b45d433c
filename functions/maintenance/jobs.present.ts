import type { z } from '@hono/zod-openapi';
import Big from 'big.js';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { externalIdsOf } from '../../lib/external-ids';
import { storedDigits } from '../../lib/money';
import type { JobRow } from '../../schema/maintenance/db';
import type { JobSchema } from '../../schema/maintenance/jobs';
import { jobWarnings } from './warnings';

export type JobView = z.infer<typeof JobSchema>;

/** A job row as selectJobs gives it (jobs.ts). */
export type JobRecord = JobRow & {
  home_slug: string;
  lease_reference: string | null;
  blocked: boolean;
  approval_limit: string | null;
  currency: string;
};

/** A page of jobs as the API shows them, with their external ids (one query for the page) and warnings. */
export async function presentJobs(db: Executor, rows: JobRecord[]): Promise<JobView[]> {
  const externals = await externalIdsOf(
    db,
    'job',
    rows.map((row) => row.id),
  );
  return rows.map((row) => {
    const digits = storedDigits(row.currency);
    return {
      reference: row.reference,
      home: row.home_slug,
      lease: row.lease_reference,
      category: row.category,
      priority: row.priority,
      status: row.status,
      problem: row.problem,
      work_done: row.work_done,
      contractor: row.contractor_id,
      member: row.member_id,
      day: row.scheduled_on,
      window: row.window_start === null || row.window_end === null ? null : { start: row.window_start, end: row.window_end },
      calendar: { block_wanted: row.block_wanted, blocked: row.blocked },
      estimate: row.estimate === null ? null : new Big(row.estimate).toFixed(digits),
      payer: row.payer,
      approval: {
        status: row.approval,
        note: row.approval_note,
        requested_at: iso(row.approval_requested_at),
        answered_at: iso(row.approval_answered_at),
      },
      photos: row.photo_count,
      done_on: row.done_on,
      cancel_reason: row.cancel_reason,
      external: externals.get(row.id) ?? [],
      warnings: jobWarnings({
        status: row.status,
        estimate: row.estimate,
        approvalLimit: row.approval_limit,
        approval: row.approval,
        blockWanted: row.block_wanted,
        blocked: row.blocked,
      }),
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    };
  });
}
