import { deleteExpiredIdempotencyKeys } from './idempotency';
import type { ScheduledJob } from './scheduler';
import { sendDueRebuilds } from './webhooks/rebuild';

/**
 * The platform's own scheduled jobs. They run where webhook deliveries are handled: the Node server and the
 * default Worker (a group's own Worker runs only its group's jobs). The outbox sweep (it hands deliveries to QStash, or
 * attempts them on a Worker without QStash) and the rebuild hooks reach outside: held while outbound work is paused.
 */
export const platformJobs: ScheduledJob[] = [
  // The outbox sweep: deliveries committed but never handed to QStash (a crash between commit and publish),
  // deliveries QStash gave up on, and — on a Worker without QStash — the due deliveries themselves.
  { name: 'outbox', outbound: true, run: ({ db, webhooks }) => webhooks.transport.sweep(db, webhooks) },
  // Idempotency-Key answers past their 24 hours.
  { name: 'idempotency_keys', run: ({ db }) => deleteExpiredIdempotencyKeys(db) },
  {
    name: 'rebuild_hooks',
    outbound: true,
    run: ({ db, webhooks, config }) => sendDueRebuilds(db, webhooks, config.REBUILD_HOOK_DELAY_SECONDS),
  },
];
