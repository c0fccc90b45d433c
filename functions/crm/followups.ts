import { type OperationNodeSource, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { readAuditCte } from '../../lib/audit';
import { ApiError } from '../../lib/errors';
import { eventCtes, type EventData, type EventInput, newEventId } from '../../lib/events';
import { type External, linkCte, type RecordKind } from '../../lib/external-ids';
import { type MemberRule, memberKnown, unknownMember, unknownReference } from '../../lib/named-records';
import { type ResourceSelect, syncResource } from '../../lib/resources';
import { type WriteScope, writeStatement } from '../../lib/write';

/**
 * What activities and tasks share: each is written once per client's id (`source` + `external_id`, kept in
 * external_ids), may name a lead and a person, and carries personal data when it does. A create is two round trips
 * (lib/write.ts): one read (the follow-up sent before under the same id, the lead, the person, the member), then one
 * statement (the follow-up, its id, its event, the audit of the answer).
 */
export type FollowupKind = Extract<RecordKind, 'activity' | 'task'>;
export type FollowupKey = { source: string; external_id: string };
const externalOf = (key: FollowupKey): External => ({ source: key.source, id: key.external_id });

/** A follow-up's row as shown: with its lead's and person's references and its `source` + `external_id`. */
export type FollowupRecord<R> = R & FollowupKey & { lead_reference: string | null; person_reference: string | null };

/** A follow-up that names a lead or a person carries personal data: its answers are audited. */
export const isPersonal = (followup: { lead: unknown; person: unknown }) => followup.lead !== null || followup.person !== null;

/** Where each kind of follow-up lives: its table and the type of its id. */
const followupTables = { activity: ['activities', 'uuid'], task: ['tasks', 'text'] } as const;

/**
 * The sync resource of a follow-up (lib/resources.ts): shown from its row alone, listed by `?external=<source>:<id>`,
 * and audited when it names a lead or a person.
 */
export function followupResource<R extends { id: string }, View extends { lead: string | null; person: string | null }>(
  kind: FollowupKind,
  spec: {
    select: ResourceSelect<FollowupRecord<R>>;
    present: (row: FollowupRecord<R>) => View;
    reference: (view: View) => string;
  },
) {
  const [table, idType] = followupTables[kind];
  return syncResource(table, {
    idType,
    noun: kind,
    external: kind,
    select: spec.select,
    present: (_services, rows) => rows.map(spec.present),
    personal: (view) => (isPersonal(view) ? spec.reference(view) : undefined),
  });
}

/** The lead and person a new follow-up is about (a lead given alone: its person). */
export type FollowupLinks = {
  lead: { id: string; reference: string; created_at: Date } | null;
  person: { id: string; reference: string } | null;
};

type LinksRead = {
  existing: string | null;
  named_lead_id: string | null;
  named_lead_reference: string | null;
  named_lead_created_at: Date | null;
  named_lead_erased: boolean | null;
  named_person_id: string | null;
  named_person_reference: string | null;
  named_person_erased: boolean | null;
  member_known: boolean;
};

/** A follow-up create's body: its key, the lead and person it names, and a member (`by`, `assignee`). */
type FollowupInput = FollowupKey & { lead?: string; person?: string };

/**
 * The read of a follow-up's create, one statement: the follow-up sent before under the same key, as `shown(existing)`
 * selects it (`k.existing` is its id), the lead and person named, and whether `member` is one of the company's. A
 * lead or person not named is not in the text, never a null value (each run's own plan folded such a lookup away, and
 * PostgreSQL kept planning the read anew: functions/pipelines/deals.ts namedColumns); without a person, the lead's.
 */
export async function readFollowupCreate<R>(
  scope: WriteScope,
  kind: FollowupKind,
  input: FollowupInput,
  // biome-ignore lint/suspicious/noExplicitAny: either follow-up's query builder
  shown: SelectQueryBuilder<any, any, FollowupRecord<R>>,
  member?: { id: string; rule: MemberRule },
): Promise<{ existing: FollowupRecord<R> | undefined; links: FollowupLinks }> {
  const companyId = scope.company.id;
  const { lead, person } = input;
  const { rows } = await sql<LinksRead & { [K in keyof FollowupRecord<R>]: FollowupRecord<R>[K] | null }>`
    select k.existing,
      named_lead.id as named_lead_id, named_lead.reference as named_lead_reference,
      named_lead.created_at as named_lead_created_at, named_lead.erased as named_lead_erased,
      named_person.id as named_person_id, named_person.reference as named_person_reference,
      named_person.erased as named_person_erased,
      ${member ? memberKnown(companyId, member.id, member.rule) : sql`true`} as member_known,
      f.*
    from (select (select record_id from external_ids where company_id = ${companyId}::uuid and record_type = ${kind}
      and source = ${input.source} and external_id = ${input.external_id}) as existing) k
    left join leads named_lead on ${lead === undefined ? sql`false` : sql`named_lead.company_id = ${companyId}::uuid and named_lead.reference = ${lead}::text`}
    left join contacts named_person on named_person.company_id = ${companyId}::uuid
      and ${person === undefined ? sql`named_person.id = named_lead.contact_id` : sql`named_person.reference = ${person}::text`}
    left join lateral ${shown} as f on true
  `.execute(scope.db);
  const read = rows[0] as LinksRead & Record<string, unknown>;
  if (read.existing !== null && read.id !== null)
    return { existing: read as unknown as FollowupRecord<R>, links: { lead: null, person: null } };
  return { existing: undefined, links: linksOf(read, input, member) };
}

/**
 * The links of a new follow-up, or its refusal: an unknown lead, person or member is 400 `unknown_reference`; an
 * erased lead or person takes no new follow-ups (409): nothing personal may be attached to them again.
 */
function linksOf(read: LinksRead, input: FollowupInput, member?: { id: string; rule: MemberRule }): FollowupLinks {
  let lead: FollowupLinks['lead'] = null;
  if (input.lead !== undefined) {
    if (read.named_lead_id === null) throw unknownReference('lead', `${input.lead} is not a lead of this company.`);
    if (read.named_lead_erased) throw new ApiError('conflict', `The lead ${input.lead} is erased; nothing can be added to it.`);
    lead = {
      id: read.named_lead_id,
      reference: read.named_lead_reference as string,
      created_at: new Date(read.named_lead_created_at as Date),
    };
  }
  if (input.person !== undefined && read.named_person_id === null) {
    throw unknownReference('person', `${input.person} is not a contact of this company.`);
  }
  if (read.named_person_erased) {
    throw new ApiError('conflict', `The contact ${read.named_person_reference} is erased; nothing can be added to it.`);
  }
  if (member && !read.member_known) throw unknownMember(member.id, member.rule);
  const person =
    read.named_person_id === null ? null : { id: read.named_person_id, reference: read.named_person_reference as string };
  return { lead, person };
}

/** The follow-up sent before, answered as it is: nothing written but the audit of the answer. */
export async function answeredAgain<R>(scope: WriteScope, existing: FollowupRecord<R>, reference: string) {
  const personal = isPersonal({ lead: existing.lead_reference, person: existing.person_reference });
  const audit = readAuditCte('answer_read', scope.answerRead, personal ? [reference] : []);
  if (audit) await writeStatement([audit], sql`select 1`).execute(scope.db);
  return { row: existing, created: false };
}

/**
 * A new follow-up in one statement: `insert` (returning the row) as the CTE `added`, its key, `more` CTEs over `added`
 * (a lead's first answer), its `<kind>.created` event and the audit of the answer. A concurrent create under the same
 * key fails the statement on external_ids' key: writeOnce then reads again and answers that first one.
 */
export async function addedFollowup<R>(
  scope: WriteScope,
  kind: FollowupKind,
  input: FollowupKey,
  insert: OperationNodeSource,
  created: { reference: string; links: FollowupLinks; data: EventData },
  more: RawBuilder<unknown>[] = [],
): Promise<FollowupRecord<R>> {
  const { company } = scope;
  const { links } = created;
  const event: EventInput = {
    companyId: company.id,
    type: `${kind}.created` as const,
    causedBy: scope.causedBy,
    data: created.data,
  };
  const { rows } = await writeStatement(
    [
      sql`added as (${insert})`,
      linkCte('followup_key', company.id, kind, { kind: 'link', external: externalOf(input) }, 'added'),
      ...more,
      eventCtes('created', newEventId(), event, 'added'),
      readAuditCte('answer_read', scope.answerRead, isPersonal(links) ? [created.reference] : []),
    ],
    sql`select * from added`,
  ).execute(scope.db);
  const row = rows[0] as R | undefined;
  if (!row) throw new Error(`the new ${kind} was not stored`);
  return {
    ...row,
    source: input.source,
    external_id: input.external_id,
    lead_reference: links.lead?.reference ?? null,
    person_reference: links.person?.reference ?? null,
  };
}
