import { expireDueBookings } from '../functions/bookings/domain';
import { applyRetention } from '../functions/crm/erasure';
import { escalateUnansweredLeads } from '../functions/crm/leads-escalation';
import type { Services } from './env';
import { deleteExpiredIdempotencyKeys } from './idempotency';
import { sendDueRebuilds } from './webhooks/rebuild';

/**
 * Scheduled work: one entry point, called by the Node server's timer (SCHEDULER_INTERVAL_SECONDS) and by the
 * Worker's Cron Triggers (wrangler.toml), and directly by tests. Every job is idempotent and safe to run from
 * several places at once (each claims its rows), so an overlapping run only finds less to do.
 */
export type ScheduledJob = { name: string; run(services: Services): Promise<unknown> };

export const scheduledJobs: ScheduledJob[] = [
  // The outbox sweep: deliveries committed but never handed to QStash (a crash between commit and publish),
  // deliveries QStash gave up on, and — on a Worker without QStash — the due deliveries themselves.
  { name: 'outbox', run: ({ db, webhooks }) => webhooks.transport.sweep(db, webhooks) },
  // Idempotency-Key answers past their 24 hours.
  { name: 'idempotency_keys', run: ({ db }) => deleteExpiredIdempotencyKeys(db) },
  { name: 'rebuild_hooks', run: ({ db, webhooks, config }) => sendDueRebuilds(db, webhooks, config.REBUILD_HOOK_DELAY_SECONDS) },
  // Route groups' jobs (the one place that lists them), each recording its events in its own transaction.
  { name: 'lead_escalation', run: ({ db }) => escalateUnansweredLeads(db).then((references) => references.length) },
  { name: 'retention', run: ({ db }) => applyRetention(db) },
  // Holds not confirmed in time and confirmed bookings not paid within the payment window (booking.cancelled).
  { name: 'booking_expiry', run: ({ db }) => expireDueBookings(db) },
  // Later issues add theirs here: overdue rent (rent_payment.overdue).
];

/** Runs every job; one job failing is logged and reported without stopping the others. */
export async function runScheduledWork(services: Services, jobs = scheduledJobs): Promise<Record<string, unknown>> {
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
