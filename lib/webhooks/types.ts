import type { Db } from '../db/index';
import type { SecretBox } from './secrets';
import type { HostResolver } from './urls';

/**
 * Where deliveries go after the transaction that created them commits. `local`: the deliveries table itself,
 * worked by the in-process dispatcher (Node) or the scheduler (a Worker without QStash). `qstash`: one QStash
 * message per delivery, calling back POST /internal/v1/deliveries/{id}. Chosen by configuration only.
 */
export type DeliveryTransport = {
  kind: 'local' | 'qstash';
  /** After a write request: hand new deliveries over (publish to QStash, or wake the dispatcher). */
  handOff(db: Db, runtime: WebhookRuntime): Promise<void>;
  /** Scheduled: catch up with whatever a crash or an outage left behind. */
  sweep(db: Db, runtime: WebhookRuntime): Promise<Record<string, number>>;
};

export type WebhookRuntime = {
  transport: DeliveryTransport;
  secrets: SecretBox;
  /** Node resolves host names to refuse private addresses; Workers check literal addresses only. */
  resolveHost?: HostResolver;
  timeoutMs: number;
  userAgent: string;
  fetch: typeof fetch;
  now: () => Date;
};

export const userAgent = 'PropertyAPI-Webhooks/1.0 (+https://docs.property-api.dev/webhooks)';
