import type { Config } from '../config';
import type { Db } from '../db/index';
import type { SecretBox } from './secrets';
import type { Outbound } from '../outbound/guard';

/**
 * Where deliveries go after the transaction that created them commits. `local`: the deliveries table itself,
 * worked by the in-process dispatcher (Node) or the scheduler (a Worker without QStash). `qstash`: one QStash
 * message per delivery, calling back POST /internal/v1/deliveries/{id}. Chosen by configuration only, except
 * `outbox`: a Worker that never writes (lib/webhooks/outbox-only.ts) hands nothing over and sweeps nothing.
 */
export type DeliveryTransport = {
  kind: 'local' | 'qstash' | 'outbox';
  /** After a write request: hand new deliveries over (publish to QStash, or wake the dispatcher). */
  handOff(db: Db, runtime: WebhookRuntime): Promise<void>;
  /** Scheduled: catch up with whatever a crash or an outage left behind. */
  sweep(db: Db, runtime: WebhookRuntime): Promise<Record<string, number>>;
};

/** What a callback to /internal/v1 is checked on: its Upstash-Signature, body, path and URL. */
export type CallbackRequest = { signature: string | undefined; body: string; path: string; url: string };

/**
 * What sends webhooks, rebuild hooks and calendar imports out: `fetch` and `resolveHost` (lib/outbound/guard.ts, which
 * every outbound request goes through: Node resolves names and pins the checked addresses; Workers check literal
 * addresses only), and the delivery machinery.
 */
export type WebhookRuntime = Outbound & {
  transport: DeliveryTransport;
  /**
   * Checks that a callback really comes from QStash (lib/webhooks/receiver.ts). Absent where the Worker takes no
   * callbacks (lib/webhooks/outbox-only.ts), so QStash's client is not bundled there: such a call is refused.
   */
  verifyCallback?: (config: Config, request: CallbackRequest) => Promise<void>;
  secrets: SecretBox;
  timeoutMs: number;
  userAgent: string;
  now: () => Date;
};

export const userAgent = 'PropertyAPI-Webhooks/1.0';
