import type { Trx } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';

/** A reference or id in a body that names no record of this company: the client's mistake (400 at `path`). */
export function unknownReference(path: string, message: string): ApiError {
  return new ApiError('invalid_request', message, { errors: [{ path, code: 'unknown_reference', message }] });
}

export type FollowupLinks = {
  lead: { id: string; reference: string; created_at: Date } | null;
  person: { id: string; reference: string } | null;
};

/**
 * The lead and person a follow-up (activity or task) is about. Only a lead given: its person. An erased lead
 * or person takes no new follow-ups (409): nothing personal may be attached to them again.
 */
export async function resolveFollowupLinks(
  trx: Trx,
  companyId: string,
  input: { lead?: string; person?: string },
): Promise<FollowupLinks> {
  let lead: FollowupLinks['lead'] = null;
  let personId: string | null = null;
  if (input.lead !== undefined) {
    const row = await trx
      .selectFrom('leads')
      .select(['id', 'reference', 'created_at', 'contact_id', 'erased'])
      .where('company_id', '=', companyId)
      .where('reference', '=', input.lead)
      .executeTakeFirst();
    if (!row) throw unknownReference('lead', `${input.lead} is not a lead of this company.`);
    if (row.erased) throw new ApiError('conflict', `The lead ${input.lead} is erased; nothing can be added to it.`);
    lead = { id: row.id, reference: row.reference, created_at: new Date(row.created_at) };
    personId = row.contact_id;
  }
  const person = trx.selectFrom('contacts').select(['id', 'reference', 'erased']).where('company_id', '=', companyId);
  let row: { id: string; reference: string; erased: boolean } | undefined;
  if (input.person !== undefined) {
    row = await person.where('reference', '=', input.person).executeTakeFirst();
    if (!row) throw unknownReference('person', `${input.person} is not a contact of this company.`);
  } else if (personId !== null) {
    row = await person.where('id', '=', personId).executeTakeFirst();
  }
  if (row?.erased) throw new ApiError('conflict', `The contact ${row.reference} is erased; nothing can be added to it.`);
  return { lead, person: row ? { id: row.id, reference: row.reference } : null };
}

/** A member of this company (any, for who did something; only an active one, for who is to do it). */
export async function checkMember(trx: Trx, companyId: string, id: string, path: string, activeOnly: boolean): Promise<void> {
  let query = trx.selectFrom('members').select('id').where('company_id', '=', companyId).where('id', '=', id);
  if (activeOnly) query = query.where('active', '=', true);
  const member = await query.executeTakeFirst();
  if (!member) throw unknownReference(path, `${id} is not ${activeOnly ? 'an active member' : 'a member'} of this company.`);
}

/** The follow-up a client already sent under this `source` + `external_id`, if any (the idempotency key). */
export async function existingFollowup(
  trx: Trx,
  table: 'activities' | 'tasks',
  companyId: string,
  key: { source: string; external_id: string },
): Promise<string | undefined> {
  const row = await trx
    .selectFrom(table)
    .select('id')
    .where('company_id', '=', companyId)
    .where('source', '=', key.source)
    .where('external_id', '=', key.external_id)
    .executeTakeFirst();
  return row?.id;
}
