import Big from 'big.js';
import { type AliasedRawBuilder, type RawBuilder, sql, type Updateable } from 'kysely';
import { readAuditCte } from '../../lib/audit';
import type { Trx } from '../../lib/db/index';
import { notFound } from '../../lib/errors';
import { type External, externalHolder, type LinkWrite, linkCte, linkFor, linksAfter } from '../../lib/external-ids';
import { writeLockedWhenStale } from '../../lib/locked-write';
import { amountIn } from '../../lib/money';
import {
  departmentKnown,
  fieldProblem,
  type MemberRule,
  memberKnown,
  unknownDepartment,
  unknownMember,
  unknownReference,
} from '../../lib/named-records';
import { matchOrCreateContact, type PersonValues, personCtes, personValues, wantedPerson } from '../../lib/people';
import { checkIfMatch } from '../../lib/preconditions';
import { newReference } from '../../lib/references';
import type { Written } from '../../lib/resources';
import { type Stale, stale, type WriteScope, writeStatement } from '../../lib/write';
import type { DealRow, DealsTable } from '../../schema/pipelines/db';
import type { DealInputValue, DealPatchValue } from '../../schema/pipelines/deals';
import { type DealRecord, selectDeals } from './deals.present';
import { runNamed } from '../../lib/db/prepared';
import { stamp } from '../../lib/clock';

/**
 * Deals' writes in two round trips (lib/write.ts): one read of everything the decision needs (the deal with its
 * version, the pipeline and stage, the enquiry, the person, home, owner, handler and department the body names, the
 * holder of the client's id), then one statement: the change guarded by the version read, the link of the client's
 * id, the person matched or added (lib/people.ts personCtes) and the audit of the answer (a deal names its person:
 * every answer is audited). Under a burst a stale write runs again with the deal's row locked (lib/locked-write.ts).
 */

/** Who may handle a deal: any member of the company. */
const handlerRule: MemberRule = { path: 'handler' };

/** The records the body's optional fields name, as one read found them. */
type NamedRead = {
  named_home_id: string | null;
  named_owner_id: string | null;
  named_owner_erased: boolean | null;
  handler_known: boolean;
  department_known: boolean;
};

/**
 * The columns of a read that resolve the records the body's optional fields name (home, owner, handler, department).
 * A field the body leaves out or sets to null is a constant of the text, not a parameter: PostgreSQL folded such
 * lookups away in each run's own plan, so it planned a deal create's read anew on every run (1,508 plans in 1,712
 * runs, 0.56 ms each) instead of keeping the generic plan; each shape of body is now its own text, planned once.
 */
function namedColumns(companyId: string, input: DealPatchValue): AliasedRawBuilder<unknown, string>[] {
  const company = sql`company_id = ${companyId}::uuid`;
  const owner = sql`from contacts where ${company} and reference = ${input.owner ?? null}::text`;
  return [
    (input.home ? sql`(select id from listings where ${company} and slug_en = ${input.home}::text)` : sql`null::uuid`).as(
      'named_home_id',
    ),
    (input.owner ? sql`(select id ${owner})` : sql`null::uuid`).as('named_owner_id'),
    (input.owner ? sql`(select erased ${owner})` : sql`null::boolean`).as('named_owner_erased'),
    (input.handler ? memberKnown(companyId, input.handler, handlerRule) : sql`true`).as('handler_known'),
    (input.department ? departmentKnown(companyId, input.department) : sql`true`).as('department_known'),
  ];
}

