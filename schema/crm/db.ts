import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Json, LocalisedText, NullableTimestamp, Texts, Touched, Version } from '../common/columns';
import type { LeadChannel, LeadReferral, LeadStatus } from '../common/lead-shape';

export const activityTypes = ['note', 'call', 'meeting', 'message', 'email'] as const;
export type ActivityType = (typeof activityTypes)[number];

export interface DepartmentsTable {
  company_id: string;
  key: string;
  name: ColumnType<LocalisedText, string, string>;
  created_at: Generated<Date>;
  updated_at: Touched;
}

export interface MembersTable {
  id: string;
  company_id: string;
  name: string;
  email: string | null;
  department_key: string | null;
  active: Generated<boolean>;
  created_at: Generated<Date>;
  updated_at: Touched;
}

export interface ContactsTable {
  id: Generated<string>;
  company_id: string;
  reference: string;
  name: string | null;
  email: string | null;
  email_key: string | null;
  phone: string | null;
  phone_key: string | null;
  language: string | null;
  /** The UAE TRN of a person or business registered for VAT (migration 0045). */
  trn: ColumnType<string | null, string | null | undefined, string | null>;
  roles: Texts;
  erased: Generated<boolean>;
  erased_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Touched;
  version: Version;
  /** The name's words for staff's search (migration 0050, lib/person-search.ts); null until a search writes it. */
  search_name: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface LeadsTable {
  id: Generated<string>;
  company_id: string;
  reference: string;
  contact_id: string | null;
  status: ColumnType<LeadStatus, LeadStatus | undefined, LeadStatus>;
  assignee_id: string | null;
  department_key: string | null;
  next_action: string | null;
  next_action_at: NullableTimestamp;
  first_answered_at: NullableTimestamp;
  escalated_at: NullableTimestamp;
  service: string | null;
  form: string | null;
  page: string | null;
  listing_id: string | null;
  message: string | null;
  language: string | null;
  details_jwe: string | null;
  consent_version: string | null;
  consent_at: NullableTimestamp;
  consent_address: string | null;
  caused_by: string;
  /** What the enquirer sent, exactly as sent (migration 0022): the person may be one whose own fields differ. */
  sent_name: string | null;
  sent_email: string | null;
  sent_phone: string | null;
  sent_listing: string | null;
  channel: ColumnType<LeadChannel, LeadChannel | undefined, LeadChannel>;
  source: ColumnType<string, string | undefined, string>;
  source_id: string | null;
  referral: Json<LeadReferral> | null;
  erased: Generated<boolean>;
  erased_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Touched;
  version: Version;
}

/** A follow-up's `source` + `external_id` is its external id (external_ids, kind `activity` or `task`). */
/** Two people staff should look at (migration 0022): one row per direction, so each lists the other. */
export interface ContactDuplicatesTable {
  company_id: string;
  contact_id: string;
  duplicate_id: string;
  reason: 'same_phone';
  created_at: Generated<Date>;
}

export interface ActivitiesTable {
  id: Generated<string>;
  company_id: string;
  reference: string;
  type: ActivityType;
  lead_id: string | null;
  contact_id: string | null;
  member_id: string | null;
  body: string | null;
  occurred_at: ColumnType<Date, Date | string, Date | string>;
  created_at: Generated<Date>;
  updated_at: Touched;
}

export interface TasksTable {
  id: string;
  company_id: string;
  title: string;
  /** A calendar date, `YYYY-MM-DD` (read as text: no time zone shift). */
  due_on: ColumnType<string | null, string | null | undefined, string | null>;
  assignee_id: string | null;
  done: Generated<boolean>;
  done_at: NullableTimestamp;
  lead_id: string | null;
  contact_id: string | null;
  created_at: Generated<Date>;
  updated_at: Touched;
  version: Version;
}

/** The CRM's tables, merged into `Database` (schema/db.ts). */
export interface CrmTables {
  departments: DepartmentsTable;
  members: MembersTable;
  contacts: ContactsTable;
  contact_duplicates: ContactDuplicatesTable;
  leads: LeadsTable;
  activities: ActivitiesTable;
  tasks: TasksTable;
}

export type ContactRow = Selectable<ContactsTable>;
export type LeadRow = Selectable<LeadsTable>;
export type ActivityRow = Selectable<ActivitiesTable>;
export type TaskRow = Selectable<TasksTable>;
export type MemberRow = Selectable<MembersTable>;
