import type { Executor, Trx } from '../../lib/db/index';
import { ApiError } from '../../lib/errors';
import { type External, type RecordKind, externalIdsOf, linkNewRecord, recordIdByExternal } from '../../lib/external-ids';
import { type ResourceSelect, syncResource } from '../../lib/resources';

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

/** Activities and tasks: each is written with one client's id, `source` + `external_id` (lib/external-ids.ts). */
export type FollowupKind = Extract<RecordKind, 'activity' | 'task'>;
type FollowupKey = { source: string; external_id: string };

const externalOf = (key: FollowupKey): External => ({ source: key.source, id: key.external_id });

/** The follow-up a client already sent under this `source` + `external_id`, if any (the idempotency key). */
export function existingFollowup(trx: Trx, kind: FollowupKind, companyId: string, key: FollowupKey): Promise<string | undefined> {
  return recordIdByExternal(trx, companyId, kind, externalOf(key));
}

/**
 * Keeps a new follow-up's `source` + `external_id`. Concurrent identical posts meet here on the key of
 * external_ids: run the write in `transactionRetryingConflict`, whose retry then finds the first.
 */
export function keepFollowupKey(trx: Trx, kind: FollowupKind, companyId: string, id: string, key: FollowupKey): Promise<void> {
  return linkNewRecord(trx, companyId, kind, id, externalOf(key));
}

/** A page of follow-ups with their `source` and `external_id`: one query for the whole page. */
async function withFollowupKeys<R extends { id: string }>(
  executor: Executor,
  kind: FollowupKind,
  rows: readonly R[],
): Promise<Array<R & FollowupKey>> {
  const keys = await externalIdsOf(
    executor,
    kind,
    rows.map((row) => row.id),
  );
  return rows.map((row) => {
    const [key] = keys.get(row.id) ?? [];
    if (!key) throw new Error(`The ${kind} ${row.id} has no external id.`);
    return { ...row, source: key.source, external_id: key.id };
  });
}

/** A follow-up's row as presented: with its lead's and person's references and its `source` + `external_id`. */
export type FollowupRecord<R> = R & FollowupKey & { lead_reference: string | null; person_reference: string | null };

/** Where each kind of follow-up lives: its table and the type of its id. */
const followupTables = { activity: ['activities', 'uuid'], task: ['tasks', 'text'] } as const;

/**
 * The sync resource of a follow-up (lib/resources.ts): shown with its `source` + `external_id`, listed by
 * `?external=<source>:<external_id>`, and audited when it names a lead or a person (personal data).
 */
export function followupResource<R extends { id: string }, View extends { lead: string | null; person: string | null }>(
  kind: FollowupKind,
  spec: { select: ResourceSelect<R>; present: (row: R & FollowupKey) => View; reference: (view: View) => string },
) {
  const [table, idType] = followupTables[kind];
  return syncResource(table, {
    idType,
    noun: kind,
    external: kind,
    select: spec.select,
    present: async (services, rows) => (await withFollowupKeys(services.db, kind, rows)).map(spec.present),
    personal: (view) => (view.lead !== null || view.person !== null ? spec.reference(view) : undefined),
  });
}