/** The columns the body's optional fields set (both on POST and PATCH), checked against what the read found. */
function fieldValues(read: NamedRead, currency: string, input: DealPatchValue): Updateable<DealsTable> {
  const set: Updateable<DealsTable> = {};
  if (input.title !== undefined) set.title = input.title;
  if (input.home !== undefined) {
    if (input.home !== null && read.named_home_id === null) {
      throw unknownReference('home', `${input.home} is not a listing of this company.`);
    }
    set.listing_id = read.named_home_id;
  }
  if (input.owner !== undefined) {
    if (input.owner !== null && read.named_owner_id === null) {
      throw unknownReference('owner', `${input.owner} is not a contact of this company.`);
    }
    if (read.named_owner_erased) throw fieldProblem('owner', 'contact_erased', `The contact ${input.owner} is erased.`);
    set.owner_id = read.named_owner_id;
  }
  if (input.handler !== undefined) {
    if (input.handler !== null && !read.handler_known) throw unknownMember(input.handler, handlerRule);
    set.handler_id = input.handler;
  }
  if (input.department !== undefined) {
    if (input.department !== null && !read.department_known) throw unknownDepartment(input.department);
    set.department_key = input.department;
  }
  if (input.value !== undefined) set.value = input.value && amountIn(input.value, currency, 'value');
  if (input.commission !== undefined) set.commission = input.commission && amountIn(input.commission, currency, 'commission');
  if (input.probability !== undefined) set.probability = input.probability;
  if (input.expected_close !== undefined) set.expected_close = input.expected_close;
  return set;
}

function checkParties(contactId: string | undefined, ownerId: string | null | undefined) {
  if (ownerId && ownerId === contactId)
    throw fieldProblem('owner', 'same_party', 'The owner is not the person the deal is with.');
}

/** The row of a write statement's CTE with its dates and amounts as text, as selectDeals gives them. */
const shownRow = (cte: string, more = '') =>
  sql.raw(`select *, expected_close::text as expected_close, value::text as value, commission::text as commission,
    version::text as version${more} from ${cte}`);

/** A deal answered as read, nothing written but the audit of the answer. */
export async function dealUnchanged(scope: WriteScope, deal: DealRecord, created = false): Promise<Written<DealRecord>> {
  const audit = readAuditCte('answer_read', scope.answerRead, [deal.reference]);
  if (audit) await writeStatement([audit], sql`select 1`).execute(scope.db);
  return { row: deal, created, version: deal.version };
}

/** What a create reads beside the deal sent before: the pipeline and stage, the enquiry, the person named. */
type CreateRead = NamedRead & {
  existing: string | null;
  new_pipeline_id: string | null;
  new_pipeline_key: string | null;
  new_pipeline_purpose: 'sales' | 'leasing' | null;
  new_stage_id: string | null;
  new_stage_key: string | null;
  new_stage_kind: 'open' | 'won' | 'lost' | null;
  new_stage_probability: number | null;
  enquiry_id: string | null;
  enquiry_contact_id: string | null;
  enquiry_person: string | null;
  enquiry_listing_id: string | null;
  enquiry_home: string | null;
  enquiry_department: string | null;
  enquiry_assignee: string | null;
  enquiry_erased: boolean | null;
  person_id: string | null;
  person_erased: boolean | null;
};

/** What the create's read leaves out when the body names no enquiry or person's reference. */
const absent = {
  enquiry_id: null,
  enquiry_contact_id: null,
  enquiry_person: null,
  enquiry_listing_id: null,
  enquiry_home: null,
  enquiry_department: null,
  enquiry_assignee: null,
  enquiry_erased: null,
  person_id: null,
  person_erased: null,
};

/** The create's refusals of the pipeline, stage and enquiry or person named, on what the read found. */
function checkCreate(read: CreateRead, input: DealInputValue) {
  if (read.new_pipeline_id === null) {
    throw input.pipeline === undefined
      ? fieldProblem('pipeline', 'no_pipeline', 'The company has no pipeline yet: it adds them in its admin.')
      : fieldProblem('pipeline', 'unknown_pipeline', `${input.pipeline} is not a pipeline of this company.`);
  }
  if (read.new_stage_id === null) {
    throw input.stage === undefined
      ? fieldProblem('stage', 'no_open_stage', `The pipeline ${read.new_pipeline_key} has no open stage.`)
      : fieldProblem('stage', 'unknown_stage', `${input.stage} is not a stage of the pipeline ${read.new_pipeline_key}.`);
  }
  if (read.new_stage_kind !== 'open') {
    throw fieldProblem('stage', 'stage_not_open', `A deal starts in an open stage; move it to ${input.stage} afterwards.`);
  }
  if (input.enquiry !== undefined) {
    if (read.enquiry_id === null) throw unknownReference('enquiry', `${input.enquiry} is not a lead of this company.`);
    if (read.enquiry_erased) throw fieldProblem('enquiry', 'lead_erased', `The lead ${input.enquiry} is erased.`);
    if (read.enquiry_contact_id === null) {
      throw fieldProblem('enquiry', 'enquiry_without_person', `The lead ${input.enquiry} names no person.`);
    }
  }
  if (typeof input.person === 'string') {
    if (read.person_id === null) throw unknownReference('person', `${input.person} is not a contact of this company.`);
    if (read.person_erased) throw fieldProblem('person', 'contact_erased', `The contact ${input.person} is erased.`);
  }
}

