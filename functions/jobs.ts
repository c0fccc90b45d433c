import type { Services } from '../lib/env';
import { platformJobs, runJobs, type ScheduledJob } from '../lib/scheduler';
import { bookingJobs } from './stay/jobs';
import { crmJobs } from './crm/jobs';

/**
 * Every scheduled job: the platform's, then each route group's (the one place that lists them). Run by the Node
 * server's timer, the Worker's Cron Triggers and tests. Later groups add theirs here (overdue rent, missed viewings).
 */
export const scheduledJobs: ScheduledJob[] = [...platformJobs, ...crmJobs, ...bookingJobs];

export function runScheduledWork(services: Services, jobs: readonly ScheduledJob[] = scheduledJobs) {
  return runJobs(services, jobs);
}
