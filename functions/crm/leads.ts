import { sql, type Updateable } from 'kysely';
import type { Trx } from '../../lib/db/index';
import { ApiError, notFound } from '../../lib/errors';
import { type CausedBy, recordEvent } from '../../lib/events';
import type { LeadStatus } from '../../schema/common/leads';
import type { LeadRow, LeadsTable } from '../../schema/crm/db';
import type { LeadPatchValue } from '../../schema/crm/leads';
import type { Company } from '../../schema/platform/db';
import { checkDepartment } from '../../lib/parties';
import { checkMember } from './followups';
import { linkExternal } from '../../lib/external-ids';

/**
 * The moves a lead's status may make. `won` is final; `lost` may be reopened (to `contacted`); `spam` may be
 * undone (to `new`); nothing goes back to `new` otherwise. Staying in the same status is not a move.
 */
export const leadTransitions: Record<LeadStatus, readonly LeadStatus[]> = {
  new: ['contacted', 'qualified', 'lost', 'spam'],
  contacted: ['qualified', 'viewing', 'negotiating', 'won', 'lost', 'spam'],
  qualified: ['contacted', 'viewing', 'negotiating', 'won', 'lost'],
  viewing: ['qualified', 'negotiating', 'won', 'lost'],
  negotiating: ['viewing', 'won', 'lost'],
  won: [],
  lost: ['contacted'],
  spam: ['new'],
};

function checkTransition(reference: string, from: LeadStatus, to: LeadStatus): void {
  const allowed = leadTransitions[from];
  if (allowed.includes(to)) return;
  const next = allowed.length > 0 ? allowed.join(', ') : 'none (final)';
  const message = `A lead in status ${from} cannot move to ${to}; allowed next statuses: ${next}.`;
  throw new ApiError('invalid_transition', `${reference}: ${message}`, {
    errors: [{ path: 'status', code: 'invalid_transition', message }],
  });
}

/**
 * PATCH: status (by the transitions above), assignee, department, next action, the client's id. Records
 * `lead.status_changed` and `lead.assigned` when those change; a request that changes nothing writes
 * nothing. An erased lead cannot change (409). Returns the lead's id.
 */
export async function updateLead(
  trx: Trx,
  company: Company,
  reference: string,
  input: LeadPatchValue,
  causedBy: CausedBy,
): Promise<string> {
  const lead: LeadRow | undefined = await trx
    .selectFrom('leads')
    .selectAll()
    .where('company_id', '=', company.id)
    .where('reference', '=', reference)
    .forUpdate()
    .executeTakeFirst();
  if (!lead) throw notFound(`The lead ${reference}`);
  if (lead.erased) throw new ApiError('conflict', `The lead ${reference} is erased; it cannot be changed.`);

  const set: Updateable<LeadsTable> = {};
  if (input.assignee !== undefined && input.assignee !== lead.assignee_id) {
    if (input.assignee !== null) await checkMember(trx, company.id, input.assignee, 'assignee', true);
    set.assignee_id = input.assignee;
  }
  if (input.department !== undefined && input.department !== lead.department_key) {
    if (input.department !== null) await checkDepartment(trx, company.id, input.department);
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
    checkTransition(reference, lead.status, input.status);
    set.status = input.status;
  }
  const linked = input.external ? await linkExternal(trx, company.id, 'lead', lead.id, input.external) : false;
  if (Object.keys(set).length === 0 && !linked) return lead.id;

  // updated_at is set by the trigger (a new external id changes the answer too, so it is bumped).
  await trx
    .updateTable('leads')
    .set({ ...set, updated_at: sql`clock_timestamp()` })
    .where('id', '=', lead.id)
    .execute();
  if (set.status !== undefined) {
    await recordEvent(trx, {
      companyId: company.id,
      type: 'lead.status_changed',
      causedBy,
      data: { reference, from: lead.status, to: set.status },
    });
  }
  if (set.assignee_id !== undefined) {
    await recordEvent(trx, {
      companyId: company.id,
      type: 'lead.assigned',
      causedBy,
      data: { reference, assignee: set.assignee_id },
    });
  }
  return lead.id;
}