/** The slots of lib/people.ts personCtes from values (the statement is built once per write, not prepared). */
const slotsOf = (values: PersonValues) =>
  Object.fromEntries(Object.entries(values).map(([key, value]) => [key, sql.val(value)])) as never;

/**
 * Adds a deal in an open stage, from an enquiry (its person, and its home, department and assignee unless sent), a
 * person's reference, or their details (matched or added as POST /contacts does: lib/people.ts, in the deal's
 * statement; with their own external id, lib/people.ts matchOrCreateContact in a transaction first). Sent again with
 * the same external id: the first deal (read on its own, a trip more on a retry only: inside the create's read its
 * joins made that read take 5.6 ms to plan, 0.83 ms without; bench/plan-times.ts), `created: false`, nothing
 * written. Announces nothing (the spec names no deal creation event; a mirror finds new deals with `updated_since`).
 * A concurrent create with the same external id (or the same new person) fails the statement on a unique index, and
 * the next read finds the first.
 */
export async function addDeal(scope: WriteScope, input: DealInputValue): Promise<Written<DealRecord> | Stale> {
  const { db, company } = scope;
  const existing = input.external ? externalHolder(company.id, 'deal', input.external).holder : sql`null::text`;
  const c = sql`${company.id}::uuid`;
  const person = typeof input.person === 'string' ? input.person : null;
  // Named (planned once per connection): planning this read took PostgreSQL ten times its run (bench/plan-times.ts).
  // What the body does not name is left out of the text (namedColumns), so the generic plan is the one kept.
  const enquiry = input.enquiry !== undefined;
  const { rows } = await runNamed(
    db,
    sql<CreateRead>`
    select k.existing, pl.id as new_pipeline_id, pl.key as new_pipeline_key, pl.purpose as new_pipeline_purpose,
      st.id as new_stage_id, st.key as new_stage_key, st.kind as new_stage_kind, st.probability as new_stage_probability,
      ${
        enquiry
          ? sql`enquiry.id as enquiry_id, enquiry.contact_id as enquiry_contact_id, enquiry_person.reference as enquiry_person,
      enquiry.listing_id as enquiry_listing_id, enquiry_home.slug_en as enquiry_home,
      enquiry.department_key as enquiry_department, enquiry.assignee_id as enquiry_assignee, enquiry.erased as enquiry_erased,`
          : sql``
      }
      ${person !== null ? sql`named_person.id as person_id, named_person.erased as person_erased,` : sql``}
      ${sql.join(namedColumns(company.id, input))}
    from (select ${existing} as existing) k
    left join lateral (select id, key, purpose from pipelines where company_id = ${c}
      ${input.pipeline !== undefined ? sql`and key = ${input.pipeline}::text` : sql``}
      order by position, created_at limit 1) pl on true
    left join lateral (select id, key, kind, probability from pipeline_stages where pipeline_id = pl.id
      and ${input.stage !== undefined ? sql`key = ${input.stage}::text` : sql`kind = 'open'`}
      order by position, created_at limit 1) st on true
    ${
      enquiry
        ? sql`left join leads enquiry on enquiry.company_id = ${c} and enquiry.reference = ${input.enquiry}::text
    left join contacts enquiry_person on enquiry_person.id = enquiry.contact_id
    left join listings enquiry_home on enquiry_home.id = enquiry.listing_id`
        : sql``
    }
    ${
      person !== null
        ? sql`left join contacts named_person on named_person.company_id = ${c} and named_person.reference = ${person}::text`
        : sql``
    }
  `.compile(db),
  );
  const read = { ...absent, ...rows[0] } as CreateRead;
  if (read.existing !== null) {
    // Sent before (a retry): the deal is read on its own, so the create's read plans without its joins.
    const sent = await runNamed(db, selectDeals(db, company.id).where('deals.id', '=', read.existing).compile());
    if (sent.rows[0]) return dealUnchanged(scope, sent.rows[0] as DealRecord);
  }
  checkCreate(read, input);

  const fromEnquiry =
    input.enquiry === undefined
      ? {}
      : {
          lead_id: read.enquiry_id,
          listing_id: read.enquiry_listing_id,
          department_key: read.enquiry_department,
          handler_id: read.enquiry_assignee,
        };
  const set = { ...fromEnquiry, ...fieldValues(read, company.currency, input) };
  const details = typeof input.person === 'object' ? input.person : undefined;
  let contactId = input.enquiry !== undefined ? (read.enquiry_contact_id as string) : (read.person_id ?? undefined);
  let personReference = input.enquiry !== undefined ? read.enquiry_person : person;
  if (details?.external) {
    // A person with their own external id: matched and linked as POST /contacts does, in a transaction first.
    const matched = await db.transaction().execute((trx: Trx) => matchOrCreateContact(trx, company, details, scope.causedBy));
    contactId = matched.contact.id;
    personReference = matched.contact.reference;
  }
  checkParties(contactId, set.owner_id);
  const matching = details && !details.external;
  const values = matching
    ? personValues(company, wantedPerson(company, details), scope.causedBy, { rule: 'server', touch: 'on_change' })
    : undefined;

  const reference = newReference('D');
  const columns = Object.keys(set) as Array<keyof typeof set>;
  const insert = sql`insert into deals (company_id, reference, pipeline_id, stage_id, contact_id
      ${sql.join(
        columns.map((column) => sql`, ${sql.ref(column)}`),
        sql``,
      )})
    select ${c}, ${reference}, ${read.new_pipeline_id}::uuid, ${read.new_stage_id}::uuid,
      ${values ? sql`(select id from person)` : sql`${contactId}::uuid`}
      ${sql.join(
        columns.map((column) => sql`, ${set[column] ?? null}`),
        sql``,
      )}
    ${values && set.owner_id ? sql`where (select id from person) <> ${set.owner_id}::uuid` : sql``}
    returning *`;
  const link = linkFor('deal', input.external, null, undefined);
  const { rows: written } = await writeStatement(
    [
      values && personCtes(slotsOf(values)),
      sql`added as (${insert})`,
      linkCte('linked', company.id, 'deal', link, 'added'),
      readAuditCte('answer_read', scope.answerRead, [reference]),
    ],
    shownRow('added', values ? ', (select reference from person) as matched_person' : ''),
  ).execute(db);
  const row = written[0] as (DealRow & { matched_person?: string }) | undefined;
  if (!row) {
    if (values && set.owner_id) throw fieldProblem('owner', 'same_party', 'The owner is not the person the deal is with.');
    return stale;
  }
  const { matched_person, ...dealRow } = row;
  const record = {
    ...(dealRow as unknown as DealRecord),
    pipeline_key: read.new_pipeline_key as string,
    pipeline_purpose: read.new_pipeline_purpose as 'sales' | 'leasing',
    stage_key: read.new_stage_key as string,
    stage_kind: 'open' as const,
    stage_probability: read.new_stage_probability as number,
    person_reference: (matched_person ?? personReference) as string,
    lead_reference: input.enquiry ?? null,
    home_slug: input.home !== undefined ? input.home : input.enquiry !== undefined ? read.enquiry_home : null,
    owner_reference: input.owner ?? null,
    currency: company.currency,
    external: linksAfter([], link, null),
  };
  return { row: record, created: true, version: row.version };
}

