import type { z } from '@hono/zod-openapi';
import { sql } from 'kysely';
import { iso } from '../../lib/dates';
import type { Executor } from '../../lib/db/index';
import { type ExternalLink, externalIdsColumn, shownExternalIds } from '../../lib/external-ids';
import { amountOut } from '../../lib/money';
import type { JobRow } from '../../schema/maintenance/db';
import type { JobSchema } from '../../schema/maintenance/jobs';
import { jobWarnings } from './warnings';

export type JobView = z.infer<typeof JobSchema>;

/** A job's row as shown (selectJobs): with its home, lease, calendar block, approval limit, currency and external ids. */
export type JobRecord = JobRow & {
  home_slug: string;
  home_type: string;
  lease_reference: string | null;
  blocked: boolean;
  approval_limit: string | null;
  currency: string;
  external: ExternalLink[];
};

/**
 * A company's jobs with what their answer shows joined: the home's slug and type, the lease's reference, whether the
 * job's calendar block exists, the owner's approval limit (the home's, else the company's), the currency and the
 * external ids (subqueries: one query for a whole page). Dates and the estimate as text.
 */
export function selectJobs(executor: Executor, companyId: string) {
  return executor
    .selectFrom('jobs')
    .innerJoin('listings as home', 'home.id', 'jobs.listing_id')
    .innerJoin('companies as company', 'company.id', 'jobs.company_id')
    .leftJoin('leases as lease', 'lease.id', 'jobs.lease_id')
    .leftJoin('maintenance_homes as settings', 'settings.listing_id', 'jobs.listing_id')
    .selectAll('jobs')
    .select([
      sql<string | null>`jobs.scheduled_on::text`.as('scheduled_on'),
      sql<string | null>`jobs.done_on::text`.as('done_on'),
      sql<string | null>`jobs.estimate::text`.as('estimate'),
      'home.slug_en as home_slug',
      'home.listing_type as home_type',
      'lease.reference as lease_reference',
      sql<boolean>`exists (select from calendar_blocks block where block.job_id = jobs.id)`.as('blocked'),
      sql<string | null>`coalesce(settings.approval_limit::text, company.settings->>'maintenance_approval_limit')`.as(
        'approval_limit',
      ),
      'company.currency as currency',
      externalIdsColumn('job', 'jobs.id').as('external'),
    ])
    .where('jobs.company_id', '=', companyId);
}

/** A job as the API shows it, with the warnings standing on it (from its row alone: no query). */
export function presentJob(row: JobRecord): JobView {
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
    estimate: amountOut(row.estimate, row.currency),
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
    external: shownExternalIds(row.external),
    warnings: jobWarnings({
      status: row.status,
      estimate: amountOut(row.estimate, row.currency),
      approvalLimit: amountOut(row.approval_limit, row.currency),
      approval: row.approval,
      blockWanted: row.block_wanted,
      blocked: row.blocked,
    }),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
