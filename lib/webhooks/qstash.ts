import { Client } from '@upstash/qstash';
import type { Config } from '../config';
import type { Db } from '../db/index';
import { outboundRunning } from '../outbound';
import type { DeliveryTransport, WebhookRuntime } from './types';
import { qstashRetries, qstashRetryDelay } from './schedule';

/** A delivery QStash should have called by now (its next attempt is this late) is published again. */
const overdueMs = 15 * 60 * 1000;
const batch = 100;

type Pending = { id: string; attempt_count: number; event_type: string };

/**
 * Production fan-out: each delivery becomes one QStash message to POST /internal/v1/deliveries/{id}, with
 * the delivery id as deduplication id (a publish repeated after a crash is enqueued once), QStash's retries
 * following our schedule (Upstash-Retry-Delay), and a timeout above the subscriber's 15 s.
 */
export function qstashTransport(config: Config): DeliveryTransport {
  const client = new Client({
    token: config.QSTASH_TOKEN ?? '',
    baseUrl: config.QSTASH_URL,
    retry: { retries: 2, backoff: (n) => 100 * 2 ** n },
    enableTelemetry: false,
    devMode: false,
  });
  const destination = (id: string) => `${config.INTERNAL_BASE_URL}/internal/v1/deliveries/${id}`;

  async function publish(d: Pending, deduplicationId: string): Promise<void> {
    const retries = qstashRetries(d.attempt_count, config.QSTASH_RETRIES);
    await client.publishJSON({
      url: destination(d.id),
      body: { delivery_id: d.id },
      deduplicationId,
      retries,
      ...(retries > 0 ? { retryDelay: qstashRetryDelay(d.id, d.attempt_count) } : {}),
      timeout: Math.ceil(config.WEBHOOK_TIMEOUT_MS / 1000) + 15,
      headers: { 'X-Delivery-Id': d.id, 'X-Event-Type': d.event_type },
    });
  }

  /** Publishes pending deliveries never handed to QStash, then marks their events published. */
  async function publishNew(db: Db, runtime: WebhookRuntime): Promise<number> {
    const rows = await db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select(['d.id', 'd.attempt_count', 'e.type as event_type'])
      .where('d.status', '=', 'pending')
      .where('d.published_at', 'is', null)
      // Nothing is handed over while outbound work is paused (a copy of the database: lib/outbound.ts).
      .where(outboundRunning)
      .orderBy('d.created_at')
      .limit(batch)
      .execute();
    const published: string[] = [];
    for (const row of rows) {
      try {
        await publish(row, row.id);
        published.push(row.id);
      } catch (error) {
        console.error(`publishing delivery ${row.id} to QStash failed (the sweep retries):`, error);
      }
    }
    const now = runtime.now();
    if (published.length > 0) {
      await db.updateTable('webhook_deliveries').set({ published_at: now }).where('id', 'in', published).execute();
    }
    await db
      .updateTable('events')
      .set({ published_at: now })
      .where('published_at', 'is', null)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('webhook_deliveries as d')
              .select('d.id')
              .whereRef('d.event_id', '=', 'events.id')
              .where('d.status', '=', 'pending')
              .where('d.published_at', 'is', null),
          ),
        ),
      )
      .execute();
    return published.length;
  }

  /** Deliveries QStash gave up on (a plan with fewer retries, a dead-lettered message): published again. */
  async function republishOverdue(db: Db, runtime: WebhookRuntime): Promise<number> {
    const now = runtime.now();
    const stale = new Date(now.getTime() - overdueMs);
    const rows = await db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', 'e.id', 'd.event_id')
      .select(['d.id', 'd.attempt_count', 'd.published_at', 'e.type as event_type'])
      .where('d.status', '=', 'pending')
      .where('d.published_at', '<', stale)
      .where('d.next_attempt_at', '<', stale)
      .where((eb) => eb.or([eb('d.locked_until', 'is', null), eb('d.locked_until', '<=', now)]))
      .limit(batch)
      .execute();
    let count = 0;
    for (const row of rows) {
      // Claimed by moving published_at, so two sweeps never publish the same delivery twice.
      const claimed = await db
        .updateTable('webhook_deliveries')
        .set({ published_at: now })
        .where('id', '=', row.id)
        .where('published_at', '=', row.published_at)
        .executeTakeFirst();
      if (claimed.numUpdatedRows === 0n) continue;
      await publish(row, `${row.id}-${row.attempt_count}-${Math.floor(now.getTime() / 1000)}`).then(
        () => count++,
        (error: unknown) => console.error(`republishing delivery ${row.id} failed:`, error),
      );
    }
    return count;
  }

  return {
    kind: 'qstash',
    async handOff(db, runtime) {
      await publishNew(db, runtime);
    },
    async sweep(db, runtime) {
      const published = await publishNew(db, runtime);
      const republished = await republishOverdue(db, runtime);
      return { deliveries_published: published, deliveries_republished: republished };
    },
  };
}