/** The deal of this company with this reference, read for a write with `more` columns; 404 when there is none. */
export async function readDeal<More extends object>(
  scope: WriteScope,
  reference: string,
  more: AliasedRawBuilder<unknown, string>[],
  external?: External,
): Promise<DealRecord & More & { holder: string | null }> {
  const held = external ? externalHolder(scope.company.id, 'deal', external).holder : sql<string | null>`null::text`;
  const query = selectDeals(scope.db, scope.company.id)
    .select([...more, held.as('holder')] as never)
    .where('deals.reference', '=', reference);
  // Named, as the create's read: its joins took longer to plan than to run.
  const deal = (await runNamed(scope.db, query.compile())).rows[0] as (DealRecord & More & { holder: string | null }) | undefined;
  if (!deal) throw notFound(`The deal ${reference}`);
  checkIfMatch(scope.ifMatch, deal.version);
  return deal;
}

/** Locks a deal's bare row for a write run again under a burst (lib/locked-write.ts). */
export async function lockDeal(trx: Trx, companyId: string, reference: string): Promise<void> {
  await sql`select from deals where company_id = ${companyId}::uuid and reference = ${reference} for update`.execute(trx);
}

/**
 * A deal's change in one statement: `set` guarded by the version read (and `guards`), the link of the client's id, the
 * CTEs over `changed` (events) and the audit of the answer; `shown` what the answer shows beside the changed row.
 */
