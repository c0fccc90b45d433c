import type { Services } from '../lib/env';
import { platformJobs } from '../lib/platform-jobs';
import { runJobs, type ScheduledJob } from '../lib/scheduler';
import { routeGroups } from './app';

/**
 * Every scheduled job: the platform's, then each route group's (declared by the group, functions/<group>/index.ts).
 * Run by the Node server's timer, the default Worker's Cron Triggers and tests.
 */
export const scheduledJobs: ScheduledJob[] = [...platformJobs, ...routeGroups.flatMap((group) => group.jobs ?? [])];

export function runScheduledWork(services: Services, jobs: readonly ScheduledJob[] = scheduledJobs) {
  return runJobs(services, jobs);
}
