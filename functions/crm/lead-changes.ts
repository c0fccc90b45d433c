import { sql, type Updateable } from 'kysely';
import { readAuditCte } from '../../lib/audit';
import { ApiError, notFound } from '../../lib/errors';
import { eventCtes, type EventInput, type EventType, newEventId } from '../../lib/events';
import { externalHolder, linkCte, linkFor, linksAfter } from '../../lib/external-ids';
import type { LeadRecord } from '../../lib/lead-reads';
import { selectLeads } from '../../lib/lead-reads';
import { departmentKnown, type MemberRule, memberKnown, unknownDepartment, unknownMember } from '../../lib/named-records';
import { checkIfMatch } from '../../lib/preconditions';
import type { Written } from '../../lib/resources';
import { checkMove, statusMachine } from '../../lib/transitions';
import { type Stale, stale, type WriteScope, writeStatement } from '../../lib/write';
import type { LeadStatus } from '../../schema/common/lead-shape';
import type { LeadRow, LeadsTable } from '../../schema/crm/db';
import type { LeadPatchValue } from '../../schema/crm/leads';
import { stamp } from '../../lib/clock';

/**
 * The moves a lead's status may make. `won` is final; `lost` may be reopened (to `contacted`); `spam` may be undone (to
 * `new`); nothing goes back to `new` otherwise. Staying in the same status is not a move.
 */
export const leadMachine = statusMachine<LeadStatus>('lead', {
  new: ['contacted', 'qualified', 'lost', 'spam'],
  contacted: ['qualified', 'viewing', 'negotiating', 'won', 'lost', 'spam'],
  qualified: ['contacted', 'viewing', 'negotiating', 'won', 'lost'],
  viewing: ['qualified', 'negotiating', 'won', 'lost'],
  negotiating: ['viewing', 'won', 'lost'],
  won: [],
  lost: ['contacted'],
  spam: ['new'],
});

/** Who a lead may be assigned to: an active member. */
const assignee: MemberRule = { path: 'assignee', active: true };

type Read = { [K in keyof LeadRecord]: LeadRecord[K] | null } & {
  holder: string | null;
  linked_at: string | null;
  assignee_known: boolean;
  department_known: boolean;
};

/** The lead as shown, the holder of the client's id, and whether the assignee and department named exist: one statement. */
async function readLead(scope: WriteScope, reference: string, input: LeadPatchValue) {
  const { db, company } = scope;
  const held = input.external ? externalHolder(company.id, 'lead', input.external) : undefined;
  const { rows } = await sql<Read>`
    select ${held?.holder ?? null}::text as holder, ${held?.linkedAt ?? null}::text as linked_at,
      ${input.assignee ? memberKnown(company.id, input.assignee, assignee) : sql`true`} as assignee_known,
      ${input.department ? departmentKnown(company.id, input.department) : sql`true`} as department_known,
      l.*
    from (select 1) as one
    left join lateral ${selectLeads(db, company.id).where('leads.reference', '=', reference)} as l on true
  `.execute(db);
  const read = rows[0] as Read;
  return { ...read, lead: read.id === null ? undefined : (read as LeadRecord) };
}

/**
 * PATCH: status (by the machine above), assignee, department, next action, the client's id, in two round trips
 * (lib/write.ts): the read above, then one statement with the change guarded by the version read, the link,
 * `lead.status_changed` and `lead.assigned` when those change, and the audit of the answer. A request that changes
 * nothing writes nothing but that audit. An erased lead cannot change (409).
 */
export async function changeLead(
  scope: WriteScope,
  reference: string,
  input: LeadPatchValue,
): Promise<Written<LeadRecord> | Stale> {
  const { db, company } = scope;
  const read = await readLead(scope, reference, input);
  const lead = read.lead;
  if (!lead) throw notFound(`The lead ${reference}`);
  checkIfMatch(scope.ifMatch, lead.version);
  if (lead.erased) throw new ApiError('conflict', `The lead ${reference} is erased; it cannot be changed.`);

  const set: Updateable<LeadsTable> = {};
  if (input.assignee !== undefined && input.assignee !== lead.assignee_id) {
    if (input.assignee !== null && !read.assignee_known) throw unknownMember(input.assignee, assignee);
    set.assignee_id = input.assignee;
  }
  if (input.department !== undefined && input.department !== lead.department_key) {
    if (input.department !== null && !read.department_known) throw unknownDepartment(input.department);
    set.department_key = input.department;
  }
  if (input.next_action !== undefined) {
    const text = input.next_action?.text ?? null;
    const due = input.next_action?.due_at ? new Date(input.next_action.due_at) : null;
    if (
      text !== lead.next_action ||
      due?.getTime() !== (lead.next_action_at ? new Date(lead.next_action_at).getTime() : undefined)
    ) {
      set.next_action = text;
      set.next_action_at = due;
    }
  }
  if (input.status !== undefined && input.status !== lead.status) {
    checkMove(leadMachine, reference, lead.status, input.status);
    set.status = input.status;
  }
  const link = linkFor('lead', input.external, read.holder, lead.id);
  const audit = readAuditCte('answer_read', scope.answerRead, [reference]);
  if (Object.keys(set).length === 0 && link.kind === 'none') {
    if (audit) await writeStatement([audit], sql`select 1`).execute(db);
    return { row: lead, version: lead.version };
  }

  // updated_at is set by the trigger (a new external id changes the answer too, so it is bumped). A department deleted
  // since the read leaves no row to change: the write runs again and refuses it.
  const department = set.department_key ?? null;
  const change = db
    .updateTable('leads')
    .set({ ...set, updated_at: stamp })
    .where('id', '=', lead.id)
    .where('version', '=', lead.version)
    .where(sql<boolean>`(${department}::text is null or ${departmentKnown(company.id, department ?? '')})`)
    .returningAll();
  const event = (type: EventType, data: Record<string, string | null>): EventInput => ({
    companyId: company.id,
    type,
    causedBy: scope.causedBy,
    data,
  });
  const { rows } = await writeStatement(
    [
      sql`changed as (${change})`,
      linkCte('linked', company.id, 'lead', link, 'changed'),
      set.status !== undefined &&
        eventCtes(
          'moved',
          newEventId(),
          event('lead.status_changed', { reference, from: lead.status, to: set.status }),
          'changed',
        ),
      set.assignee_id !== undefined &&
        eventCtes('assigned', newEventId(), event('lead.assigned', { reference, assignee: set.assignee_id }), 'changed'),
      audit,
    ],
    sql`select * from changed`,
  ).execute(db);
  const row = rows[0] as LeadRow | undefined;
  if (!row) return stale;
  return { row: { ...lead, ...row, external: linksAfter(lead.external, link, read.linked_at) }, version: row.version };
}
