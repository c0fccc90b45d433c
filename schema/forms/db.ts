import type { ColumnType, Generated, Selectable } from 'kysely';
import type { NullableTimestamp, Touched } from '../common/columns';

/** The sources a company can point at its inbound receivers (functions/forms/inbound.ts). */
export const inboundKinds = ['whatsapp', 'propertyfinder', 'signed'] as const;
export type InboundKind = (typeof inboundKinds)[number];

/** A company's receiver for one source, at a secret path token (migration 0022). */
export interface InboundChannelsTable {
  id: Generated<string>;
  company_id: string;
  kind: InboundKind;
  /** The leads' `source`. */
  source: string;
  token_hash: Uint8Array;
  token_hint: string;
  /** The source's secret, sealed (lib/crypto-jwe.ts sealSecret) with the channel's id. */
  secret_jwe: string;
  /** WhatsApp's verify token, sealed the same way; null for the other kinds. */
  verify_token_jwe: string | null;
  failures: Generated<number>;
  failures_since: NullableTimestamp;
  failure_audited_at: NullableTimestamp;
  token_rotated_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Touched;
}

/** The source's message (or lead) ids already recorded: nothing twice. */
export interface InboundMessagesTable {
  company_id: string;
  source: string;
  message_id: string;
  lead_id: string | null;
  activity_id: string | null;
  occurred_at: ColumnType<Date, Date | string, Date | string>;
  /** An item that could not be kept (migration 0028): its problem `{code, path}`; null for a kept one. */
  failure: ColumnType<{ code: string; path: string | null } | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
}

/** The forms group's tables, merged into `Database` (schema/db.ts). */
export interface FormTables {
  inbound_channels: InboundChannelsTable;
  inbound_messages: InboundMessagesTable;
}

export type InboundChannelRow = Selectable<InboundChannelsTable>;
