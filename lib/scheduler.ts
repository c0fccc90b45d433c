import type { Services } from './env';

/**
 * Scheduled work: the platform's own jobs (lib/platform-jobs.ts) and the route groups' jobs are composed at the
 * top (functions/jobs.ts), which the Node server's timer (SCHEDULER_INTERVAL_SECONDS), the Workers' Cron Triggers
 * (wrangler.jsonc) and tests run. Every job is idempotent and safe to run from several places at once (each claims
 * its rows), so an overlapping run only finds less to do.
 */
export type ScheduledJob = { name: string; run(services: Services): Promise<unknown> };

/** Runs every job; one job failing is logged and reported without stopping the others. */
export async function runJobs(services: Services, jobs: readonly ScheduledJob[]): Promise<Record<string, unknown>> {
  const report: Record<string, unknown> = {};
  for (const job of jobs) {
    try {
      report[job.name] = await job.run(services);
    } catch (error) {
      console.error(`scheduled job ${job.name} failed:`, error);
      report[job.name] = { error: error instanceof Error ? error.message : String(error) };
    }
  }
  return report;
}
