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

/** Where a saved search stands (migration 0053): waiting for its confirmation, matching, or stopped. */
export const savedSearchStatuses = ['pending', 'active', 'stopped'] as const;
export type SavedSearchStatus = (typeof savedSearchStatuses)[number];
export type SavedSearchStopReason = 'visitor' | 'staff' | 'erased';

/** A visitor's saved listing search (migration 0053; functions/forms/saved-searches.ts). */
export interface SavedSearchesTable {
  id: Generated<string>;
  company_id: string;
  contact_id: string;
  /** The query string of GET /listings it keeps (filters only), as the visitor's page made it. */
  search: string;
  language: string | null;
  status: ColumnType<SavedSearchStatus, SavedSearchStatus | undefined, SavedSearchStatus>;
  stop_reason: SavedSearchStopReason | null;
  token_hash: Uint8Array;
  token_jwe: string;
  consent_version: string;
  consent_at: ColumnType<Date, Date | string, Date | string>;
  consent_address: string | null;
  created_at: Generated<Date>;
  updated_at: Touched;
  confirmed_at: NullableTimestamp;
  stopped_at: NullableTimestamp;
  checked_at: NullableTimestamp;
}

/** A listing that matched a saved search, recorded once (the primary key). */
export interface SavedSearchMatchesTable {
  saved_search_id: string;
  listing_id: string;
  company_id: string;
  matched_at: ColumnType<Date, Date | string, Date | string>;
  announced: boolean;
}

/** The forms group's tables, merged into `Database` (schema/db.ts). */
export interface FormTables {
  inbound_channels: InboundChannelsTable;
  inbound_messages: InboundMessagesTable;
  saved_searches: SavedSearchesTable;
  saved_search_matches: SavedSearchMatchesTable;
}

export type SavedSearchRow = Selectable<SavedSearchesTable>;

export type InboundChannelRow = Selectable<InboundChannelsTable>;
