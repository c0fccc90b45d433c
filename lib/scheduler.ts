import type { Services } from './env';
import { holdOutbound, type OutboundPause } from './outbound';

/**
 * Scheduled work: the platform's own jobs (lib/platform-jobs.ts) and the route groups' jobs are composed at the
 * top (functions/jobs.ts), which the Node server's timer (SCHEDULER_INTERVAL_SECONDS), the Workers' Cron Triggers
 * (wrangler.jsonc) and tests run. Every job is idempotent and safe to run from several places at once (each claims
 * its rows), so an overlapping run only finds less to do. A job that reaches outside (a fetch, a POST, a hand-off
 * to QStash) says so with `outbound`: it is held while the database's outbound work is paused (lib/outbound.ts).
 */
export type ScheduledJob = { name: string; outbound?: true; run(services: Services): Promise<unknown> };

/** What a held job reports. */
export const heldReport = { held: 'outbound work is paused (npm run admin -- outbound status)' } as const;

/**
 * Runs every job; one job failing is logged and reported without stopping the others. When a job reaches outside, the
 * pause is read first (one statement, which counts the run as held when paused): held jobs do not run. `onOutbound`
 * hears the pause (undefined: running), for the Node server's dispatcher.
 */
export async function runJobs(
  services: Services,
  jobs: readonly ScheduledJob[],
  options: { onOutbound?: (pause: OutboundPause | undefined) => void } = {},
): Promise<Record<string, unknown>> {
  const report: Record<string, unknown> = {};
  let pause: OutboundPause | undefined;
  if (jobs.some((job) => job.outbound)) {
    pause = await holdOutbound(services.db, services.now());
    options.onOutbound?.(pause);
  }
  for (const job of jobs) {
    if (pause && job.outbound) {
      report[job.name] = heldReport;
      continue;
    }
    try {
      report[job.name] = await job.run(services);
    } catch (error) {
      console.error(`scheduled job ${job.name} failed:`, error);
      report[job.name] = { error: error instanceof Error ? error.message : String(error) };
    }
  }
  return report;
}
