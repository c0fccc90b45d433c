import type { Services } from './env';
import { deleteExpiredIdempotencyKeys } from './idempotency';
import { sendDueRebuilds } from './webhooks/rebuild';

/**
 * Scheduled work: the platform's own jobs are here; the route groups' jobs are composed with them at the top
 * (functions/jobs.ts), which the Node server's timer (SCHEDULER_INTERVAL_SECONDS), the Worker's Cron Triggers
 * (wrangler.toml) and tests run. Every job is idempotent and safe to run from several places at once (each claims
 * its rows), so an overlapping run only finds less to do.
 */
export type ScheduledJob = { name: string; run(services: Services): Promise<unknown> };

export const platformJobs: ScheduledJob[] = [
  // The outbox sweep: deliveries committed but never handed to QStash (a crash between commit and publish),
  // deliveries QStash gave up on, and — on a Worker without QStash — the due deliveries themselves.
  { name: 'outbox', run: ({ db, webhooks }) => webhooks.transport.sweep(db, webhooks) },
  // Idempotency-Key answers past their 24 hours.
  { name: 'idempotency_keys', run: ({ db }) => deleteExpiredIdempotencyKeys(db) },
  { name: 'rebuild_hooks', run: ({ db, webhooks, config }) => sendDueRebuilds(db, webhooks, config.REBUILD_HOOK_DELAY_SECONDS) },
];

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
