import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json, NullableNumeric, NullableTimestamp, Numeric, Texts, Touched } from '../common/columns';
import type { TaxCategory } from '../common/tax';

/** Contractors, jobs, job charges and inspections (migration 0013), merged into `Database` (schema/db.ts). */

export const contractorKinds = ['firm', 'sole_trader'] as const;
export type ContractorKind = (typeof contractorKinds)[number];
export const contractorStatuses = ['active', 'stopped'] as const;
export type ContractorStatus = (typeof contractorStatuses)[number];
export const jobCategories = [
  'plumbing',
  'electrical',
  'air_conditioning',
  'appliance',
  'carpentry',
  'painting',
  'pest_control',
  'cleaning',
  'locks',
  'general',
] as const;
export type JobCategory = (typeof jobCategories)[number];
export const jobPriorities = ['low', 'normal', 'high', 'urgent'] as const;
export type JobPriority = (typeof jobPriorities)[number];
export const jobStatuses = ['open', 'scheduled', 'done', 'cancelled'] as const;
export type JobStatus = (typeof jobStatuses)[number];
export const payers = ['owner', 'renter', 'company'] as const;
export type Payer = (typeof payers)[number];
export const approvalStates = ['none', 'requested', 'approved', 'declined', 'waived'] as const;
export type ApprovalState = (typeof approvalStates)[number];
export const chargeStatuses = ['booked', 'paid', 'cancelled'] as const;
export type ChargeStatus = (typeof chargeStatuses)[number];
export const inspectionKinds = ['move_in', 'move_out', 'routine'] as const;
export type InspectionKind = (typeof inspectionKinds)[number];
export const areaConditions = ['good', 'fair', 'poor', 'damaged'] as const;
export type AreaCondition = (typeof areaConditions)[number];

/** A calendar date column, `YYYY-MM-DD` (read as text on every engine). */
type CalendarDate = ColumnType<string, string, string>;
type NullableCalendarDate = ColumnType<string | null, string | null | undefined, string | null>;
/** Bumped by a trigger on every update (the ETag); never written by the application. */
type Version = ColumnType<string | number, never, never>;

export interface ContractorsTable {
  id: Generated<string>;
  company_id: string;
  name: string;
  kind: ColumnType<ContractorKind, ContractorKind | undefined, ContractorKind>;
  trades: Texts;
  contact_name: string | null;
  email: string | null;
  phone: string | null;
  notes: string | null;
  status: ColumnType<ContractorStatus, ContractorStatus | undefined, ContractorStatus>;
  stopped_at: NullableTimestamp;
  version: Version;
  created_at: Generated<Date>;
  updated_at: Touched;
}
export type ContractorRow = Selectable<ContractorsTable>;

export interface MaintenanceHomesTable {
  listing_id: string;
  company_id: string;
  owner_id: string | null;
  approval_limit: NullableNumeric;
}

export interface JobsTable {
  id: Generated<string>;
  company_id: string;
  reference: string;
  listing_id: string;
  lease_id: string | null;
  category: JobCategory;
  priority: ColumnType<JobPriority, JobPriority | undefined, JobPriority>;
  status: ColumnType<JobStatus, JobStatus | undefined, JobStatus>;
  problem: string;
  work_done: string | null;
  contractor_id: string | null;
  member_id: string | null;
  scheduled_on: NullableCalendarDate;
  window_start: string | null;
  window_end: string | null;
  block_wanted: ColumnType<boolean, boolean | undefined, boolean>;
  estimate: NullableNumeric;
  payer: ColumnType<Payer, Payer | undefined, Payer>;
  approval: ColumnType<ApprovalState, ApprovalState | undefined, ApprovalState>;
  approval_note: string | null;
  approval_requested_at: NullableTimestamp;
  approval_answered_at: NullableTimestamp;
  photo_count: ColumnType<number, number | undefined, number>;
  done_on: NullableCalendarDate;
  cancel_reason: string | null;
  done_at: NullableTimestamp;
  cancelled_at: NullableTimestamp;
  version: Version;
  created_at: Generated<Date>;
  updated_at: Touched;
}
export type JobRow = Selectable<JobsTable>;

export interface JobChargesTable {
  id: Generated<string>;
  company_id: string;
  job_id: string;
  cost: Numeric;
  payer: Payer;
  description: string | null;
  status: ColumnType<ChargeStatus, ChargeStatus | undefined, ChargeStatus>;
  booked_on: CalendarDate;
  booked_owner_id: string | null;
  paid_on: NullableCalendarDate;
  cancelled_on: NullableCalendarDate;
  /** Its tax as booked (migration 0048): null on a charge booked before it. Written once. */
  tax_category: ColumnType<TaxCategory | null, TaxCategory | null | undefined, never>;
  tax_rate: ColumnType<string | null, string | null | undefined, never>;
  net_amount: ColumnType<string | null, string | null | undefined, never>;
  vat_amount: ColumnType<string | null, string | null | undefined, never>;
  version: Version;
  created_at: Generated<Date>;
  updated_at: Touched;
}
export type JobChargeRow = Selectable<JobChargesTable>;

/** An area of a home as an inspection records it. */
export type InspectionArea = { name: string; condition: AreaCondition | null; notes: string | null };

export interface InspectionsTable {
  id: Generated<string>;
  company_id: string;
  reference: string;
  listing_id: string;
  lease_id: string | null;
  kind: InspectionKind;
  planned_on: CalendarDate;
  inspector_id: string | null;
  notes: string | null;
  areas: Json<InspectionArea[]>;
  version: Version;
  created_at: Generated<Date>;
  updated_at: Touched;
}
export type InspectionRow = Selectable<InspectionsTable>;

/** The maintenance group's tables, merged into `Database` (schema/db.ts). */
export interface MaintenanceTables {
  contractors: ContractorsTable;
  maintenance_homes: MaintenanceHomesTable;
  jobs: JobsTable;
  job_charges: JobChargesTable;
  inspections: InspectionsTable;
}
