import type { ColumnType, Generated } from 'kysely';
import type { NullableTimestamp, Timestamp } from '../common/columns';

/** Kysely types of migrations 0004 and 0055: webhook subscriptions, secrets, deliveries, attempts, rebuild jobs. */

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookSubscriptionsTable {
  id: Generated<string>;
  company_id: string;
  url: string;
  /** `['*']` is every type. */
  event_types: ColumnType<string[], string[] | undefined, string[]>;
  description: Generated<string>;
  enabled: Generated<boolean>;
  disabled_reason: string | null;
  /** The server key that made it (migration 0055); null when the operator did. */
  created_by_key_id: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface WebhookSecretsTable {
  id: Generated<string>;
  subscription_id: string;
  /** The secret as compact JWE text (older rows: AES-256-GCM bytes; lib/webhooks/secrets.ts). */
  ciphertext: Uint8Array;
  created_at: Generated<Date>;
  expires_at: NullableTimestamp;
}

export interface WebhookDeliveriesTable {
  id: Generated<string>;
  company_id: string;
  event_id: string;
  subscription_id: string;
  status: ColumnType<DeliveryStatus, DeliveryStatus | undefined, DeliveryStatus>;
  attempt_count: Generated<number>;
  next_attempt_at: NullableTimestamp;
  locked_until: NullableTimestamp;
  published_at: NullableTimestamp;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Generated<Date>;
  completed_at: NullableTimestamp;
  /** When a recovery sent this failed delivery again as a new one (migration 0055). */
  recovered_at: NullableTimestamp;
}

export interface WebhookAttemptsTable {
  id: Generated<string>;
  delivery_id: string;
  attempt: number;
  at: Timestamp;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
}

export interface RebuildJobsTable {
  company_id: string;
  first_requested_at: Generated<Date>;
  last_requested_at: Generated<Date>;
  request_count: Generated<number>;
  attempt_count: Generated<number>;
  next_attempt_at: NullableTimestamp;
  locked_until: NullableTimestamp;
  last_error: string | null;
}
