import type { Db } from '../db/index';
import { deliver } from './deliver';
import type { DeliveryTransport, WebhookRuntime } from './types';

/**
 * Attempts the deliveries that are due (pending, next_attempt_at passed, not held by another attempt), a few
 * at a time. Returns how many were due, so a caller loops while a full batch came back. Ordering between
 * deliveries is not guaranteed (they run concurrently and retries overtake).
 */
export async function dispatchDue(
  db: Db,
  runtime: WebhookRuntime,
  options: { limit?: number; concurrency?: number } = {},
): Promise<number> {
  const now = runtime.now();
  const due = await db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', '=', 'pending')
    .where('next_attempt_at', '<=', now)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .orderBy('next_attempt_at')
    .limit(options.limit ?? 50)
    .execute();
  let next = 0;
  const worker = async () => {
    while (next < due.length) {
      const id = due[next++]!.id;
      await deliver(db, runtime, id).catch((error: unknown) => console.error(`delivery ${id} failed to run:`, error));
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency ?? 10, due.length) }, worker));
  return due.length;
}

/**
 * The embedded transport: the deliveries table is the queue. With an in-process dispatcher (Node: `onHandOff`
 * wakes it) the sweep only marks committed events as handed over; without one (a Worker without QStash) the
 * sweep also attempts the due deliveries itself, once per Cron Trigger.
 */
export function localTransport(onHandOff?: () => void): DeliveryTransport {
  return {
    kind: 'local',
    async handOff() {
      onHandOff?.();
    },
    async sweep(db, runtime) {
      const marked = await db
        .updateTable('events')
        .set({ published_at: runtime.now() })
        .where('published_at', 'is', null)
        .executeTakeFirst();
      const attempted = onHandOff ? 0 : await dispatchDue(db, runtime, { limit: 100 });
      return { events_handed_over: Number(marked.numUpdatedRows), deliveries_attempted: attempted };
    },
  };
}