export async function writeDealChange(
  scope: WriteScope,
  deal: DealRecord,
  set: Updateable<DealsTable>,
  more: {
    guards?: RawBuilder<boolean>[];
    ctes?: Array<RawBuilder<unknown> | false>;
    link?: LinkWrite;
    shown?: Partial<DealRecord>;
  },
): Promise<Written<DealRecord> | Stale> {
  const { db, company } = scope;
  const link = more.link ?? { kind: 'none' };
  let update = db
    .updateTable('deals')
    .set({ ...set, updated_at: stamp })
    .where('id', '=', deal.id)
    .where(sql<boolean>`version = ${deal.version}::bigint`);
  for (const guard of more.guards ?? []) update = update.where(guard);
  const { rows } = await writeStatement(
    [
      sql`changed as (${update.returningAll()})`,
      linkCte('linked', company.id, 'deal', link, 'changed'),
      ...(more.ctes ?? []),
      readAuditCte('answer_read', scope.answerRead, [deal.reference]),
    ],
    shownRow('changed'),
  ).execute(db);
  const row = rows[0] as DealRow | undefined;
  if (!row) return stale;
  const external = linksAfter(deal.external, link, null);
  const record = { ...deal, ...(row as unknown as DealRecord), ...more.shown, external };
  return { row: record, version: row.version };
}

/**
 * PATCH of a deal: title, home, owner, handler, department, value and commission, probability (null: the stage's
 * again), expected close, and an external id. Announces nothing (no deal update event in the spec): `updated_at`
 * moves, so `updated_since` finds it.
 */
export function changeDeal(scope: WriteScope, reference: string, input: DealPatchValue): Promise<Written<DealRecord>> {
  return writeLockedWhenStale(
    scope,
    (trx) => lockDeal(trx, scope.company.id, reference),
    async (attempt) => {
      const read = await readDeal<NamedRead>(attempt, reference, namedColumns(attempt.company.id, input), input.external);
      const set = fieldValues(read, attempt.company.currency, input);
      checkParties(read.contact_id, set.owner_id === undefined ? read.owner_id : set.owner_id);
      const link = linkFor('deal', input.external, read.holder, read.id);
      const same = (column: string, value: unknown) => {
        const current = read[column as keyof typeof read];
        if (value === null || current === null) return value === current;
        return column === 'value' || column === 'commission'
          ? new Big(String(current)).eq(String(value))
          : String(current) === String(value);
      };
      const changes = Object.fromEntries(Object.entries(set).filter(([column, value]) => !same(column, value)));
      const { named_home_id, named_owner_id, named_owner_erased, handler_known, department_known, holder, ...deal } = read;
      if (Object.keys(changes).length === 0 && link.kind === 'none') return dealUnchanged(attempt, deal);
      const shown: Partial<DealRecord> = {};
      if (input.home !== undefined) shown.home_slug = input.home;
      if (input.owner !== undefined) shown.owner_reference = input.owner;
      return writeDealChange(attempt, deal, changes, { link, shown });
    },
  );
}
