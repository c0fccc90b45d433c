import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json, LocalisedText, NullableNumeric, NullableTimestamp, Touched } from '../common/columns';

/** Pipelines, their stages, deals and viewings (migration 0014), merged into `Database` (schema/db.ts). */

export const pipelinePurposes = ['sales', 'leasing'] as const;
export type PipelinePurpose = (typeof pipelinePurposes)[number];
export const stageKinds = ['open', 'won', 'lost'] as const;
export type StageKind = (typeof stageKinds)[number];
/** A deal's status is its stage's kind. */
export const dealStatuses = stageKinds;
export type DealStatus = StageKind;
export const viewingStatuses = ['planned', 'done', 'cancelled', 'missed'] as const;
export type ViewingStatus = (typeof viewingStatuses)[number];

type NullableCalendarDate = ColumnType<string | null, string | null | undefined, string | null>;
type Version = ColumnType<string | number, never, never>;

export interface PipelinesTable {
  id: Generated<string>;
  company_id: string;
  key: string;
  name: Json<LocalisedText>;
  purpose: PipelinePurpose;
  position: number;
  created_at: Generated<Date>;
  updated_at: Touched;
}

export interface PipelineStagesTable {
  id: Generated<string>;
  company_id: string;
  pipeline_id: string;
  key: string;
  name: Json<LocalisedText>;
  kind: StageKind;
  probability: number;
  position: number;
  created_at: Generated<Date>;
  updated_at: Touched;
}

export interface DealsTable {
  id: Generated<string>;
  company_id: string;
  reference: string;
  pipeline_id: string;
  stage_id: string;
  contact_id: string;
  lead_id: string | null;
  listing_id: string | null;
  owner_id: string | null;
  handler_id: string | null;
  department_key: string | null;
  title: string | null;
  value: NullableNumeric;
  commission: NullableNumeric;
  probability: number | null;
  expected_close: NullableCalendarDate;
  closed_at: NullableTimestamp;
  close_reason: string | null;
  /** Bumped by a trigger on every update (the ETag); never written by the application. */
  version: Version;
  created_at: Generated<Date>;
  updated_at: Touched;
}
export type DealRow = Selectable<DealsTable>;

export interface ViewingsTable {
  id: Generated<string>;
  company_id: string;
  reference: string;
  deal_id: string;
  listing_id: string;
  starts_at: ColumnType<Date, Date | string, Date | string>;
  shown_by: string | null;
  status: ColumnType<ViewingStatus, ViewingStatus | undefined, ViewingStatus>;
  /** Never in an event, a delivery or a delivery log. */
  feedback: string | null;
  done_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
  missed_at: NullableTimestamp;
  version: Version;
  created_at: Generated<Date>;
  updated_at: Touched;
}
export type ViewingRow = Selectable<ViewingsTable>;

/** The pipelines group's tables, merged into `Database` (schema/db.ts). */
export interface PipelineTables {
  pipelines: PipelinesTable;
  pipeline_stages: PipelineStagesTable;
  deals: DealsTable;
  viewings: ViewingsTable;
}
