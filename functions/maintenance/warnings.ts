import Big from 'big.js';
import type { ApprovalState, JobStatus } from '../../schema/maintenance/db';

/** A company rule a job breaks: the write still succeeded (the spec's maintenance warning codes). */
export type Warning = { code: 'approval_needed' | 'not_approved' | 'calendar_taken'; message: string };

/** What the warnings of a job read. */
export type JobFacts = {
  status: JobStatus;
  estimate: string | null;
  /** The owner's approval limit: the home's, else the company's; null: none. */
  approvalLimit: string | null;
  approval: ApprovalState;
  blockWanted: boolean;
  blocked: boolean;
};

/**
 * The warnings standing on a job, derived from its state on every answer (so a read shows what the last write did):
 * `approval_needed` while the estimate is above the owner's limit and no approval was given or waived; `not_approved`
 * while approval was asked or declined and the job is scheduled or done anyway; `calendar_taken` while a scheduled
 * job wanted its day blocked and a stay held it.
 */
export function jobWarnings(job: JobFacts): Warning[] {
  const warnings: Warning[] = [];
  const open = job.status !== 'cancelled';
  if (
    open &&
    job.estimate !== null &&
    job.approvalLimit !== null &&
    new Big(job.estimate).gt(job.approvalLimit) &&
    (job.approval === 'none' || job.approval === 'requested')
  ) {
    warnings.push({
      code: 'approval_needed',
      message: `The estimate ${job.estimate} is above the owner’s limit of ${job.approvalLimit}: ask the owner, or waive it.`,
    });
  }
  if ((job.status === 'scheduled' || job.status === 'done') && (job.approval === 'requested' || job.approval === 'declined')) {
    const state = job.approval === 'requested' ? 'has not answered' : 'declined';
    warnings.push({ code: 'not_approved', message: `The owner ${state}, and the job is ${job.status} anyway.` });
  }
  if (job.status === 'scheduled' && job.blockWanted && !job.blocked) {
    warnings.push({
      code: 'calendar_taken',
      message: 'A stay covers the day, so the booking calendar was not blocked; the guest is there.',
    });
  }
  return warnings;
}
